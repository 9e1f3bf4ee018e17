// The evaluator: statements, names, calls (builtins and methods), attributes, indexing
// and literals. Operators are in operators.cpp.
#include "frontend/lang/evaluator.h"

#include <fmt/format.h>

#include <functional>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "frontend/lang/builtins.h"
#include "frontend/lang/concrete.h"
#include "frontend/lang/convert.h"
#include "frontend/lang/guarded.h"
#include "runtime/suggest.h"

namespace tgc::lang {

namespace {

using Kind = Expr::Kind;

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates,
                         const std::string& otherwise) {
  const std::string guess = closest_match(name, candidates);
  return guess.empty() ? otherwise : "did you mean '" + guess + "'?";
}

Value predefined_value(const std::string& name, const Context& ctx) {
  if (name == "pi") return std::numbers::pi;
  if (name == "inf") return std::numeric_limits<double>::infinity();
  if (name == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (name == "newaxis") return Value();
  return std::string(dtype_name(ctx.floatx));  // floatX
}

// The methods of values of a receiver kind, for "did you mean".
std::vector<std::string> method_names(Receiver r) {
  std::vector<std::string> out;
  for (const Builtin& b : builtins())
    if (b.receiver == r) out.push_back(r == Receiver::Streams ? b.name.substr(b.name.find('.') + 1) : b.name);
  if (r == Receiver::Tensor)
    for (const char* attr : {"T", "ndim", "dtype", "shape", "name", "device"}) out.emplace_back(attr);
  return out;
}

}  // namespace

const std::map<std::string, std::string>& predefined_names() {
  static const std::map<std::string, std::string> names = {
      {"pi", "3.14159..."},
      {"inf", "floating-point infinity"},
      {"nan", "not a number"},
      {"newaxis", "None, for indexing: x[:, newaxis]"},
      {"floatX", "the configured float dtype name (\"float32\" by default), for dtype= arguments"},
  };
  return names;
}

void Evaluator::run(const Module& module) {
  for (const Stmt& s : module.statements) {
    if (s.targets.empty()) {
      // A call made for what it does (save(f, "f.tgf")) gives None; any other value unused
      // is a mistake (a graph built and dropped).
      if (s.value->kind == Kind::Call && eval(*s.value, "").is_none()) continue;
      throw ctx_.src.error(s.value->start, "this expression's value is not used",
                           "assign it to a name: y = ...; a .tg file only builds graphs and functions");
    }
    const std::string bound = s.targets.size() == 1 && s.targets[0]->kind == Kind::Name ? s.targets[0]->text : "";
    const Value v = eval(*s.value, bound);
    for (const ExprPtr& t : s.targets) assign(*t, v);
  }
}

void Evaluator::assign(const Expr& target, const Value& v) {
  if (target.kind == Kind::Name) {
    Value bound = v;
    if (v.is_var()) {
      Var x = v.as_var();
      if (x.name().empty()) x.named(target.text);
      if (ctx_.program) ctx_.program->variables[target.text] = x;
    } else if (ctx_.program) {
      ctx_.program->variables.erase(target.text);
    }
    names_[target.text] = std::move(bound);
    return;
  }
  // a, b = value: unpack a list or tuple of the same length.
  if (!v.is_sequence())
    throw ctx_.src.error(target.pos, "cannot unpack " + v.describe() + " into " + std::to_string(target.items.size()) + " names",
                         "the right side must be a list or tuple, e.g. gw, gb = grad(cost, [w, b])");
  if (v.items().size() != target.items.size())
    throw ctx_.src.error(target.pos,
                         fmt::format("cannot unpack {} values into {} names", v.items().size(), target.items.size()),
                         "give as many names as there are values");
  for (size_t i = 0; i < target.items.size(); ++i) assign(*target.items[i], v.items()[i]);
}

Evaluator::Evaluator(Context& ctx) : ctx_(ctx) {
  ctx_.call_lambda = [this](const Lambda& fn, const std::vector<Value>& args, Pos pos) {
    return call_lambda(fn, args, pos);
  };
}

Value Evaluator::call_lambda(const Lambda& fn, const std::vector<Value>& args, Pos pos) {
  if (args.size() != fn.params.size())
    throw ctx_.src.error(pos,
                         fmt::format("the lambda takes {} argument{} but is called with {}", fn.params.size(),
                                     fn.params.size() == 1 ? "" : "s", args.size()),
                         "'" + fn.text + "'" +
                             (fn.params.empty() ? "" : "; scan() passes each sequence's taps, then each fed-back result's, then the non-sequences"));
  // A lambda that calls itself through a name would never end: stop at a depth no loop needs.
  constexpr int kMaxLambdaDepth = 64;
  if (lambda_depth_ >= kMaxLambdaDepth)
    throw ctx_.src.error(pos, "lambdas call each other more than " + std::to_string(kMaxLambdaDepth) + " deep",
                         "a lambda cannot call itself: .tg has no recursion");
  // Parameters shadow the program's names while the body is evaluated, then the names return.
  const Shadowed shadowed(names_, fn.params);
  for (size_t i = 0; i < args.size(); ++i) names_[fn.params[i]] = args[i];
  struct Depth {
    int& depth;
    ~Depth() { --depth; }
  } depth{++lambda_depth_};
  return eval(*fn.body);
}

Evaluator::Shadowed::Shadowed(std::map<std::string, Value>& names, const std::vector<std::string>& shadowed)
    : names_(names) {
  for (const std::string& n : shadowed) {
    auto it = names_.find(n);
    saved_.emplace_back(n, it == names_.end() ? std::nullopt : std::optional<Value>(it->second));
  }
}

Evaluator::Shadowed::~Shadowed() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->second) names_[it->first] = *it->second;
    else names_.erase(it->first);
  }
}

