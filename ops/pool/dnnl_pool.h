// oneDNN's pooling primitives (forward; backward, max through the forward's workspace) behind
// functions over Pool2dParams, so that only dnnl_pool.cpp knows whether tgc was built with
// oneDNN. The right padding a ceil_mode output needs is derived here from Pool2dParams'
// output size, the one place that decides it.
#pragma once

#include "ops/pool/pool2d.h"
#include "runtime/tensor.h"

namespace tgc {

// Whether Pool2d / Pool2dGrad compute this case with oneDNN: a build with oneDNN, float32,
// a non-empty problem, and a case whose divisors oneDNN computes as PyTorch does (an average
// that counts padding, in ceil_mode, would count the extra right padding too: reference).
// TGC_DNNL_POOL=0 in the environment turns it off.
bool dnnl_pool_applies(const Pool2dParams& p, const Tensor& x);

// y = pool(x) (gy undefined), or gx = the gradient given gy, through oneDNN.
void dnnl_pool(const Pool2dParams& p, const Tensor& x, const Tensor& gy, Tensor& out);

}  // namespace tgc
