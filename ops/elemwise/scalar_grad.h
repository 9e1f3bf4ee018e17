// The derivative rules of the scalar-op table, one function per differentiable row (the
// contract is ScalarGradFn's, in ops/elemwise/scalar_op.h). Declared here so that the
// table's rows can point at them; nothing else calls them directly.
#pragma once

#include <vector>

#include "ops/core/variable.h"

namespace tgc::scalar_grad {

#define TGC_SCALAR_GRAD(name)                                                       \
  std::vector<VarPtr> name(const std::vector<VarPtr>& inputs, const VarPtr& output, \
                           const VarPtr& output_grad)

TGC_SCALAR_GRAD(add);
TGC_SCALAR_GRAD(sub);
TGC_SCALAR_GRAD(mul);
TGC_SCALAR_GRAD(true_div);
TGC_SCALAR_GRAD(mod);
TGC_SCALAR_GRAD(pow);
TGC_SCALAR_GRAD(neg);
TGC_SCALAR_GRAD(abs);
TGC_SCALAR_GRAD(exp);
TGC_SCALAR_GRAD(exp2);
TGC_SCALAR_GRAD(expm1);
TGC_SCALAR_GRAD(log);
TGC_SCALAR_GRAD(log2);
TGC_SCALAR_GRAD(log10);
TGC_SCALAR_GRAD(log1p);
TGC_SCALAR_GRAD(sqrt);
TGC_SCALAR_GRAD(rsqrt);
TGC_SCALAR_GRAD(square);
TGC_SCALAR_GRAD(sin);
TGC_SCALAR_GRAD(cos);
TGC_SCALAR_GRAD(tan);
TGC_SCALAR_GRAD(tanh);
TGC_SCALAR_GRAD(sinh);
TGC_SCALAR_GRAD(cosh);
TGC_SCALAR_GRAD(arcsin);
TGC_SCALAR_GRAD(arccos);
TGC_SCALAR_GRAD(arctan);
TGC_SCALAR_GRAD(arctan2);
TGC_SCALAR_GRAD(erf);
TGC_SCALAR_GRAD(erfc);
TGC_SCALAR_GRAD(sigmoid);
TGC_SCALAR_GRAD(softplus);
TGC_SCALAR_GRAD(clip);
TGC_SCALAR_GRAD(maximum);
TGC_SCALAR_GRAD(minimum);
TGC_SCALAR_GRAD(where);
TGC_SCALAR_GRAD(cast);

#undef TGC_SCALAR_GRAD

}  // namespace tgc::scalar_grad