Value Evaluator::nested_sequence(std::vector<Value> items, bool tuple, Pos pos) const {
  Value v = tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  if (v.nesting() > kMaxNesting)
    throw ctx_.src.error(pos, "lists nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)",
                         "flatten the structure");
  return v;
}

Value Evaluator::eval(const Expr& e, const std::string& bound_name) {
  switch (e.kind) {
    case Kind::Name: return name(e);
    case Kind::Int: return e.int_value;
    case Kind::Float: return e.float_value;
    case Kind::String: return e.text;
    case Kind::Bool: return e.bool_value;
    case Kind::None: return Value();
    case Kind::List: case Kind::Tuple: case Kind::Dict: return sequence(e);
    case Kind::Unary: return unary(e);
    case Kind::Binary: return binary(e);
    case Kind::Call: return call(e, bound_name);
    case Kind::Attribute: return attribute(e);
    case Kind::Subscript: return subscript(e);
    case Kind::Slice:
      throw ctx_.src.error(e.pos, "a slice is only allowed inside [...]", "e.g. x[1:3]");
    case Kind::Comprehension: return comprehension(e);
    case Kind::CompFor: case Kind::CompIf:
      throw ctx_.src.error(e.pos, "a comprehension's clause outside its comprehension", "this is a bug in tgc's parser");
    case Kind::Lambda: {
      auto fn = std::make_shared<Lambda>();
      fn->params = e.params;
      fn->body = e.items[0].get();
      fn->text = std::string(ctx_.src.text().substr(e.begin, e.end - e.begin));
      return Value(std::shared_ptr<const Lambda>(std::move(fn)));
    }
  }
  return Value();
}

Value Evaluator::name(const Expr& e) {
  if (auto it = names_.find(e.text); it != names_.end()) return it->second;
  if (predefined_names().count(e.text)) return predefined_value(e.text, ctx_);
  if (find_builtin(e.text))
    throw ctx_.src.error(e.pos, "'" + e.text + "' is a function", "call it: " + e.text + "(...)");
  std::vector<std::string> known;
  for (const auto& [n, v] : names_) known.push_back(n);
  for (const auto& [n, d] : predefined_names()) known.push_back(n);
  throw ctx_.src.error(e.pos, "unknown name '" + e.text + "'",
                       did_you_mean(e.text, known, "assign it before using it: " + e.text + " = ..."));
}

