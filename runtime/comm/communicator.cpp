// The names of the collective reductions, as op names and messages spell them.
#include "runtime/comm/communicator.h"

namespace tgc {

std::string collective_reduce_name(CollectiveReduce op) {
  switch (op) {
    case CollectiveReduce::Sum: return "sum";
    case CollectiveReduce::Max: return "max";
    case CollectiveReduce::Min: return "min";
  }
  return "?";
}

}  // namespace tgc
