// Conversions of .tg values for the C++ API.
#include "frontend/lang/convert.h"

#include <fmt/format.h>

#include <unordered_set>

#include <tgc/join.h>

#include "frontend/api/graphs_only.h"
#include "ops/core/node.h"
#include "runtime/rank_limit.h"

namespace tgc::lang {

namespace {

[[noreturn]] void mismatch(const Value& v, Context& ctx, Pos pos, std::string_view what, std::string_view expected,
                           std::string hint) {
  throw ctx.src.error(pos, fmt::format("{} must be {}, got {}", what, expected, v.describe()), std::move(hint));
}

// The shape of a nested list of numbers, read along the first items.
Shape first_items_shape(const Value& v, Context& ctx, Pos pos) {
  Shape shape;
  const Value* cur = &v;
  while (cur->is_sequence()) {
    if (shape.size() == static_cast<size_t>(kMaxRank))
      throw ctx.src.error(pos, fmt::format("array nested more than {} levels deep", kMaxRank),
                          fmt::format("an array has at most {} dimensions (NumPy's limit)", kMaxRank));
    shape.push_back(static_cast<int64_t>(cur->items().size()));
    if (cur->items().empty()) break;
    cur = &cur->items()[0];
  }
  return shape;
}

// Checks that every item agrees with `shape` (SourceError when ragged or not numbers).
void check_nested(const Value& v, const Shape& shape, size_t depth, bool& has_float, bool& all_bool, Context& ctx,
                  Pos pos) {
  if (v.is_number()) {
    if (depth != shape.size())
      throw ctx.src.error(pos, "the nested lists are ragged (a number where a list was expected)",
                          "every row of an array needs the same length");
    has_float |= v.is_float();
    all_bool &= v.is_bool();
    return;
  }
  if (!v.is_sequence())
    mismatch(v, ctx, pos, "an array element", "a number or a list of numbers",
             "write nested lists of numbers: [[1, 2], [3, 4]]");
  if (depth >= shape.size() || shape[depth] != static_cast<int64_t>(v.items().size()))
    throw ctx.src.error(pos, "the nested lists are ragged (rows of different lengths)",
                        "every row of an array needs the same length");
  for (const Value& item : v.items()) check_nested(item, shape, depth + 1, has_float, all_bool, ctx, pos);
}

void flatten_numbers(const Value& v, std::vector<double>& out, std::vector<int64_t>& ints) {
  if (v.is_sequence()) {
    for (const Value& item : v.items()) flatten_numbers(item, out, ints);
    return;
  }
  out.push_back(v.as_double());
  ints.push_back(v.is_float() ? 0 : v.as_int());
}

// The first input or shared variable `v` depends on, or null.
const Variable* first_free_variable(const VarPtr& v) {
  std::vector<const Variable*> stack{v.get()};
  std::unordered_set<const Variable*> seen;
  while (!stack.empty()) {
    const Variable* x = stack.back();
    stack.pop_back();
    if (!seen.insert(x).second) continue;
    if (x->kind() == Variable::Kind::Input || x->kind() == Variable::Kind::Shared) return x;
    if (x->kind() == Variable::Kind::Result)
      for (const VarPtr& in : x->owner()->inputs()) stack.push_back(in.get());
  }
  return nullptr;
}

// Whether a list holds a tensor (symbolic or a value) at any depth, rather than numbers only.
bool holds_tensor(const Value& v) {
  if (v.is_var() || v.is_tensor()) return true;
  if (!v.is_sequence()) return false;
  for (const Value& item : v.items())
    if (holds_tensor(item)) return true;
  return false;
}

}  // namespace

Var to_var(const Value& v, Context& ctx, Pos pos, std::string_view what) {
  if (v.is_var()) return v.as_var();
  // A list holding tensors is Theano's as_tensor_variable of a list: its items stacked along
  // a new first axis, so sum([sum(w ** 2) for w in params]) sums the parameters' squares.
  if (v.is_sequence() && holds_tensor(v)) {
    std::vector<Var> items;
    for (const Value& item : v.items()) items.push_back(to_var(item, ctx, pos, what));
    return stack(items, 0);
  }
  // A value in a graph is a constant of the graph, whose values are host tensors: a device
  // value is read back here (the function's own device gets the constant's copy when it runs).
  if (v.is_tensor()) return constant(v.as_tensor().to_host().eval());
  if (v.is_number() || v.is_sequence()) return constant(array_from(v, std::nullopt, ctx, pos));
  mismatch(v, ctx, pos, what, "a tensor",
           v.is_string() ? "strings name dtypes and files; a tensor is a variable, a value or a number"
                         : "pass a symbolic variable, a value or a number");
}

Operand to_operand(const Value& v, Context& ctx, Pos pos, std::string_view what) {
  if (v.is_number()) return Operand(v.as_double());
  return Operand(to_var(v, ctx, pos, what));
}

Tensor to_tensor(const Value& v, Context& ctx, Pos pos, std::string_view what) {
  if (v.is_tensor()) return v.as_tensor();
  if (v.is_number() || v.is_sequence()) return array_from(v, std::nullopt, ctx, pos);
  if (!v.is_var())
    mismatch(v, ctx, pos, what, "a value", "pass a generator call such as rand(3, 4, seed=1), load(\"w.npy\") or a number");
  const Var& x = v.as_var();
  if (x.ptr()->kind() == Variable::Kind::Constant) return x.ptr()->constant_value();
  if (const Variable* free = first_free_variable(x.ptr()))
    throw ctx.src.error(pos,
                        fmt::format("{} must be a value, but it depends on the {} variable '{}'", what,
                                    free->kind() == Variable::Kind::Shared ? "shared" : "input", free->label()),
                        "a value is known now: build it from generators, load(), get_value() and numbers");
  // An expression of constants: evaluate it now, with the file's compile options.
  FunctionOptions opts;
  opts.config = ctx.options.config;
  opts.name = "value at " + ctx.src.file() + ":" + std::to_string(pos.line);
  GraphsOnlyScope::Suspend computed_now;  // a value needed now is computed, also under tgc show
  Function f = function({}, {x}, {}, opts);
  return f()[0];
}

Tensor array_from(const Value& v, std::optional<DType> dtype, Context& ctx, Pos pos) {
  const Shape shape = first_items_shape(v, ctx, pos);
  bool has_float = false, all_bool = true;
  check_nested(v, shape, 0, has_float, all_bool, ctx, pos);
  check_shape(shape, ctx, pos, "array");
  std::vector<double> values;
  std::vector<int64_t> ints;
  flatten_numbers(v, values, ints);
  const DType t = dtype ? *dtype : has_float ? ctx.floatx : all_bool && !values.empty() ? DType::Bool : DType::Int64;
  if (t == DType::Int64 && !has_float) return Tensor::from_vector(ints, shape);
  return Tensor::from_vector(values, shape).astype(t);
}

void check_shape(const Shape& shape, Context& ctx, Pos pos, std::string_view what) {
  if (shape.size() > static_cast<size_t>(kMaxRank))
    throw ctx.src.error(pos, fmt::format("{}: {} dimensions, more than the limit of {}", what, shape.size(), kMaxRank),
                        fmt::format("a tensor has at most {} dimensions (NumPy's limit)", kMaxRank));
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      throw ctx.src.error(pos, fmt::format("{}: negative dimension {} in shape {}", what, d, shape_str(shape)),
                          "dimensions are sizes >= 0");
    if (__builtin_mul_overflow(n, d, &n)) n = INT64_MAX;
  }
  if (n > ctx.limits.max_elements)
    throw ctx.src.error(pos,
                        fmt::format("{}: shape {} has {} elements, more than the limit of {}", what, shape_str(shape),
                                    n == INT64_MAX ? std::string("too many") : std::to_string(n), ctx.limits.max_elements),
                        "use a smaller shape");
}

DType to_dtype(const Value& v, Context& ctx, Pos pos, std::string_view what) {
  if (!v.is_string())
    mismatch(v, ctx, pos, what, "a dtype name", "write a dtype as a string: \"float32\", \"int64\", \"bool\" or floatX");
  if (v.as_string() == "floatX") return ctx.floatx;
  try {
    return parse_dtype(v.as_string());
  } catch (const Error& e) {
    throw ctx.src.error(pos, e.what_part(), e.hint().empty() ? "write a dtype such as \"float32\"" : e.hint());
  }
}

}  // namespace tgc::lang
