// Kernel::validate: the Kernel IR's structural invariants, checked in one place so lowering
// (and anything else that builds kernels) cannot hand a backend a kernel it must second-guess.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/kernel/kernel_ir.h"
#include "runtime/convert.h"
#include "runtime/error.h"
#include "runtime/type.h"

namespace tgc {

namespace {

[[noreturn]] void fail(const Kernel& k, const std::string& what) {
  throw InternalError("invalid kernel: " + what + "\n" + k.str(), "Kernel::validate",
                      "this is a bug in tgc (lowering or fusion built a broken kernel); please report it");
}

// Fields a kind does not use keep their defaults, so == and hash() see meaning only.
std::optional<std::string> unused_field(const KernelValue& v) {
  const KernelValue d;
  using K = KernelValue::Kind;
  if (v.kind != K::Load && v.input != d.input) return "input";
  if (v.kind != K::Constant && (v.constant != 0 || v.int_constant != 0)) return "constant";
  if (v.kind != K::Op && v.op != d.op) return "op";
  if (v.kind != K::Reduce && v.reduce_op != d.reduce_op) return "reduce_op";
  if ((v.kind == K::Load || v.kind == K::Constant) && !v.args.empty()) return "args";
  return std::nullopt;
}

// Whether a Constant's two fields hold one value of its dtype.
bool constant_fits(const KernelValue& v) {
  return dispatch_dtype(v.dtype, [&]<typename T>() {
    if constexpr (is_float_type_v<T>) {
      if (v.int_constant != 0) return false;
      return std::isnan(v.constant) || static_cast<double>(static_cast<T>(v.constant)) == v.constant;
    } else {
      return static_cast<int64_t>(convert_value<T>(v.int_constant)) == v.int_constant &&
             v.constant == static_cast<double>(v.int_constant);
    }
  });
}

// The dtype a reduction of this kind yields (and accumulates its argument in).
bool reduce_dtype_ok(KernelReduceOp op, DType t) {
  switch (op) {
    case KernelReduceOp::Sum:
    case KernelReduceOp::Prod: return is_float(t) || t == DType::Int64;
    case KernelReduceOp::Max:
    case KernelReduceOp::Min: return true;
    case KernelReduceOp::All:
    case KernelReduceOp::Any: return t == DType::Bool;
    case KernelReduceOp::Mean: return is_float(t);
  }
  return false;
}

void check_inputs_and_axes(const Kernel& k, bool reduction) {
  if (k.ndim < 0) fail(k, fmt::format("loop rank {}", k.ndim));
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    const KernelInput& in = k.inputs[i];
    if (in.ndim < 0 || static_cast<int>(in.static_shape.size()) != in.ndim)
      fail(k, fmt::format("input i{} has rank {} but {} static dims", i, in.ndim, in.static_shape.size()));
    for (int64_t d : in.static_shape)
      if (d < 0 && d != kUnknownDim) fail(k, fmt::format("input i{} has static dim {}", i, d));
    if (in.in_output_space && !reduction)
      fail(k, fmt::format("input i{} is read in the output space of a kernel without reduction", i));
  }
  if (!reduction) {
    if (!k.reduce_axes.empty() || k.keepdims) fail(k, "reduce axes or keepdims set on a kernel without Reduce values");
    return;
  }
  for (size_t j = 0; j < k.reduce_axes.size(); ++j) {
    const int a = k.reduce_axes[j];
    if (a < 0 || a >= k.ndim) fail(k, fmt::format("reduce axis {} outside the loop rank {}", a, k.ndim));
    if (j > 0 && a <= k.reduce_axes[j - 1]) fail(k, "reduce axes not sorted and unique");
  }
}

void check_op(const Kernel& k, size_t i) {
  const KernelValue& v = k.values[i];
  const ScalarOpInfo& row = scalar_op_info(v.op);
  if (static_cast<int>(v.args.size()) != row.arity)
    fail(k, fmt::format("v{} = {} has {} arguments, the row's arity is {}", i, row.name, v.args.size(), row.arity));
  std::vector<DType> dtypes;
  for (int a : v.args) dtypes.push_back(k.values[a].dtype);
  // Operands already carry the row's operand dtypes, so floatX cannot matter; pass the
  // value's own float type to keep any mismatch message readable.
  const DType floatx = is_float(v.dtype) ? v.dtype : DType::Float32;
  const std::optional<DType> cast_to = v.op == ScalarOpKind::Cast ? std::optional(v.dtype) : std::nullopt;
  ScalarSignature sig;
  try {
    sig = scalar_signature(v.op, dtypes, floatx, cast_to);
  } catch (const Error& e) {
    fail(k, fmt::format("v{} = {}: {}", i, row.name, e.what_part()));
  }
  for (size_t a = 0; a < dtypes.size(); ++a)
    if (sig.operands[a] != dtypes[a])
      fail(k, fmt::format("v{} = {}: argument {} is {}, the row reads {} (a Cast value is missing)", i, row.name, a,
                          dtype_name(dtypes[a]), dtype_name(sig.operands[a])));
  if (sig.out != v.dtype)
    fail(k, fmt::format("v{} = {} yields {}, the value says {}", i, row.name, dtype_name(sig.out), dtype_name(v.dtype)));
}

}  // namespace

