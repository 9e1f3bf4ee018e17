// Thunks that call Op::perform.
#include "backends/reference/reference_backend.h"

namespace tgc {

ThunkFn ReferenceBackend::make_thunk(const Node& node) const {
  // The thunk holds the op itself, not the node: a Program outlives no graph, but it
  // must not depend on one either.
  std::shared_ptr<const Op> op = node.op_ptr();
  return [op](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    op->perform(inputs, outputs);
  };
}

}  // namespace tgc
