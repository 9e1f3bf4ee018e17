// Building a function's arguments from --input specs; see run_inputs.h.
#include "frontend/cli/run_inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "frontend/cli/program.h"
#include "ops/core/graph.h"
#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/suggest.h"
#include "runtime/text.h"

namespace tgc::cli {

namespace {

struct InputSpec {
  std::string name;
  std::string value;
};

InputSpec parse_spec(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(fmt::format("malformed --input '{}'", text), "",
                     "write --input NAME=FILE.npy or --input NAME=EXPR, e.g. "
                     "--input x=data.npy or --input x='randn(400, 784, seed=1)'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

bool is_npy_path(const std::string& value) {
  return ascii_lower(value).ends_with(".npy");
}

// Whether every value of dtype `from` is exactly a value of `to` (what an input accepts
// from a file without asking): bool into anything, a type into a wider one of its kind, and
// integers into floats only where the float's significand holds every value (int8, int16 and
// uint8 into float32; also int32 into float64): int32's 16777217 is not a float32.
bool converts_without_loss(DType from, DType to) {
  if (from == to || from == DType::Bool) return true;
  if (is_float(from)) return is_float(to) && dtype_size(to) >= dtype_size(from);
  if (is_float(to)) {
    const int significand = to == DType::Float32 ? 24 : 53;
    const int value_bits = 8 * static_cast<int>(dtype_size(from)) - (is_signed_integer(from) ? 1 : 0);
    return value_bits <= significand;
  }
  return promote(from, to) == to && dtype_size(to) >= dtype_size(from);
}

Tensor value_of(const lang::TgFunction& fn, const std::string& name, const std::string& value,
                const Type& want) {
  const std::string sig = signature(fn);
  Tensor t;
  if (is_npy_path(value)) {
    t = read_npy(value);
    if (!converts_without_loss(t.dtype(), want.dtype))
      throw InputError(fmt::format("input '{}' of {} is a {}, but {} holds {}", name, fn.name,
                                   want.str(), value, dtype_name(t.dtype())),
                       "", fmt::format("save the array with .astype('{}'); the function is {}",
                                       dtype_name(want.dtype), sig));
  } else {
    // A float literal is read in the input's own float dtype: 0.1 for a float64 input is exact.
    t = lang::eval_value(value, "--input " + name, is_float(want.dtype) ? std::optional<DType>(want.dtype) : std::nullopt);
  }
  if (t.ndim() != want.ndim())
    throw InputError(fmt::format("input '{}' of {} is a {}, but was given a {} of shape {}", name,
                                 fn.name, want.str(), rank_name(t.ndim()), shape_str(t.shape())),
                     "", fmt::format("give a value with {} dimension{}; the function is {}",
                                     want.ndim(), want.ndim() == 1 ? "" : "s", sig));
  if (t.dtype() != want.dtype) t = t.astype(want.dtype);
  if (!want.accepts(t.dtype(), t.shape()))
    throw InputError(fmt::format("input '{}' of {} has static shape {}, but was given shape {}",
                                 name, fn.name, static_shape_str(want.shape), shape_str(t.shape())),
                     "", fmt::format("give a value whose known dimensions match; the function is {}", sig));
  return t;
}

}  // namespace

std::vector<Tensor> build_arguments(const lang::TgFunction& fn, const std::vector<std::string>& specs) {
  const std::vector<VarPtr>& inputs = fn.function.raw_graph().inputs();
  TGC_INTERNAL_CHECK(inputs.size() == fn.inputs.size(),
                     "the .tg function's input names do not match its graph's inputs");
  std::map<std::string, std::string> given;
  for (const std::string& text : specs) {
    InputSpec spec = parse_spec(text);
    bool known = false;
    for (const std::string& name : fn.inputs) known |= name == spec.name;
    if (!known) {
      std::string near = closest_match(spec.name, fn.inputs);
      throw InputError(
          fmt::format("{} has no input '{}'", fn.name, spec.name), "",
          fmt::format("{}the function is {}", near.empty() ? "" : fmt::format("did you mean '{}'? ", near),
                      signature(fn)));
    }
    if (!given.emplace(spec.name, spec.value).second)
      throw InputError(fmt::format("input '{}' is given twice", spec.name), "",
                       "give each input once with --input NAME=VALUE");
  }
  std::vector<std::string> missing;
  for (const std::string& name : fn.inputs)
    if (!given.contains(name)) missing.push_back("'" + name + "'");
  if (!missing.empty())
    throw InputError(fmt::format("{} {} of {} {} not given", missing.size() == 1 ? "input" : "inputs",
                                 fmt::join(missing, ", "), fn.name, missing.size() == 1 ? "is" : "are"),
                     "", fmt::format("give each with --input NAME=FILE.npy or --input NAME=EXPR (e.g. "
                                     "--input {}=data.npy); the function is {}",
                                     fn.inputs.front(), signature(fn)));
  std::vector<Tensor> args;
  for (size_t i = 0; i < fn.inputs.size(); ++i)
    args.push_back(value_of(fn, fn.inputs[i], given.at(fn.inputs[i]), inputs[i]->type()));
  return args;
}

}  // namespace tgc::cli