Value Evaluator::sequence(const Expr& e) {
  std::vector<Value> items;
  if (e.kind == Kind::Dict) {
    // A dict is its (key, value) pairs, in order: updates={w: w - 0.1 * gw}.
    for (size_t i = 0; i + 1 < e.items.size(); i += 2)
      items.push_back(Value::tuple({eval(*e.items[i]), eval(*e.items[i + 1])}));
  } else {
    for (const ExprPtr& item : e.items) items.push_back(eval(*item));
  }
  return nested_sequence(std::move(items), e.kind == Kind::Tuple, e.pos);
}

namespace {

// The names a comprehension's `for` clauses bind (a Name, or a Tuple of them).
void loop_names(const Expr& target, std::vector<std::string>& out) {
  if (target.kind == Kind::Name) out.push_back(target.text);
  else for (const ExprPtr& t : target.items) loop_names(*t, out);
}

}  // namespace

Value Evaluator::comprehension(const Expr& e) {
  // The loop variables shadow the program's names while the comprehension runs, then the
  // names return (Python 3's scoping): a loop variable never leaks out.
  std::vector<std::string> bound;
  for (size_t c = 1; c < e.items.size(); ++c)
    if (e.items[c]->kind == Kind::CompFor) loop_names(*e.items[c]->items[0], bound);
  const Shadowed shadowed(names_, bound);

  std::vector<Value> out;
  // Binds a for clause's target to one item, unpacking tuples as an assignment does but
  // without naming graph variables (a loop variable is not a name a variable keeps).
  std::function<void(const Expr&, const Value&)> bind = [&](const Expr& target, const Value& v) {
    if (target.kind == Kind::Name) {
      names_[target.text] = v;
      return;
    }
    if (!v.is_sequence() || v.items().size() != target.items.size())
      throw ctx_.src.error(target.pos,
                           "cannot unpack " + v.describe() + " into " + std::to_string(target.items.size()) + " names",
                           "each item must be a list or tuple of as many values: for w, g in zip(params, grads)");
    for (size_t i = 0; i < target.items.size(); ++i) bind(*target.items[i], v.items()[i]);
  };
  std::function<void(size_t)> clause = [&](size_t c) {
    if (c == e.items.size()) {
      if (static_cast<int64_t>(out.size()) >= ctx_.limits.max_list_items)
        throw ctx_.src.error(e.pos, fmt::format("a comprehension gives more than {} items", ctx_.limits.max_list_items),
                             "a comprehension builds layers and updates; data belongs in a tensor");
      out.push_back(eval(*e.items[0]));
      return;
    }
    const Expr& cl = *e.items[c];
    if (cl.kind == Kind::CompIf) {
      const Value cond = eval(*cl.items[0]);
      if (!cond.is_number())
        throw ctx_.src.error(cl.items[0]->start, "a comprehension's condition must be a number or a bool, not " + cond.describe(),
                             "it is decided while the program is read: a tensor's elements are not known then");
      if (cond.as_double() != 0) clause(c + 1);
      return;
    }
    const Value items = eval(*cl.items[1]);
    if (!items.is_sequence())
      throw ctx_.src.error(cl.items[1]->start, "a comprehension iterates over a list or tuple, not " + items.describe(),
                           "iterate over range(n), zip(a, b), enumerate(l) or a list");
    for (const Value& item : items.items()) {
      // Every step counts, kept or not: nested loops multiply (bounded time and memory).
      if (++ctx_.loop_steps > ctx_.limits.max_loop_steps)
        throw ctx_.src.error(cl.pos, fmt::format("the program's comprehensions loop more than {} times in all",
                                                 ctx_.limits.max_loop_steps),
                             "comprehensions build layers and updates; data belongs in tensors");
      bind(*cl.items[0], item);
      clause(c + 1);
    }
  };
  clause(1);
  return nested_sequence(std::move(out), /*tuple=*/false, e.pos);
}

