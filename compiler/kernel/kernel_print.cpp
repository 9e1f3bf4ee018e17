// Kernel IR printing: the value listing (str) and the inlined expressions that name
// Composite nodes (expression_str).
#include <fmt/format.h>

#include "compiler/kernel/kernel_ir.h"
#include "runtime/type.h"

namespace tgc {

namespace {

// Compact and unambiguous about float-ness: 2 is an integer, 2.0 a float, True a bool.
// float32 constants print their shortest float form ("0.1", not "0.10000000149011612").
std::string constant_str(const KernelValue& v) {
  if (v.dtype == DType::Bool) return v.int_constant ? "True" : "False";
  if (!is_float(v.dtype)) return fmt::format("{}", v.int_constant);
  std::string s = v.dtype == DType::Float32 ? fmt::format("{}", static_cast<float>(v.constant))
                                            : fmt::format("{}", v.constant);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";  // inf, nan, 1e+20 stay
  return s;
}

std::string dims_str(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t d = 0; d < dims.size(); ++d)
    s += (d ? "," : "") + (dims[d] == kUnknownDim ? std::string("?") : std::to_string(dims[d]));
  return s + "]";
}

std::string axes_str(const std::vector<int>& axes, const char* sep) {
  std::string s = "[";
  for (size_t i = 0; i < axes.size(); ++i) s += (i ? sep : "") + std::to_string(axes[i]);
  return s + "]";
}

std::string op_head(const KernelValue& v) {
  if (v.op == ScalarOpKind::Cast) return fmt::format("Cast{{{}}}", dtype_name(v.dtype));
  return std::string(scalar_op_name(v.op));
}

// An inlined expression longer than this is cut, so that a DAG whose values are read many
// times cannot make a name of exponential length.
constexpr size_t kMaxExpressionChars = 1000;

}  // namespace

std::string Kernel::str() const {
  std::string s = "kernel(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const KernelInput& in = inputs[i];
    s += fmt::format("{}i{}: {}{}{}", i ? ", " : "", i, dtype_name(in.dtype), dims_str(in.static_shape),
                     in.in_output_space ? " (output space)" : "");
  }
  s += fmt::format(") loop rank {}", ndim);
  if (is_reduction()) s += fmt::format(", reduce axes {}{}", axes_str(reduce_axes, ", "), keepdims ? ", keepdims" : "");
  s += "\n  ";
  for (size_t i = 0; i < values.size(); ++i) {
    const KernelValue& v = values[i];
    s += fmt::format("{}v{} = ", i ? "; " : "", i);
    std::string args;
    for (size_t a = 0; a < v.args.size(); ++a) args += fmt::format("{}v{}", a ? ", " : "", v.args[a]);
    switch (v.kind) {
      case KernelValue::Kind::Load: s += fmt::format("load i{}", v.input); break;
      case KernelValue::Kind::Constant: s += fmt::format("{}({})", dtype_name(v.dtype), constant_str(v)); break;
      case KernelValue::Kind::Op: s += fmt::format("{}({})", op_head(v), args); break;
      case KernelValue::Kind::Reduce:
        s += fmt::format("{}{}({})", kernel_reduce_op_name(v.reduce_op), v.identity_when_empty ? "[empty=identity]" : "",
                         args);
        break;
    }
  }
  s += "\n  ";
  for (size_t j = 0; j < outputs.size(); ++j) s += fmt::format("{}out{} = v{}", j ? "; " : "", j, outputs[j].value);
  return s;
}

std::string Kernel::expression_str(const std::vector<std::string>* input_names, const char* arg_sep) const {
  std::vector<std::string> expr(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const KernelValue& v = values[i];
    std::string args;
    for (size_t a = 0; a < v.args.size(); ++a) args += (a ? arg_sep : "") + expr.at(v.args[a]);
    switch (v.kind) {
      case KernelValue::Kind::Load:
        expr[i] = input_names && v.input < static_cast<int>(input_names->size()) ? (*input_names)[v.input]
                                                                                : fmt::format("i{}", v.input);
        break;
      case KernelValue::Kind::Constant: expr[i] = constant_str(v); break;
      case KernelValue::Kind::Op: expr[i] = fmt::format("{}({})", op_head(v), args); break;
      case KernelValue::Kind::Reduce:
        expr[i] = fmt::format("{}{{axis={}{}{}}}({})", kernel_reduce_op_name(v.reduce_op), axes_str(reduce_axes, ","),
                              keepdims ? ",keepdims=True" : "", v.identity_when_empty ? ",empty=identity" : "", args);
        break;
    }
    if (expr[i].size() > kMaxExpressionChars) expr[i] = expr[i].substr(0, kMaxExpressionChars) + "...";
  }
  std::string s;
  for (size_t j = 0; j < outputs.size(); ++j) s += (j ? ", " : "") + expr.at(outputs[j].value);
  return s;
}

}  // namespace tgc
