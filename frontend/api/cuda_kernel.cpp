// CudaKernel: the public face of CudaSourceOp.
#include <tgc/cuda_kernel.h>

#include "ops/core/apply.h"

namespace tgc {

CudaKernel::CudaKernel(CudaKernelSpec spec)
    : op_(std::make_shared<CudaSourceOp>(std::make_shared<const CudaKernelSpec>(std::move(spec)))) {}

std::vector<Var> CudaKernel::operator()(const std::vector<Var>& inputs) const {
  std::vector<VarPtr> ins;
  for (const Var& v : inputs) ins.push_back(checked_ptr(v));
  std::vector<Var> outs;
  for (VarPtr& v : tgc::apply(op_, std::move(ins))) outs.emplace_back(std::move(v));
  return outs;
}

}  // namespace tgc
