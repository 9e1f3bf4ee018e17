// The interpreter's shape analysis: every value's NumPy shape, the loop and output spaces,
// and when the single-pass loop is valid.
#include <fmt/format.h>

#include "compiler/kernel/interpreter.h"
#include "compiler/kernel/interpreter_internal.h"
#include "compiler/kernel/kernel_geometry.h"
#include "compiler/kernel/reference_op.h"
#include "ops/elemwise/broadcast.h"
#include "runtime/error.h"

namespace tgc {

std::vector<bool> uniform_mask(const Kernel& kernel) {
  std::vector<bool> uniform(kernel.values.size(), false);
  for (size_t i = 0; i < kernel.values.size(); ++i) {
    const KernelValue& v = kernel.values[i];
    if (v.kind == KernelValue::Kind::Constant) {
      uniform[i] = true;
    } else if (v.kind == KernelValue::Kind::Op) {
      bool all = true;
      for (int a : v.args) all = all && uniform[a];
      uniform[i] = all;
    }
  }
  return uniform;
}

namespace {

// The single pass computes each value over its whole space, which yields the value itself
// broadcast; so it is exact when what is observed has the space's shape: every output
// (written at the space's shape) and every Reduce argument (whose element count and
// positions matter). An empty space computes nothing, so it also needs every Op value to be
// empty: an Op of nonempty shape might raise (integer division by zero) in the unfused graph.
bool single_pass_valid(const Kernel& kernel, const KernelShapes& s) {
  const std::vector<bool> epilogue = kernel.epilogue_mask();
  const std::vector<bool> uniform = uniform_mask(kernel);
  for (size_t i = 0; i < kernel.values.size(); ++i) {
    const KernelValue& v = kernel.values[i];
    if (uniform[i]) continue;
    const Shape& space = epilogue[i] ? s.output_space : s.loop;
    if (v.kind == KernelValue::Kind::Reduce && s.values[v.args[0]] != s.loop) return false;
    if (v.kind == KernelValue::Kind::Op && shape_numel(space) == 0 && shape_numel(s.values[i]) != 0) return false;
    if (v.kind == KernelValue::Kind::Load && epilogue[i]) {
      const auto b = try_broadcast_static_shapes({s.values[i], space});
      if (!b || *b != space) return false;
    }
  }
  for (const KernelOutput& o : kernel.outputs) {
    const Shape& space = kernel.is_reduction() ? s.output_space : s.loop;
    if (s.values[o.value] != space) return false;
  }
  return true;
}

}  // namespace

KernelShapes analyze_kernel_shapes(const Kernel& kernel, const std::vector<Shape>& input_shapes) {
  TGC_INTERNAL_CHECK(input_shapes.size() == kernel.inputs.size(),
                     fmt::format("kernel with {} inputs given {} shapes", kernel.inputs.size(), input_shapes.size()));
  for (size_t j = 0; j < input_shapes.size(); ++j)
    TGC_INTERNAL_CHECK(static_cast<int>(input_shapes[j].size()) == kernel.inputs[j].ndim,
                       fmt::format("kernel input i{} has rank {}, given shape {}", j, kernel.inputs[j].ndim,
                                   shape_str(input_shapes[j])));
  KernelShapes s;
  s.values.resize(kernel.values.size());
  const std::vector<bool> epilogue = kernel.epilogue_mask();
  std::vector<Shape> loads{Shape(kernel.ndim, 1)};  // the loop space has the kernel's rank
  for (size_t i = 0; i < kernel.values.size(); ++i) {
    const KernelValue& v = kernel.values[i];
    switch (v.kind) {
      case KernelValue::Kind::Load:
        s.values[i] = input_shapes[v.input];
        if (!epilogue[i]) loads.push_back(s.values[i]);
        break;
      case KernelValue::Kind::Constant: s.values[i] = {}; break;
      case KernelValue::Kind::Op: {
        std::vector<Shape> args;
        for (int a : v.args) args.push_back(s.values[a]);
        s.values[i] = broadcast_shapes(args, std::string(scalar_op_name(v.op)));
        break;
      }
      case KernelValue::Kind::Reduce:
        s.values[i] = reference_op(kernel, static_cast<int>(i))->infer_shapes({s.values[v.args[0]]}).at(0);
        break;
    }
  }
  std::optional<Shape> loop = try_broadcast_static_shapes(loads);
  if (!loop || static_cast<int>(loop->size()) != kernel.ndim) return s;
  s.loop = *loop;
  s.output_space = kernel.is_reduction() ? kernel_output_space(kernel, s.loop) : s.loop;
  s.fast = single_pass_valid(kernel, s);
  return s;
}

std::vector<Shape> kernel_output_shapes(const Kernel& kernel, const std::vector<Shape>& input_shapes) {
  const KernelShapes s = analyze_kernel_shapes(kernel, input_shapes);
  std::vector<Shape> out;
  for (const KernelOutput& o : kernel.outputs) out.push_back(s.values.at(o.value));
  return out;
}

bool kernel_fast_path_applies(const Kernel& kernel, const std::vector<Shape>& input_shapes) {
  return analyze_kernel_shapes(kernel, input_shapes).fast;
}

}  // namespace tgc