Value Evaluator::call(const Expr& e, const std::string& bound_name) {
  const Expr& callee = *e.items[0];
  const Builtin* fn = nullptr;
  std::vector<ArgValue> positional;
  std::shared_ptr<RandomState> rng;
  std::shared_ptr<RandomStreams> streams;
  if (callee.kind == Kind::Name) {
    fn = find_builtin(callee.text);
    if (auto it = names_.find(callee.text); it != names_.end() && it->second.is_lambda()) {
      // A lambda bound to a name: f(x, h) with positional arguments.
      const Value target = it->second;
      std::vector<Value> values;
      for (const Arg& a : e.args) {
        if (!a.keyword.empty())
          throw ctx_.src.error(a.keyword_pos, "a lambda takes positional arguments only", "pass them in order");
        values.push_back(eval(*a.value));
      }
      return call_lambda(target.as_lambda(), values, e.pos);
    }
    if (!fn) {
      if (names_.count(callee.text))
        throw ctx_.src.error(callee.pos, "'" + callee.text + "' is not a function",
                             "it is " + names_.at(callee.text).describe() + "; only builtins can be called");
      throw ctx_.src.error(callee.pos, "unknown function '" + callee.text + "'",
                           did_you_mean(callee.text, builtin_names(), "docs/language.md lists the builtins"));
    }
  } else {
    // A method: x.sum(axis=0) is sum(x, axis=0); rng.rand(3) draws from rng.
    const Expr& object = *callee.items[0];
    const Value self = eval(object);
    const Receiver r = self.is_rng()                           ? Receiver::Rng
                       : self.is_streams()                     ? Receiver::Streams
                       : (self.is_var() || self.is_tensor()) ? Receiver::Tensor
                                                               : Receiver::None;
    const std::string method = r == Receiver::Streams ? "RandomStreams." + callee.text : callee.text;
    if (const Builtin* b = find_builtin(method); b && r != Receiver::None && b->receiver == r) fn = b;
    if (!fn) {
      std::vector<std::string> methods = r == Receiver::None ? std::vector<std::string>{} : method_names(r);
      throw ctx_.src.error(callee.pos, self.describe() + " has no method '" + callee.text + "'",
                           did_you_mean(callee.text, methods,
                                        r == Receiver::None ? "only tensors, RandomStates and RandomStreams have methods"
                                                            : "docs/language.md lists the methods"));
    }
    if (r == Receiver::Rng) rng = self.as_rng();
    else if (r == Receiver::Streams) streams = self.as_streams();
    else positional.push_back(ArgValue{self, object.start, &object});
  }
  std::vector<std::pair<std::string, ArgValue>> keywords;
  for (const Arg& a : e.args) {
    ArgValue v{eval(*a.value), a.value->start, a.value.get()};
    if (a.keyword.empty()) {
      positional.push_back(std::move(v));
    } else {
      v.pos = a.keyword_pos;
      keywords.emplace_back(a.keyword, std::move(v));
    }
  }
  auto invoke = [&](std::vector<ArgValue> pos_args, std::vector<std::pair<std::string, ArgValue>> kw_args) {
    Args args(ctx_, *fn, e.pos, std::move(pos_args), std::move(kw_args));
    args.bound_name = bound_name;
    args.rng = rng;
    args.streams = streams;
    return guarded(ctx_.src, e.pos, [&] { return fn->call(args); });
  };
  if (fn->on_concrete != OnConcrete::Graph) {
    // On concrete values only, the builtin runs now: the same call, on the eager leaves.
    std::vector<OperandAt> operands;
    for (const ArgValue& a : positional) operands.push_back({&a.value, a.pos});
    for (const auto& [k, a] : keywords) operands.push_back({&a.value, a.pos});
    if (all_concrete(operands))
      return compute_now(ctx_, e.pos, operands, fn->on_concrete, [&](const std::vector<Value>& values) {
        std::vector<ArgValue> pos_args = positional;
        std::vector<std::pair<std::string, ArgValue>> kw_args = keywords;
        size_t k = 0;
        for (ArgValue& a : pos_args) a.value = values[k++];
        for (auto& [name, a] : kw_args) a.value = values[k++];
        return invoke(std::move(pos_args), std::move(kw_args));
      });
  }
  return invoke(std::move(positional), std::move(keywords));
}

