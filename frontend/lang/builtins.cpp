// The builtin table's machinery: assembling the families into one table, parsing each
// row's parameter list, binding a call's arguments and the typed accessors.
#include "frontend/lang/builtins.h"

#include <fmt/format.h>

#include <climits>

#include "frontend/lang/convert.h"
#include "frontend/lang/parser.h"
#include "runtime/suggest.h"

namespace tgc::lang {

namespace {

// A default written in a row: a literal (None, true, -1, 0.5, "raise").
Value literal_value(const std::string& text, const std::string& where) {
  SourceText src("<builtin " + where + ">", text);
  ExprPtr e = parse_expression(src);
  double sign = 1;
  if (e->kind == Expr::Kind::Unary && e->op == Tok::Minus) {
    sign = -1;
    e = std::move(e->items[0]);
  }
  switch (e->kind) {
    case Expr::Kind::Int: return Value(static_cast<int64_t>(sign) * e->int_value);
    case Expr::Kind::Float: return Value(sign * e->float_value);
    case Expr::Kind::String: return Value(e->text);
    case Expr::Kind::Bool: return Value(e->bool_value);
    case Expr::Kind::None: return Value();
    default: break;
  }
  TGC_INTERNAL_CHECK(false, "builtin " + where + ": default '" + text + "' is not a literal");
}

std::vector<Param> parse_params(const std::string& text, const std::string& fn) {
  std::vector<Param> params;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    start = comma + 1;
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) continue;
    Param p;
    if (item[0] == '*') {
      p.variadic = true;
      p.required = false;
      p.name = item.substr(1);
    } else if (size_t eq = item.find('='); eq != std::string::npos) {
      p.name = item.substr(0, eq);
      p.required = false;
      p.default_value = literal_value(item.substr(eq + 1), fn);
    } else {
      p.name = item;
    }
    params.push_back(std::move(p));
  }
  return params;
}

std::vector<Builtin> build_table() {
  std::vector<std::pair<Family, std::vector<BuiltinRow>>> families = {
      {Family::Inputs, input_builtins()},
      {Family::Values, value_builtins()},
      {Family::Lists, list_builtins()},
      {Family::Devices, device_builtins()},
      {Family::Math, math_builtins()},
  };
  for (Family f : {Family::Reductions, Family::LinearAlgebra, Family::NeuralNet, Family::Shape, Family::Indexing,
                   Family::Join, Family::Creation})
    families.emplace_back(f, tensor_builtins(f));
  families.emplace_back(Family::Convolution, conv_builtins());
  families.emplace_back(Family::Random, random_builtins());
  families.emplace_back(Family::Gradients, graph_builtins(Family::Gradients));
  families.emplace_back(Family::ControlFlow, control_builtins());
  families.emplace_back(Family::ControlFlow, loop_builtins());
  families.emplace_back(Family::Functions, graph_builtins(Family::Functions));
  families.emplace_back(Family::Functions, save_builtins());
  families.emplace_back(Family::Distributed, collective_builtins());
  std::vector<Builtin> table;
  for (auto& [family, rows] : families)
    for (const BuiltinRow& r : rows)
      table.push_back(Builtin{r.name, family, r.params, r.doc, r.call, r.receiver,
                              r.on_concrete == OnConcrete::Family ? family_on_concrete(family) : r.on_concrete,
                              parse_params(r.params, r.name)});
  return table;
}

}  // namespace

std::string family_title(Family f) {
  switch (f) {
    case Family::Inputs: return "Symbolic inputs and shared variables";
    case Family::Values: return "Values: generators, arrays and files";
    case Family::Lists: return "Lists: ranges for comprehensions";
    case Family::Devices: return "Values on devices";
    case Family::Math: return "Elementwise math";
    case Family::Reductions: return "Reductions";
    case Family::LinearAlgebra: return "Linear algebra";
    case Family::NeuralNet: return "Neural-network functions";
    case Family::Shape: return "Shape manipulation";
    case Family::Indexing: return "Indexing";
    case Family::Join: return "Joining and splitting";
    case Family::Creation: return "Symbolic creation";
    case Family::Convolution: return "Convolutional layers";
    case Family::Random: return "Random streams: symbolic draws";
    case Family::Gradients: return "Gradients";
    case Family::ControlFlow: return "Control flow: branches and loops";
    case Family::Functions: return "Functions and devices";
    case Family::Distributed: return "Several processes: collectives and ranks";
  }
  return "";
}

