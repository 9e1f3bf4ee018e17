// Program helpers.
#include "runtime/program.h"

namespace tgc {

std::string thunk_kind_name(ThunkKind k) {
  switch (k) {
    case ThunkKind::Cpu: return "cpu";
    case ThunkKind::Gpu: return "gpu";
    case ThunkKind::Transfer: return "transfer";
    case ThunkKind::Comm: return "comm";
  }
  return "?";
}

std::vector<bool> Program::intermediate_mask() const {
  std::vector<bool> mask(num_slots, true);
  for (int s : bound_slots) mask[s] = false;
  for (auto& [s, t] : constants) mask[s] = false;
  for (int s : output_slots) mask[s] = false;
  return mask;
}

}  // namespace tgc