Value Evaluator::attribute(const Expr& e) {
  const Value self = eval(*e.items[0]);
  const std::string& attr = e.text;
  if (self.is_var() || self.is_tensor()) {
    const int ndim = self.is_var() ? self.as_var().ndim() : self.as_tensor().ndim();
    if (attr == "ndim") return ndim;
    if (attr == "dtype") return std::string(dtype_name(self.is_var() ? self.as_var().dtype() : self.as_tensor().dtype()));
    if (attr == "T") {
      auto transposed = [&](const std::vector<Value>& x) -> Value {
        return guarded(ctx_.src, e.pos, [&] { return transpose(to_var(x[0], ctx_, e.pos, "x")); });
      };
      if (self.is_tensor()) return compute_now(ctx_, e.pos, {{&self, e.pos}}, OnConcrete::Compute, transposed);
      return transposed({self});
    }
    if (attr == "device") {
      if (self.is_tensor()) return device_name(self.as_tensor().device());
      throw ctx_.src.error(e.pos, "a symbolic tensor has no device",
                           "its function's device decides where it is computed (tgc --device)");
    }
    if (attr == "shape") {
      std::vector<Value> dims;
      if (self.is_tensor()) {
        for (int64_t d : self.as_tensor().shape()) dims.emplace_back(d);
      } else {
        for (int64_t d : self.as_var().type().shape) dims.push_back(d == kUnknownDim ? Value() : Value(d));
      }
      return Value::tuple(std::move(dims));
    }
    if (attr == "name" && self.is_var()) return self.as_var().name();
    if (const Builtin* b = find_builtin(attr); b && b->receiver == Receiver::Tensor)
      throw ctx_.src.error(e.pos, "'" + attr + "' is a method", "call it: x." + attr + "(...)");
  }
  if (self.is_rng())
    if (const Builtin* b = find_builtin(attr); b && b->receiver == Receiver::Rng)
      throw ctx_.src.error(e.pos, "'" + attr + "' is a method", "call it: rng." + attr + "(...)");
  if (self.is_streams())
    if (const Builtin* b = find_builtin("RandomStreams." + attr); b && b->receiver == Receiver::Streams)
      throw ctx_.src.error(e.pos, "'" + attr + "' is a method", "call it: srng." + attr + "(...)");
  const Receiver r = self.is_rng()       ? Receiver::Rng
                     : self.is_streams() ? Receiver::Streams
                     : (self.is_var() || self.is_tensor()) ? Receiver::Tensor
                                                           : Receiver::None;
  throw ctx_.src.error(e.pos, self.describe() + " has no attribute '" + attr + "'",
                       did_you_mean(attr, r == Receiver::None ? std::vector<std::string>{} : method_names(r),
                                    "tensors have T, ndim, dtype, shape, device (values) and methods such as sum()"));
}

// l[start:stop:step] of a list or tuple, as Python slices it (negative bounds count from the
// end, bounds past the ends are clipped): a list or tuple again.
Value Evaluator::sequence_slice(const Value& target, const Expr& slice) {
  const int64_t n = static_cast<int64_t>(target.items().size());
  auto bound = [&](size_t k) -> std::optional<int64_t> {
    if (!slice.items[k]) return std::nullopt;
    const Value v = eval(*slice.items[k]);
    if (v.is_none()) return std::nullopt;
    if (!v.is_int())
      throw ctx_.src.error(slice.items[k]->start, "a list slice's bounds are integers, got " + v.describe(), "e.g. sizes[1:]");
    return v.as_int();
  };
  const std::optional<int64_t> start = bound(0), stop = bound(1), step_given = bound(2);
  const int64_t step = step_given.value_or(1);
  if (step == 0) throw ctx_.src.error(slice.items[2]->start, "a slice step must not be zero", "e.g. l[::2] or l[::-1]");
  auto clip = [&](std::optional<int64_t> b, int64_t if_none) {
    if (!b) return if_none;
    int64_t v = *b < 0 ? *b + n : *b;
    return step > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
  };
  const int64_t first = clip(start, step > 0 ? 0 : n - 1), last = clip(stop, step > 0 ? n : -1);
  std::vector<Value> items;
  for (int64_t i = first; step > 0 ? i < last : i > last; i += step) items.push_back(target.items()[i]);
  return target.is_tuple() ? Value::tuple(std::move(items)) : Value::list(std::move(items));
}