OnConcrete family_on_concrete(Family f) {
  switch (f) {
    // Tensor expressions: on concrete values they are computed now.
    case Family::Math: case Family::Reductions: case Family::LinearAlgebra: case Family::NeuralNet:
    case Family::Shape: case Family::Indexing: case Family::Join: case Family::Creation: case Family::Convolution:
      return OnConcrete::Compute;
    // Inputs and shared variables, values made or read as data, graph machinery (gradients of a
    // symbolic cost, branches and loops of lambdas, functions, files) and collectives, whose
    // meaning is the graph's: called as they are.
    case Family::Inputs: case Family::Values: case Family::Lists: case Family::Devices: case Family::Random: case Family::Gradients:
    case Family::ControlFlow: case Family::Functions: case Family::Distributed:
      return OnConcrete::Graph;
  }
  return OnConcrete::Graph;
}

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> table = build_table();
  return table;
}

const Builtin* find_builtin(std::string_view name) {
  for (const Builtin& b : builtins())
    if (b.name == name) return &b;
  return nullptr;
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (const Builtin& b : builtins()) names.push_back(b.name);
  return names;
}

Args::Args(Context& c, const Builtin& f, Pos call_pos, std::vector<ArgValue> positional,
           std::vector<std::pair<std::string, ArgValue>> keywords)
    : ctx(c), fn(f), pos(call_pos) {
  const std::vector<Param>& params = fn.params;
  bound_.resize(params.size());
  given_.assign(params.size(), false);
  const std::string sig = "the signature is " + fn.signature();
  size_t p = 0;
  for (ArgValue& a : positional) {
    if (p < params.size() && params[p].variadic) {  // takes every remaining positional argument
      rest_.push_back(std::move(a));
      continue;
    }
    if (p >= params.size())
      throw ctx.src.error(a.pos,
                          fmt::format("{}() takes {} positional argument{} but {} were given", fn.name, params.size(),
                                      params.size() == 1 ? "" : "s", positional.size()),
                          sig);
    bound_[p] = std::move(a);
    given_[p] = true;
    ++p;
  }
  for (auto& [name, a] : keywords) {
    size_t k = 0;
    while (k < params.size() && (params[k].name != name || params[k].variadic)) ++k;
    if (k == params.size()) {
      std::vector<std::string> names;
      for (const Param& q : params)
        if (!q.variadic) names.push_back(q.name);
      std::string guess = closest_match(name, names);
      throw ctx.src.error(a.pos, fmt::format("{}() has no parameter '{}'", fn.name, name),
                          (guess.empty() ? "" : "did you mean '" + guess + "'? ") + sig);
    }
    if (given_[k])
      throw ctx.src.error(a.pos, fmt::format("{}() got two values for '{}'", fn.name, name),
                          "give it either by position or by keyword; " + sig);
    bound_[k] = std::move(a);
    given_[k] = true;
  }
  for (size_t k = 0; k < params.size(); ++k) {
    if (given_[k] || params[k].variadic) continue;
    if (params[k].required)
      throw ctx.src.error(pos, fmt::format("{}() is missing the argument '{}'", fn.name, params[k].name), sig);
    bound_[k] = ArgValue{params[k].default_value, pos, nullptr};
  }
}

const ArgValue& Args::arg(std::string_view name) const {
  for (size_t k = 0; k < fn.params.size(); ++k)
    if (fn.params[k].name == name && !fn.params[k].variadic) return bound_[k];
  TGC_INTERNAL_CHECK(false, "builtin " + fn.name + " has no parameter " + std::string(name));
}

bool Args::given(std::string_view name) const {
  for (size_t k = 0; k < fn.params.size(); ++k)
    if (fn.params[k].name == name) return given_[k];
  return false;
}

std::string Args::what(std::string_view name) const { return fmt::format("argument '{}' of {}", name, fn.name); }

void Args::fail(std::string_view name, const std::string& message, const std::string& hint) const {
  fail_at(arg(name).pos, message, hint);
}

void Args::fail_at(Pos p, const std::string& message, const std::string& hint) const {
  throw ctx.src.error(p, message, hint);
}

Var Args::var(std::string_view name) const { return to_var(value(name), ctx, arg(name).pos, what(name)); }
Operand Args::operand(std::string_view name) const { return to_operand(value(name), ctx, arg(name).pos, what(name)); }
Tensor Args::tensor(std::string_view name) const { return to_tensor(value(name), ctx, arg(name).pos, what(name)); }