void Kernel::validate() const {
  const Kernel& k = *this;
  const bool reduction = is_reduction();
  check_inputs_and_axes(k, reduction);
  if (values.empty()) fail(k, "no values");
  if (outputs.empty()) fail(k, "no outputs");

  const std::vector<bool> epilogue = epilogue_mask();
  std::vector<bool> uniform(values.size(), false);  // computed from constants only
  std::vector<int> rank(values.size(), 0);
  std::vector<int> loads(inputs.size(), 0);
  std::vector<bool> used(values.size(), false);
  const int out_ndim = output_ndim();

  for (size_t i = 0; i < values.size(); ++i) {
    const KernelValue& v = values[i];
    for (int a : v.args) {
      if (a < 0 || static_cast<size_t>(a) >= i) fail(k, fmt::format("v{} reads v{}, not an earlier value", i, a));
      used[a] = true;
    }
    if (auto field = unused_field(v)) fail(k, fmt::format("v{} sets {}, which its kind does not use", i, *field));
    switch (v.kind) {
      case KernelValue::Kind::Load: {
        if (v.input < 0 || v.input >= static_cast<int>(inputs.size()))
          fail(k, fmt::format("v{} loads input {}, which does not exist", i, v.input));
        const KernelInput& in = inputs[v.input];
        if (v.dtype != in.dtype) fail(k, fmt::format("v{} loads i{} as {}, the input is {}", i, v.input,
                                                     dtype_name(v.dtype), dtype_name(in.dtype)));
        ++loads[v.input];
        rank[i] = in.ndim;
        const int space = in.in_output_space ? out_ndim : ndim;
        if (in.ndim > space)
          fail(k, fmt::format("input i{} has rank {}, more than its space's rank {}", v.input, in.ndim, space));
        break;
      }
      case KernelValue::Kind::Constant:
        if (!constant_fits(v)) fail(k, fmt::format("v{} is a constant that its dtype {} cannot hold as given", i,
                                                   dtype_name(v.dtype)));
        uniform[i] = true;
        break;
      case KernelValue::Kind::Op: {
        check_op(k, i);
        bool all_uniform = true;
        for (int a : v.args) {
          all_uniform = all_uniform && uniform[a];
          rank[i] = std::max(rank[i], rank[a]);
        }
        uniform[i] = all_uniform;
        if (epilogue[i])
          for (int a : v.args)
            if (!epilogue[a] && !uniform[a])
              fail(k, fmt::format("v{} is computed after the reduction but reads v{}, computed before it", i, a));
        break;
      }
      case KernelValue::Kind::Reduce: {
        if (v.args.size() != 1) fail(k, fmt::format("v{} = {} has {} arguments", i, kernel_reduce_op_name(v.reduce_op), v.args.size()));
        const int a = v.args[0];
        if (values[a].dtype != v.dtype)
          fail(k, fmt::format("v{} = {} accumulates {} but reads {}", i, kernel_reduce_op_name(v.reduce_op),
                              dtype_name(v.dtype), dtype_name(values[a].dtype)));
        if (!reduce_dtype_ok(v.reduce_op, v.dtype))
          fail(k, fmt::format("v{} = {} cannot yield {}", i, kernel_reduce_op_name(v.reduce_op), dtype_name(v.dtype)));
        if (epilogue[a]) fail(k, fmt::format("v{} reduces v{}, which is computed after the reduction", i, a));
        if (rank[a] != ndim)
          fail(k, fmt::format("v{} reduces v{} of rank {}, the loop rank is {}", i, a, rank[a], ndim));
        rank[i] = out_ndim;
        break;
      }
    }
    const int space = epilogue[i] ? out_ndim : ndim;
    if (rank[i] > space) fail(k, fmt::format("v{} has rank {}, more than its space's rank {}", i, rank[i], space));
  }
  for (size_t j = 0; j < inputs.size(); ++j)
    if (loads[j] != 1) fail(k, fmt::format("input i{} is loaded {} times (exactly once expected)", j, loads[j]));

  for (size_t j = 0; j < outputs.size(); ++j) {
    const KernelOutput& o = outputs[j];
    if (o.value < 0 || o.value >= static_cast<int>(values.size()))
      fail(k, fmt::format("out{} writes v{}, which does not exist", j, o.value));
    if (o.dtype != values[o.value].dtype)
      fail(k, fmt::format("out{} is {} but v{} is {}", j, dtype_name(o.dtype), o.value, dtype_name(values[o.value].dtype)));
    if (reduction && !epilogue[o.value])
      fail(k, fmt::format("out{} writes v{}, computed before the reduction", j, o.value));
    used[o.value] = true;
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (!used[i]) fail(k, fmt::format("v{} is never used", i));
}

}  // namespace tgc