Value Evaluator::subscript(const Expr& e) {
  const Value target = eval(*e.items[0]);
  // Lists and tuples: one integer index (negative from the end).
  if (target.is_sequence()) {
    if (e.items.size() == 2 && e.items[1]->kind == Kind::Slice) return sequence_slice(target, *e.items[1]);
    if (e.items.size() != 2)
      throw ctx_.src.error(e.pos, "a list is indexed by one integer or one slice", "e.g. grads[0], sizes[1:]");
    const Value i = eval(*e.items[1]);
    if (!i.is_int()) throw ctx_.src.error(e.items[1]->start, "a list index must be an integer, got " + i.describe(), "e.g. grads[0]");
    const int64_t n = static_cast<int64_t>(target.items().size());
    const int64_t k = i.as_int() < 0 ? i.as_int() + n : i.as_int();
    if (k < 0 || k >= n)
      throw ctx_.src.error(e.items[1]->start, fmt::format("list index {} is out of range (the list has {} items)", i.as_int(), n),
                           "indices run from 0 to len - 1, or from -len to -1");
    return target.items()[k];
  }
  if (!target.is_var() && !target.is_tensor())
    throw ctx_.src.error(e.pos, target.describe() + " cannot be indexed", "index tensors, lists and tuples");
  std::vector<Index> index;
  // Tensor entries (x[idx]) are filled in when the indexing is built: on the eager leaves
  // when every operand is concrete.
  std::vector<Value> operand_values{target};
  std::vector<Pos> operand_pos{e.items[0]->start};
  std::vector<size_t> tensor_entries;
  for (size_t k = 1; k < e.items.size(); ++k) {
    const Expr& entry = *e.items[k];
    if (entry.kind == Kind::Slice) {
      std::optional<int64_t> parts[3];
      for (int p = 0; p < 3; ++p) {
        if (!entry.items[p]) continue;
        const Value v = eval(*entry.items[p]);
        if (v.is_none()) continue;
        if (!v.is_int())
          throw ctx_.src.error(entry.items[p]->start, "a slice bound must be an integer or None, got " + v.describe(),
                               "e.g. x[1:], x[::2], x[:-1]");
        // NumPy clamps slice bounds to the axis; clamping to +-2**62 first changes no result
        // (no axis is that long) and keeps the ops' bound arithmetic from overflowing.
        constexpr int64_t kBound = int64_t{1} << 62;
        parts[p] = std::clamp(v.as_int(), -kBound, kBound);
      }
      index.emplace_back(Slice{parts[0], parts[1], parts[2]});
      continue;
    }
    const Value v = eval(entry);
    if (v.is_none()) {
      index.emplace_back(newaxis);
    } else if (v.is_int()) {
      index.emplace_back(v.as_int());
    } else if (v.is_var() || v.is_tensor() || v.is_sequence()) {
      tensor_entries.push_back(index.size());
      index.emplace_back(int64_t{0});  // replaced by the tensor when built
      operand_values.push_back(v);
      operand_pos.push_back(entry.start);
    } else {
      throw ctx_.src.error(entry.start, "an index must be an integer, a slice, None or an integer tensor, got " + v.describe(),
                           "e.g. x[0], x[1:, ::2], x[:, None], x[idx]");
    }
  }
  auto indexed = [&](const std::vector<Value>& values) -> Value {
    std::vector<Index> full = index;
    for (size_t k = 0; k < tensor_entries.size(); ++k)
      full[tensor_entries[k]] = Index(to_var(values[k + 1], ctx_, operand_pos[k + 1], "an index"));
    const Var x = to_var(values[0], ctx_, operand_pos[0], "the indexed value");
    return guarded(ctx_.src, e.pos, [&] { return x[full]; });
  };
  std::vector<OperandAt> operands;
  for (size_t k = 0; k < operand_values.size(); ++k) operands.push_back({&operand_values[k], operand_pos[k]});
  if (!all_concrete(operands)) return indexed(operand_values);
  Value r = compute_now(ctx_, e.pos, operands, OnConcrete::Compute, indexed);
  // Basic indexing of a value remembers it, for set_subtensor(a[0], 5) on values.
  if (tensor_entries.empty()) return Value::indexed(r.as_tensor(), target, index);
  return r;
}

}  // namespace tgc::lang
