// CudaSourceOp: checks of the user's rules, and the errors of running it where it cannot run.
#include "ops/custom/cuda_source_op.h"

#include <functional>

#include "runtime/error.h"

namespace tgc {

CudaSourceOp::CudaSourceOp(std::shared_ptr<const CudaKernelSpec> spec) : spec_(std::move(spec)) {
  const std::string what = "cuda_kernel '" + spec_->name + "'";
  if (spec_->name.empty() || spec_->source.empty() || spec_->entry.empty())
    throw ValueError(what + ": the name, source and entry must all be given", "cuda_kernel()",
                     "set CudaKernelSpec::name, ::source and ::entry (the extern \"C\" __global__ function)");
  if (!spec_->output_types || !spec_->output_shapes || !spec_->launch)
    throw ValueError(what + ": output_types, output_shapes and launch rules must all be given", "cuda_kernel()",
                     "they say what the op returns and how the kernel is launched for given inputs");
  if (spec_->num_outputs < 1)
    throw ValueError(what + ": num_outputs must be at least 1", "cuda_kernel()", "a kernel op returns its outputs");
}

std::vector<Type> CudaSourceOp::infer_types(const std::vector<Type>& inputs) const {
  std::vector<Type> out = spec_->output_types(inputs);
  if (static_cast<int>(out.size()) != spec_->num_outputs)
    throw ValueError("cuda_kernel '" + spec_->name + "': output_types returned " + std::to_string(out.size()) +
                         " types for " + std::to_string(spec_->num_outputs) + " outputs",
                     "", "return one Type per output");
  return out;
}

std::vector<Shape> CudaSourceOp::infer_shapes(const std::vector<Shape>& inputs) const {
  std::vector<Shape> out = spec_->output_shapes(inputs);
  if (static_cast<int>(out.size()) != spec_->num_outputs)
    throw ValueError("cuda_kernel '" + spec_->name + "': output_shapes returned " + std::to_string(out.size()) +
                         " shapes for " + std::to_string(spec_->num_outputs) + " outputs",
                     "", "return one Shape per output");
  return out;
}

void CudaSourceOp::perform(const std::vector<Tensor>&, std::vector<Tensor>&) const {
  throw ConfigError("the op '" + spec_->name + "' is CUDA source code and runs on device=cuda only", "",
                    "compile the function with device=cuda (config device=cuda, or TGC_FLAGS=device=cuda)");
}

std::vector<std::shared_ptr<Variable>> CudaSourceOp::grad(const Node&,
                                                          const std::vector<std::shared_ptr<Variable>>&) const {
  throw TypeError("the op '" + spec_->name + "' (user CUDA source) has no gradient", "",
                  "express the computation with tgc ops to differentiate it, or stop the gradient before it");
}

bool CudaSourceOp::equals(const Op& other) const {
  const auto* o = dynamic_cast<const CudaSourceOp*>(&other);
  // Rules are functions, which cannot be compared: only ops made from one spec are the same.
  return o && o->spec_ == spec_;
}

size_t CudaSourceOp::hash() const {
  return std::hash<std::string>()(spec_->name) ^ (std::hash<std::string>()(spec_->source) << 1) ^
         (std::hash<std::string>()(spec_->entry) << 2);
}

}  // namespace tgc
