// The interpreter's general path: the kernel's meaning taken literally, one full tensor per
// value, each Op and Reduce value computed by its unfused op's reference perform. Used when
// an unknown dim broadcasts inside the group at run time, so the single pass does not apply.
#include "compiler/kernel/interpreter_internal.h"
#include "compiler/kernel/reference_op.h"
#include "ops/core/op.h"
#include "runtime/error.h"

namespace tgc {

namespace {

Tensor constant_tensor(const KernelValue& v) {
  return dispatch_dtype(v.dtype, [&]<typename T>() {
    if constexpr (is_float_type_v<T>) return Tensor::scalar<T>(static_cast<T>(v.constant));
    else return Tensor::scalar<T>(static_cast<T>(v.int_constant));
  });
}

}  // namespace

void run_kernel_general(const Kernel& kernel, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  const size_t n = kernel.values.size();
  // The first output that writes each value receives it in its own slot (reusing last
  // call's buffer through the op's ensure_output); any other output gets a copy.
  std::vector<int> output_of(n, -1);
  for (size_t j = 0; j < kernel.outputs.size(); ++j)
    if (output_of[kernel.outputs[j].value] < 0) output_of[kernel.outputs[j].value] = static_cast<int>(j);

  std::vector<Tensor> value(n);
  for (size_t i = 0; i < n; ++i) {
    const KernelValue& v = kernel.values[i];
    switch (v.kind) {
      case KernelValue::Kind::Load: value[i] = inputs.at(v.input); break;
      case KernelValue::Kind::Constant: value[i] = constant_tensor(v); break;
      case KernelValue::Kind::Op:
      case KernelValue::Kind::Reduce: {
        std::vector<Tensor> args;
        for (int a : v.args) args.push_back(value[a]);
        std::vector<Tensor> result(1);
        if (output_of[i] >= 0) result[0] = std::move(outputs[output_of[i]]);
        reference_op(kernel, static_cast<int>(i))->perform(args, result);
        value[i] = std::move(result[0]);
        break;
      }
    }
  }
  for (size_t j = 0; j < kernel.outputs.size(); ++j) {
    const int i = kernel.outputs[j].value;
    const KernelValue& v = kernel.values[i];
    const bool owned = output_of[i] == static_cast<int>(j) &&
                       (v.kind == KernelValue::Kind::Op || v.kind == KernelValue::Kind::Reduce);
    if (owned) {
      outputs[j] = value[i];
    } else {
      Tensor& out = ensure_output(outputs[j], kernel.outputs[j].dtype, value[i].shape());
      copy_elements(value[i], out);
    }
  }
}

}  // namespace tgc
