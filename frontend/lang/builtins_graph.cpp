// Builtin rows: gradients (tgc/grad.h) and function() with its updates, plus the device
// markers gpu_from_host / device_result, which have no effect on the cpu device.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "frontend/lang/builtins.h"
#include "frontend/lang/convert.h"
#include "ops/core/node.h"

namespace tgc::lang {

namespace {

// The positions of the items of a list argument written literally ([a, b]), else the
// argument's own position for each.
Pos item_pos(const ArgValue& arg, size_t i) {
  if (arg.expr && (arg.expr->kind == Expr::Kind::List || arg.expr->kind == Expr::Kind::Tuple) &&
      i < arg.expr->items.size())
    return arg.expr->items[i]->start;
  return arg.pos;
}

std::string item_text(Args& a, const ArgValue& arg, size_t i, const Var& fallback) {
  const Expr* e = nullptr;
  if (arg.expr && (arg.expr->kind == Expr::Kind::List || arg.expr->kind == Expr::Kind::Tuple)) {
    if (i < arg.expr->items.size()) e = arg.expr->items[i].get();
  } else if (arg.expr && !arg.value.is_sequence()) {
    e = arg.expr;
  }
  if (e) return std::string(a.ctx.src.text().substr(e->begin, e->end - e->begin));
  return fallback.ptr()->label();
}

// A tensor or a list of tensors; `single` says which it was.
std::vector<Var> one_or_many(Args& a, std::string_view name, bool& single) {
  single = !a.value(name).is_sequence();
  if (single) return {a.var(name)};
  return a.vars(name);
}

// The number of nodes the outputs and update values depend on, counting up to `limit`.
int64_t count_nodes(const std::vector<Var>& roots, int64_t limit) {
  std::vector<const Variable*> stack;
  for (const Var& r : roots) stack.push_back(r.ptr().get());
  std::unordered_set<const Node*> seen;
  while (!stack.empty() && static_cast<int64_t>(seen.size()) <= limit) {
    const Variable* v = stack.back();
    stack.pop_back();
    if (v->kind() != Variable::Kind::Result || !seen.insert(v->owner()).second) continue;
    for (const VarPtr& in : v->owner()->inputs()) stack.push_back(in.get());
  }
  return static_cast<int64_t>(seen.size());
}

// A graph to differentiate, within the node limit (the gradient's graph is a few times
// larger than the cost's, so nested grad() calls grow geometrically).
Var differentiable(Args& a, std::string_view name) {
  Var v = a.var(name);
  const int64_t limit = a.ctx.limits.max_function_nodes;
  if (count_nodes({v}, limit) > limit)
    a.fail(name, fmt::format("{}(): the graph of '{}' has more than {} nodes", a.fn.name, name, limit),
           "the gradient would be too large; nested grad() calls grow graphs quickly");
  return v;
}

Value grad_(Args& a) {
  GradOptions opts;
  const std::string mode = a.string("disconnected_inputs");
  if (mode == "raise") opts.disconnected_inputs = DisconnectedInputs::Raise;
  else if (mode == "warn") opts.disconnected_inputs = DisconnectedInputs::Warn;
  else if (mode == "ignore") opts.disconnected_inputs = DisconnectedInputs::Ignore;
  else a.fail("disconnected_inputs", "disconnected_inputs must be \"raise\", \"warn\" or \"ignore\", got \"" + mode + "\"",
              "as in Theano's grad");
  if (!a.is_none("consider_constant")) opts.consider_constant = to_ptrs(a.vars("consider_constant"));
  bool single = false;
  std::vector<Var> wrt = one_or_many(a, "wrt", single);
  std::vector<Var> g = grad(differentiable(a, "cost"), wrt, opts);
  return single ? Value(g[0]) : Value::vars(g);
}

Value lop_(Args& a) {
  bool single = false;
  std::vector<Var> wrt = one_or_many(a, "wrt", single);
  std::vector<Var> g = Lop(differentiable(a, "f"), wrt, a.var("eval_points"));
  return single ? Value(g[0]) : Value::vars(g);
}

// jacobian and hessian build one gradient per element: a limit keeps a typo in a length from
// building millions of graphs.
constexpr int64_t kMaxJacobianLength = 1024;

Var small_vector(Args& a, std::string_view name) {
  Var v = a.var(name);
  if (v.ndim() == 1 && v.type().shape[0] > kMaxJacobianLength)
    a.fail(name, fmt::format("{}() builds one gradient per element: {} elements are more than {}", a.fn.name,
                             v.type().shape[0], kMaxJacobianLength),
           "jacobian and hessian are meant for small vectors");
  return v;
}

// split=[x, (y, 1)]: the inputs each rank takes its part of, with their axis (0 by default).
std::vector<std::pair<Var, int>> split_inputs(Args& a, const std::vector<Var>& inputs) {
  const ArgValue& arg = a.arg("split");
  std::vector<std::pair<Var, int>> out;
  if (arg.value.is_none()) return out;
  const std::string hint =
      "write split=[x, y] (axis 0) or split=[(x, 1)]: inputs of the function, or shared variables holding each rank's part";
  if (!arg.value.is_sequence()) a.fail("split", "argument 'split' of function must be a list, got " + arg.value.describe(), hint);
  for (size_t i = 0; i < arg.value.items().size(); ++i) {
    const Value& item = arg.value.items()[i];
    const Value& var = item.is_sequence() && item.items().size() == 2 ? item.items()[0] : item;
    const bool has_axis = &var != &item;
    const bool input = var.is_var() && std::any_of(inputs.begin(), inputs.end(),
                                                   [&](const Var& in) { return in.ptr() == var.as_var().ptr(); });
    if (!input && !var.is_shared())
      a.fail_at(item_pos(arg, i), "split names " + var.describe() + ", which is neither an input of the function nor a shared variable", hint);
    if (has_axis && !item.items()[1].is_int())
      a.fail_at(item_pos(arg, i), "a split axis must be an int, got " + item.items()[1].describe(), hint);
    out.emplace_back(var.as_var(), has_axis ? static_cast<int>(item.items()[1].as_int()) : 0);
  }
  return out;
}

// devices=["cuda:0", "cuda:1"] (or "cuda:0,cuda:1"): one rank per device of this process.
std::vector<std::string> rank_devices(Args& a) {
  const ArgValue& arg = a.arg("devices");
  std::vector<std::string> out;
  if (arg.value.is_none()) return out;
  const std::string hint = "write devices=[\"cuda:0\", \"cuda:1\"]: one rank runs on each, over the batch named by split";
  if (arg.value.is_string()) {
    const std::string& text = arg.value.as_string();
    size_t at = 0;
    while (at <= text.size()) {
      const size_t comma = std::min(text.find(',', at), text.size());
      std::string name = text.substr(at, comma - at);
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(' ') + 1);
      if (name.empty()) a.fail("devices", "argument 'devices' of function has an empty device name in \"" + text + "\"", hint);
      out.push_back(name);
      at = comma + 1;
    }
    return out;
  }
  if (!arg.value.is_sequence())
    a.fail("devices", "argument 'devices' of function must be a list of device names, got " + arg.value.describe(), hint);
  for (size_t i = 0; i < arg.value.items().size(); ++i) {
    const Value& item = arg.value.items()[i];
    if (!item.is_string()) a.fail_at(item_pos(arg, i), "a device must be a name such as \"cuda:1\", got " + item.describe(), hint);
    out.push_back(item.as_string());
  }
  if (out.empty()) a.fail("devices", "argument 'devices' of function is an empty list", hint);
  return out;
}

Value function_(Args& a) {
  if (!a.ctx.program)
    a.fail_at(a.pos, "function() cannot be used here", "functions are defined in .tg files: f = function([x], y)");
  std::string name = a.opt_string("name").value_or(a.bound_name);
  if (a.bound_name.empty())
    a.fail_at(a.pos, "function() must be assigned to a name", "write f = function([x], [y]); tgc run --fn f runs it");
  if (name.empty()) a.fail("name", "a function's name must not be empty", "leave name= out to use the assigned name");
  for (const TgFunction& f : a.ctx.program->functions)
    if (f.name == name)
      a.fail_at(a.pos, "a function named '" + name + "' is already defined",
                fmt::format("the first one is at line {}; give this one another name", f.loc.line));

  std::vector<std::string> input_names, output_texts;
  // Inputs: symbolic input variables, named as written in the list.
  const ArgValue& inputs_arg = a.arg("inputs");
  if (!inputs_arg.value.is_sequence())
    a.fail("inputs", "argument 'inputs' of function must be a list of input variables, got " + inputs_arg.value.describe(),
           "write function([x, y], ...), or function([], ...) for none");
  std::vector<Var> inputs;
  for (size_t i = 0; i < inputs_arg.value.items().size(); ++i) {
    const Value& v = inputs_arg.value.items()[i];
    if (!v.is_var() || v.as_var().ptr()->kind() != Variable::Kind::Input)
      a.fail_at(item_pos(inputs_arg, i), "a function input must be a symbolic input variable, got " + v.describe(),
                v.is_shared() ? "shared variables are implicit inputs: leave them out of the list"
                              : "make inputs with scalar/vector/matrix/tensor(...)");
    inputs.push_back(v.as_var());
    input_names.push_back(item_text(a, inputs_arg, i, v.as_var()));
  }
  // Outputs: one tensor, or a list of them.
  const ArgValue& outputs_arg = a.arg("outputs");
  std::vector<Var> outputs;
  if (outputs_arg.value.is_sequence()) {
    for (size_t i = 0; i < outputs_arg.value.items().size(); ++i)
      outputs.push_back(to_var(outputs_arg.value.items()[i], a.ctx, item_pos(outputs_arg, i), "an output of function"));
  } else {
    outputs.push_back(a.var("outputs"));
  }
  for (size_t i = 0; i < outputs.size(); ++i) output_texts.push_back(item_text(a, outputs_arg, i, outputs[i]));
  // Updates: (shared variable, new value) pairs, as a list or a dict.
  Updates updates;
  const ArgValue& updates_arg = a.arg("updates");
  if (!updates_arg.value.is_none()) {
    if (!updates_arg.value.is_sequence())
      a.fail("updates", "argument 'updates' of function must be a list of (shared, value) pairs, got " +
                            updates_arg.value.describe(),
             "write updates=[(w, w - 0.1 * gw)]");
    for (size_t i = 0; i < updates_arg.value.items().size(); ++i) {
      const Value& pair = updates_arg.value.items()[i];
      const Pos p = item_pos(updates_arg, i);
      if (!pair.is_sequence() || pair.items().size() != 2)
        a.fail_at(p, "an update must be a pair (shared variable, new value), got " + pair.describe(),
                  "write updates=[(w, w - 0.1 * gw)]");
      if (!pair.items()[0].is_shared())
        a.fail_at(p, "an update's first item must be a shared variable, got " + pair.items()[0].describe(),
                  "only shared variables (made by shared(...)) can be updated");
      Shared target(pair.items()[0].as_var().ptr());
      const Value& nv = pair.items()[1];
      Var value = nv.is_number() ? constant(nv.as_double(), target.dtype()) : to_var(nv, a.ctx, p, "an update's value");
      updates.emplace_back(target, value);
    }
  }
  // Givens: (variable, replacement) pairs, as a list or a dict.
  Givens givens;
  const ArgValue& givens_arg = a.arg("givens");
  if (!givens_arg.value.is_none()) {
    if (!givens_arg.value.is_sequence())
      a.fail("givens", "argument 'givens' of function must be a list of (variable, replacement) pairs, got " +
                           givens_arg.value.describe(),
             "write givens=[(x, data[i])]");
    for (size_t i = 0; i < givens_arg.value.items().size(); ++i) {
      const Value& pair = givens_arg.value.items()[i];
      const Pos p = item_pos(givens_arg, i);
      if (!pair.is_sequence() || pair.items().size() != 2 || !pair.items()[0].is_var())
        a.fail_at(p, "a given must be a pair (variable, replacement), got " + pair.describe(),
                  "write givens=[(x, data[i])]");
      Var var = pair.items()[0].as_var();
      const Value& by = pair.items()[1];
      givens.emplace_back(var, by.is_number() ? constant(by.as_double(), var.dtype()) : to_var(by, a.ctx, p, "a replacement"));
    }
  }
  std::vector<Var> roots = outputs;
  for (const auto& [target, value] : updates) roots.push_back(value);
  for (const auto& [var, by] : givens) roots.push_back(by);
  const int64_t limit = a.ctx.limits.max_function_nodes;
  if (const int64_t n = count_nodes(roots, limit); n > limit)
    a.fail_at(a.pos, fmt::format("function '{}' has more than {} nodes", name, limit),
              "the graph is too large to compile here; nested grad() calls grow graphs quickly");
  FunctionOptions opts = a.ctx.options;
  opts.device_result = a.boolean("device_result");  // no effect on the cpu device
  opts.data_parallel.split = split_inputs(a, inputs);
  opts.data_parallel.local_results = a.boolean("local_results");
  opts.data_parallel.devices = rank_devices(a);
  if (!opts.data_parallel.devices.empty() && opts.data_parallel.split.empty())
    a.fail("devices", "devices= runs one rank per device over a split batch, and split= names no input",
           "add split=[x, y]: the inputs whose first axis the devices divide");
  opts.no_default_updates = a.boolean("no_default_updates");
  opts.givens = std::move(givens);
  opts.name = name;
  if (!a.arg("mixed_precision").value.is_none()) {
    const std::string mode = a.string("mixed_precision");
    if (mode != "none" && mode != "bfloat16" && mode != "float16")
      a.fail("mixed_precision", "argument 'mixed_precision' of function must be \"none\", \"bfloat16\" or \"float16\", got \"" + mode + "\"",
             "mixed_precision=\"bfloat16\" multiplies float32 products on bfloat16 copies (docs/precision.md)");
    opts.config["mixed_precision"] = mode;
  }
  a.ctx.program->functions.push_back(TgFunction{name, std::move(input_names), std::move(output_texts),
                                                a.ctx.src.loc(a.pos), function(inputs, outputs, updates, opts)});
  return FunctionRef{static_cast<int>(a.ctx.program->functions.size()) - 1};
}

}  // namespace

