// The shared rewrite of a matrix product into another compute dtype (see product_dtype.h).
#include "compiler/passes/product_dtype.h"

#include <memory>
#include <string>

#include "ops/blas/batched_dot.h"
#include "ops/blas/dot.h"
#include "ops/core/apply.h"
#include "ops/gradient/build.h"

namespace tgc {

bool is_matrix_product(const Node& n) {
  return n.num_outputs() == 1 &&
         (dynamic_cast<const Dot*>(&n.op()) != nullptr || dynamic_cast<const BatchedDot*>(&n.op()) != nullptr);
}

void recompute_product(GraphEditor& editor, Node& n, std::vector<VarPtr> operands, const PassContext& ctx,
                       const char* pass) {
  const VarPtr product = apply1(n.op_ptr(), std::move(operands));
  const VarPtr result = gradient::cast(product, n.output_raw(0)->type().dtype);
  std::string before;
  if (ctx.trace) before = n.describe();
  editor.replace(n.output_raw(0), result);
  if (ctx.trace) ctx.trace->push_back({pass, pass, std::move(before), result->owner()->describe()});
}

}  // namespace tgc
