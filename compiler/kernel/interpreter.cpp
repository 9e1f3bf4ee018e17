// run_kernel: checks the tensors against the kernel and picks the single pass or the
// value-by-value evaluation.
#include "compiler/kernel/interpreter.h"

#include <fmt/format.h>

#include "compiler/kernel/interpreter_internal.h"
#include "runtime/error.h"

namespace tgc {

void run_kernel(const Kernel& kernel, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                const std::vector<int>& inplace) {
  TGC_INTERNAL_CHECK(inputs.size() == kernel.inputs.size(),
                     fmt::format("kernel with {} inputs run on {} tensors", kernel.inputs.size(), inputs.size()));
  TGC_INTERNAL_CHECK(outputs.size() == kernel.outputs.size(),
                     fmt::format("kernel with {} outputs run with {} output slots", kernel.outputs.size(), outputs.size()));
  std::vector<Shape> shapes;
  for (size_t j = 0; j < inputs.size(); ++j) {
    const Tensor& t = inputs[j];
    TGC_INTERNAL_CHECK(t.defined() && t.on_host(), "run_kernel needs host tensors");
    TGC_INTERNAL_CHECK(t.dtype() == kernel.inputs[j].dtype && t.ndim() == kernel.inputs[j].ndim,
                       fmt::format("kernel input i{} is {} of rank {}, given {} {}", j, dtype_name(kernel.inputs[j].dtype),
                                   kernel.inputs[j].ndim, dtype_name(t.dtype()), shape_str(t.shape())));
    shapes.push_back(t.shape());
  }
  const KernelShapes s = analyze_kernel_shapes(kernel, shapes);
  // The general path computes value by value: an output slot holding an input's buffer
  // gets a fresh one there (ensure_output sees the input's other holders).
  if (s.fast) run_kernel_fast(kernel, s, inputs, outputs, inplace);
  else run_kernel_general(kernel, inputs, outputs);
}

}  // namespace tgc