Value Args::scalar_value(std::string_view name) const {
  const Value& v = value(name);
  if (!v.is_tensor() || v.as_tensor().ndim() != 0) return v;
  const Tensor t = v.as_tensor().on_host() ? v.as_tensor() : v.as_tensor().to(host_device());
  if (t.dtype() == DType::Bool) return Value(t.at({}) != 0);
  if (is_integer(t.dtype())) return Value(t.astype(DType::Int64).data<int64_t>()[0]);
  return Value(t.at({}));
}

int64_t Args::integer(std::string_view name) const {
  const Value v = scalar_value(name);
  if (!v.is_int()) fail(name, fmt::format("{} must be an integer, got {}", what(name), v.describe()), "write a whole number such as 0 or -1");
  return v.as_int();
}

std::optional<int64_t> Args::opt_integer(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return integer(name);
}

int Args::axis_int(std::string_view name) const {
  const int64_t v = integer(name);
  if (v < INT_MIN || v > INT_MAX) fail(name, fmt::format("{} is out of range ({})", what(name), v), "axes are small integers such as 0 or -1");
  return static_cast<int>(v);
}

std::optional<int> Args::opt_axis(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return axis_int(name);
}

double Args::number(std::string_view name) const {
  const Value v = scalar_value(name);
  if (!v.is_number()) fail(name, fmt::format("{} must be a number, got {}", what(name), v.describe()), "write a number such as 0.5");
  return v.as_double();
}

bool Args::boolean(std::string_view name) const {
  const Value& v = value(name);
  if (!v.is_bool()) fail(name, fmt::format("{} must be true or false, got {}", what(name), v.describe()), "write true or false");
  return v.as_bool();
}

std::string Args::string(std::string_view name) const {
  const Value& v = value(name);
  if (!v.is_string()) fail(name, fmt::format("{} must be a string, got {}", what(name), v.describe()), "write a string in quotes");
  return v.as_string();
}

std::optional<std::string> Args::opt_string(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return string(name);
}

std::optional<DType> Args::dtype(std::string_view name) const {
  if (is_none(name)) return std::nullopt;
  return to_dtype(value(name), ctx, arg(name).pos, what(name));
}

DType Args::required_dtype(std::string_view name) const {
  return to_dtype(value(name), ctx, arg(name).pos, what(name));
}

std::vector<int64_t> ints_of(const Value& v, Context& ctx, Pos pos, std::string_view what) {
  if (v.is_int()) return {v.as_int()};
  if (v.is_sequence()) {
    std::vector<int64_t> out;
    for (const Value& item : v.items()) {
      if (!item.is_int())
        throw ctx.src.error(pos, fmt::format("{} must hold integers, got {}", what, item.describe()),
                            "write integers, e.g. (2, 3)");
      out.push_back(item.as_int());
    }
    return out;
  }
  throw ctx.src.error(pos, fmt::format("{} must be an integer or a list of integers, got {}", what, v.describe()),
                      "write e.g. 0 or (0, 1)");
}

Axes Args::axes(std::string_view name) const {
  if (is_none(name)) return Axes{};
  std::vector<int> out;
  for (int64_t a : ints_of(value(name), ctx, arg(name).pos, what(name))) {
    if (a < INT_MIN || a > INT_MAX) fail(name, fmt::format("{}: axis {} is out of range", what(name), a), "axes are small integers");
    out.push_back(static_cast<int>(a));
  }
  if (value(name).is_int()) return Axes(out[0]);
  return Axes(out);
}

std::vector<int64_t> Args::int_list(std::string_view name) const {
  return ints_of(value(name), ctx, arg(name).pos, what(name));
}

std::vector<Var> Args::vars(std::string_view name) const {
  const Value& v = value(name);
  if (!v.is_sequence())
    fail(name, fmt::format("{} must be a list of tensors, got {}", what(name), v.describe()), "write a list: [a, b]");
  std::vector<Var> out;
  for (const Value& item : v.items()) out.push_back(to_var(item, ctx, arg(name).pos, what(name)));
  return out;
}

std::vector<int64_t> Args::rest_ints() const {
  std::string what_rest;
  for (const Param& p : fn.params)
    if (p.variadic) what_rest = fmt::format("argument '{}' of {}", p.name, fn.name);
  if (rest_.size() == 1 && rest_[0].value.is_sequence()) return ints_of(rest_[0].value, ctx, rest_[0].pos, what_rest);
  std::vector<int64_t> out;
  for (const ArgValue& a : rest_) {
    if (!a.value.is_int())
      fail_at(a.pos, fmt::format("{} must be integers, got {}", what_rest, a.value.describe()),
              "write the sizes as integers: f(3, 4) or f((3, 4))");
    out.push_back(a.value.as_int());
  }
  return out;
}

}  // namespace tgc::lang