std::vector<BuiltinRow> graph_builtins(Family family) {
  switch (family) {
    case Family::Gradients:
      return {
          {"grad", "cost, wrt, consider_constant=None, disconnected_inputs=\"raise\"",
           "d cost / d wrt for a 0-d cost; a list of gradients for a list wrt: gw, gb = grad(cost, [w, b])", grad_},
          {"stop_gradient", "x", "x itself, but no gradient flows through it",
           [](Args& a) -> Value { return stop_gradient(a.var("x")); }},
          {"Lop", "f, wrt, eval_points", "the vector-Jacobian product eval_points^T (d f / d wrt)", lop_},
          {"jacobian", "expression, wrt", "d expression[i] / d wrt for a vector of static length",
           [](Args& a) -> Value {
             differentiable(a, "expression");
             return jacobian(small_vector(a, "expression"), a.var("wrt"));
           }},
          {"hessian", "cost, wrt", "the matrix of second derivatives of a 0-d cost w.r.t. a vector",
           [](Args& a) -> Value { return hessian(differentiable(a, "cost"), small_vector(a, "wrt")); }},
      };
    case Family::Functions:
      return {
          {"function",
           "inputs, outputs, updates=None, name=None, device_result=false, split=None, local_results=false, "
           "devices=None, no_default_updates=false, givens=None, mixed_precision=None",
           "compiles inputs -> outputs (one tensor or a list) with shared-variable updates; name defaults to the "
           "assigned name; device_result=true leaves outputs on the device (no effect on cpu); split=[x, (y, 1)] "
           "runs data-parallel over the launch's ranks, each taking its part of those inputs (axis 0 unless given); "
           "devices=[\"cuda:0\", \"cuda:1\"] runs those ranks on devices of this process instead, one call for all; "
           "no_default_updates=true leaves out the default updates (a RandomStreams draw repeats its numbers); "
           "givens=[(x, data[i])] computes as if every read of x read data[i] (Theano's givens); "
           "mixed_precision=\"bfloat16\" or \"float16\" runs float32 products on half copies (docs/precision.md)",
           function_},
          {"gpu_from_host", "x", "marks x to stay on the device as a function output (no effect on cpu)",
           [](Args& a) -> Value { return gpu_from_host(a.var("x")); }},
      };
    case Family::Inputs: case Family::Values: case Family::Lists: case Family::Devices: case Family::Math: case Family::Reductions:
    case Family::LinearAlgebra:
    case Family::NeuralNet: case Family::Shape: case Family::Indexing: case Family::Join: case Family::Creation:
    case Family::Random: case Family::Distributed: case Family::ControlFlow: case Family::Convolution:
      break;
  }
  return {};
}

}  // namespace tgc::lang
