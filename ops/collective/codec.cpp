// Codecs of the collective family (ops/core/op_codec.h) that refuse: a collective runs over a
// communicator group that only exists in the running process (its ranks, MPI or NCCL), and a
// saved function runs in one process. Registering them makes saving say so, naming the group,
// instead of the generic "its class has no codec"; a file naming one is refused on reading.
#include <memory>
#include <string>

#include "ops/collective/all_gather.h"
#include "ops/collective/all_reduce.h"
#include "ops/collective/broadcast.h"
#include "ops/collective/reduce_scatter.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"

namespace tgc {
namespace {

Json refuse_to_write(const CollectiveOp& op, OpWriteContext&) {
  throw ValueError("the collective " + op.name() + " over group " + op.group()->name() +
                       " cannot be saved: a saved function runs in one process",
                   "save", "save the function built without data_parallel / collectives");
}

std::shared_ptr<const Op> refuse_to_read(const Json&, OpReadContext&) {
  throw IOError("collectives are never saved");
}

template <class T>
bool register_refusal(const std::string& tag) {
  return register_op_codec<T>(tag, [](const T& op, OpWriteContext& ctx) { return refuse_to_write(op, ctx); },
                              refuse_to_read);
}

[[maybe_unused]] const bool registered =
    register_refusal<AllReduce>("AllReduce") && register_refusal<AllGather>("AllGather") &&
    register_refusal<ReduceScatter>("ReduceScatter") && register_refusal<Broadcast>("Broadcast");

}  // namespace
}  // namespace tgc
