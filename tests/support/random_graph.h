// Random expression graphs for the optimizer's property tests: a few inputs of mixed dtypes
// and ranks (0-d to 3-d, size-1 dims that broadcast) and some constants, 3-15 operations
// drawn from the scalar-op table, reductions over random axes, and now and then a dot,
// reshape, dimshuffle or subtensor between them; several outputs. Deterministic per seed, with input
// values on which no operation raises (integer division and powers get safe operands).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tgc/tgc.h>

#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "runtime/error.h"

namespace tgc::test {

struct RandomGraph {
  std::vector<Var> inputs;
  std::vector<Tensor> values;  // one per input, on which every output can be evaluated
  std::vector<Var> outputs;
};

struct RandomGraphOptions {
  int min_ops = 3;  // operations drawn (an operation may add a helper node or two)
  int max_ops = 15;
  int max_inputs = 4;
  int max_outputs = 4;
  // Percent of operations drawn from what the optimizer's constant rules fold, as gradients
  // and hand-written code make it: chains of scalings and shifts by constants, where on a
  // constant condition, fills and size-1 constants. 0 keeps every seed's graph as it was.
  int foldable_percent = 0;
};

namespace detail {

// splitmix64: the same stream on every platform (the <random> distributions are not).
class Bits {
 public:
  explicit Bits(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[below(static_cast<int>(v.size()))]; }

 private:
  uint64_t state_;
};

class Generator {
 public:
  Generator(uint64_t seed, const RandomGraphOptions& options)
      : bits_(seed), values_rng_(static_cast<int64_t>(seed % 2147483647)), options_(options) {}

  RandomGraph run() {
    for (int& d : universe_) d = 1 + bits_.below(4);
    const int n_inputs = 1 + bits_.below(options_.max_inputs);
    for (int i = 0; i < n_inputs; ++i) add_input();
    const int ops = options_.min_ops + bits_.below(options_.max_ops - options_.min_ops + 1);
    int made = 0;
    for (int attempt = 0; made < ops && attempt < 40 * ops; ++attempt) {
      try {
        if (step()) ++made;
      } catch (const Error&) {
        // An operation the operands' dtypes or shapes do not allow: draw another.
      }
    }
    RandomGraph g;
    g.inputs = inputs_;
    g.values = input_values_;
    // Outputs: the last result, results nothing else read (so little of what was drawn is
    // dead), and now and then one that is also read inside (a shared subexpression).
    std::vector<Var> results;
    for (const Entry& e : pool_)
      if (e.var.ptr()->kind() == Variable::Kind::Result) results.push_back(e.var);
    if (results.empty()) results.push_back(inputs_[0] * 2.0);
    std::unordered_map<const Variable*, bool> read;
    for (const Var& r : results) mark_read(r.ptr()->owner(), read);
    auto add_output = [&](const Var& v) {
      for (const Var& o : g.outputs)
        if (o.ptr() == v.ptr()) return;
      g.outputs.push_back(v);
    };
    add_output(results.back());
    for (size_t i = results.size(); i-- > 0 && static_cast<int>(g.outputs.size()) < options_.max_outputs;)
      if (!read.count(results[i].ptr().get())) add_output(results[i]);
    if (bits_.chance(20)) add_output(bits_.pick(results));
    return g;
  }

 private:
  struct Entry {
    Var var;
    Shape shape;  // the concrete shape it has for the generated input values
  };

  // Marks every variable the expression of `node` reads, transitively.
  static void mark_read(const Node* node, std::unordered_map<const Variable*, bool>& read) {
    if (!node) return;
    for (const VarPtr& v : node->inputs())
      if (read.emplace(v.get(), true).second) mark_read(v->owner(), read);
  }

  void add_input() {
    static const std::vector<DType> dtypes = {DType::Float32, DType::Float32, DType::Float32, DType::Float64,
                                              DType::Float64, DType::Int32,   DType::Int64,   DType::Bool};
    const DType dtype = bits_.pick(dtypes);
    const int rank = std::vector<int>{0, 1, 1, 2, 2, 2, 3, 3}[bits_.below(8)];
    Shape shape;
    std::vector<int64_t> static_shape;
    for (int d = 3 - rank; d < 3; ++d) {
      int64_t n = bits_.chance(25) ? 1 : universe_[d];
      shape.push_back(n);
      // Size-1 dims are mostly known (they broadcast statically), other dims mostly not.
      static_shape.push_back(n == 1 ? (bits_.chance(80) ? 1 : kUnknownDim) : (bits_.chance(20) ? n : kUnknownDim));
    }
    Var v = tensor("in" + std::to_string(inputs_.size()), dtype, static_shape);
    Tensor value;
    if (is_float(dtype)) value = values_rng_.uniform(-3.0, 3.0, shape).astype(dtype);
    else if (dtype == DType::Bool) value = values_rng_.randint(0, 2, shape, DType::Bool);
    else value = values_rng_.randint(-4, 5, shape, dtype);
    inputs_.push_back(v);
    input_values_.push_back(value);
    pool_.push_back({v, shape});
  }

  // An operand: mostly one of the last few values, so chains and siblings form.
  const Entry& operand() {
    const int n = static_cast<int>(pool_.size());
    if (bits_.chance(60)) return pool_[n - 1 - bits_.below(std::min(n, 3))];
    return pool_[bits_.below(n)];
  }

  static bool broadcastable(const Shape& a, const Shape& b) {
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      int64_t x = a[a.size() - 1 - i], y = b[b.size() - 1 - i];
      if (x != y && x != 1 && y != 1) return false;
    }
    return true;
  }

  // The concrete shape of `v` for the generated input values.
  Shape shape_of(const VarPtr& v) {
    if (auto it = shapes_.find(v.get()); it != shapes_.end()) return it->second;
    Shape s;
    switch (v->kind()) {
      case Variable::Kind::Constant: s = v->constant_value().shape(); break;
      case Variable::Kind::Shared: s = v->storage()->current().shape(); break;
      case Variable::Kind::Input:
        for (size_t i = 0; i < inputs_.size(); ++i)
          if (inputs_[i].ptr() == v) s = input_values_[i].shape();
        break;
      case Variable::Kind::Result: {
        std::vector<Shape> in;
        for (const VarPtr& i : v->owner()->inputs()) in.push_back(shape_of(i));
        s = v->owner()->op().infer_shapes(in).at(v->index());
        break;
      }
    }
    return shapes_[v.get()] = s;
  }

  void push(const Var& v) { pool_.push_back({v, shape_of(v.ptr())}); }

  // Integer division by zero and negative integer powers raise: integer operands of //, %
  // and ** are made safe first.
  static Var safe_divisor(const Var& d) { return is_float(d.dtype()) ? d : where(eq(d, 0), 3, d); }
  static Var safe_exponent(const Var& e) { return is_float(e.dtype()) ? e : clip(e, 0, 3); }

  double literal() {
    static const std::vector<double> values = {0.5, 2, -1, 3, 0.25, 1, -2.5};
    return bits_.pick(values);
  }

  // A constant operand (not counted as an operation): 0-d of some dtype, or a tensor of
  // the universe's trailing dims; constant folding gets whole subexpressions to evaluate.
  void add_constant() {
    static const std::vector<DType> dtypes = {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool};
    const DType dtype = bits_.pick(dtypes);
    const int rank = bits_.below(3);
    Shape shape;
    for (int d = 3 - rank; d < 3; ++d) shape.push_back(universe_[d]);
    Tensor value = dtype == DType::Bool ? values_rng_.randint(0, 2, shape, DType::Bool)
                   : is_float(dtype)    ? values_rng_.uniform(-2.0, 2.0, shape).astype(dtype)
                                        : values_rng_.randint(-3, 4, shape, dtype);
    pool_.push_back({constant(value), shape});
  }

  bool step() {
    if (options_.foldable_percent > 0 && bits_.chance(options_.foldable_percent)) return foldable();
    if (bits_.chance(8)) add_constant();
    const int kind = bits_.below(100);
    if (kind < 22) return unary();
    if (kind < 55) return binary();
    if (kind < 62) return ternary();
    if (kind < 77) return reduction();
    if (kind < 81) return dot_op();
    if (kind < 88) return dimshuffle_op();
    if (kind < 92) return reshape_op();
    if (kind < 96) return subtensor_op();
    return cast_op();
  }

  bool unary() {
    static const std::vector<ScalarOpKind> kinds = {
        ScalarOpKind::Neg,  ScalarOpKind::Abs,     ScalarOpKind::Sign,     ScalarOpKind::LogicalNot,
        ScalarOpKind::Exp,  ScalarOpKind::Exp2,    ScalarOpKind::Expm1,    ScalarOpKind::Log,
        ScalarOpKind::Log2, ScalarOpKind::Log10,   ScalarOpKind::Log1p,    ScalarOpKind::Sqrt,
        ScalarOpKind::Rsqrt, ScalarOpKind::Square, ScalarOpKind::Sin,      ScalarOpKind::Cos,
        ScalarOpKind::Tan,  ScalarOpKind::Tanh,    ScalarOpKind::Sinh,     ScalarOpKind::Cosh,
        ScalarOpKind::Arcsin, ScalarOpKind::Arccos, ScalarOpKind::Arctan,  ScalarOpKind::Erf,
        ScalarOpKind::Erfc, ScalarOpKind::Sigmoid, ScalarOpKind::Softplus, ScalarOpKind::Floor,
        ScalarOpKind::Ceil, ScalarOpKind::Round,   ScalarOpKind::Trunc,    ScalarOpKind::IsNan,
        ScalarOpKind::IsInf};
    const Entry& a = operand();
    push(Var(gradient::ew(bits_.pick(kinds), {a.var.ptr()})));
    return true;
  }

  bool binary() {
    using Fn = Var (*)(const Operand&, const Operand&);
    static const std::vector<std::pair<ScalarOpKind, Fn>> fns = {
        {ScalarOpKind::Add, &add},         {ScalarOpKind::Add, &add},          {ScalarOpKind::Sub, &sub},
        {ScalarOpKind::Mul, &mul},         {ScalarOpKind::Mul, &mul},          {ScalarOpKind::TrueDiv, &true_div},
        {ScalarOpKind::FloorDiv, &floor_div}, {ScalarOpKind::Mod, &mod},       {ScalarOpKind::Pow, &pow},
        {ScalarOpKind::Maximum, &maximum}, {ScalarOpKind::Minimum, &minimum}, {ScalarOpKind::Lt, &lt},
        {ScalarOpKind::Le, &le},           {ScalarOpKind::Gt, &gt},            {ScalarOpKind::Ge, &ge},
        {ScalarOpKind::Eq, &eq},           {ScalarOpKind::Neq, &neq},          {ScalarOpKind::LogicalAnd, &logical_and},
        {ScalarOpKind::LogicalOr, &logical_or}, {ScalarOpKind::LogicalXor, &logical_xor},
        {ScalarOpKind::Arctan2, &arctan2}};
    auto [kind, fn] = bits_.pick(fns);
    const Entry& a = operand();
    if (bits_.chance(25)) {
      double c = literal();
      if (kind == ScalarOpKind::FloorDiv || kind == ScalarOpKind::Mod) c = c == 0 ? 2 : c;
      if (kind == ScalarOpKind::Pow && !is_float(a.var.dtype())) c = 2;
      push(bits_.chance(70) ? fn(a.var, c) : fn(c, safe(kind, a.var)));
      return true;
    }
    const Entry& b = operand();
    if (!broadcastable(a.shape, b.shape)) return false;
    push(fn(a.var, safe(kind, b.var)));
    return true;
  }

  // `v` as the second operand of `kind`: a divisor of // and % or an exponent of **, made
  // safe; other operands as they are.
  static Var safe(ScalarOpKind kind, const Var& v) {
    if (kind == ScalarOpKind::FloorDiv || kind == ScalarOpKind::Mod) return safe_divisor(v);
    if (kind == ScalarOpKind::Pow) return safe_exponent(v);
    return v;
  }

  bool ternary() {
    const Entry& a = operand();
    const Entry& b = operand();
    const Entry& c = operand();
    if (!broadcastable(a.shape, b.shape) || !broadcastable(a.shape, c.shape) || !broadcastable(b.shape, c.shape))
      return false;
    if (bits_.chance(60)) push(where(a.var, b.var, c.var));
    else if (bits_.chance(50)) push(clip(a.var, b.var, c.var));
    else push(clip(a.var, -1.5, 2));
    return true;
  }

  bool reduction() {
    const Entry& a = operand();
    const int rank = a.var.ndim();
    Axes axes;
    if (rank > 0 && bits_.chance(70)) {
      std::vector<int> list;
      for (int d = 0; d < rank; ++d)
        if (bits_.chance(50)) list.push_back(bits_.chance(30) ? d - rank : d);
      if (!list.empty()) axes = Axes(list);
    }
    const bool keepdims = bits_.chance(35);
    switch (bits_.below(7)) {
      case 0:
      case 1: push(sum(a.var, axes, keepdims)); break;
      case 2: push(mean(a.var, axes, keepdims)); break;
      case 3: push(max(a.var, axes, keepdims)); break;
      case 4: push(min(a.var, axes, keepdims)); break;
      case 5: push(prod(a.var, axes, keepdims)); break;
      default: push(bits_.chance(50) ? all(a.var, axes, keepdims) : any(a.var, axes, keepdims)); break;
    }
    return true;
  }

  bool dot_op() {
    const Entry& a = operand();
    const int rank = a.var.ndim();
    if (rank < 1 || rank > 2) return false;
    // A partner whose first dim matches a's last: another value, or a itself (transposed).
    for (int tries = 0; tries < 4; ++tries) {
      const Entry& b = operand();
      if (b.var.ndim() >= 1 && b.var.ndim() <= 2 && b.shape[0] == a.shape.back() && b.var.ptr() != a.var.ptr()) {
        push(dot(a.var, b.var));
        return true;
      }
    }
    push(rank == 2 ? dot(a.var, a.var.T()) : dot(a.var, a.var));
    return true;
  }

  bool dimshuffle_op() {
    const Entry& a = operand();
    const int rank = a.var.ndim();
    std::vector<int> pattern;
    const int choice = bits_.below(3);
    if (choice == 0 && rank >= 2) {
      for (int d = rank - 1; d >= 0; --d) pattern.push_back(d);  // transpose
      if (rank == 3 && bits_.chance(50)) pattern = {1, 0, 2};
    } else if (choice == 1 && rank <= 2) {
      const int at = bits_.below(rank + 1);  // a new broadcastable axis
      for (int d = 0; d < rank; ++d) {
        if (d == at) pattern.push_back(-1);
        pattern.push_back(d);
      }
      if (at == rank) pattern.push_back(-1);
    } else {
      // Drop a dim statically known to be 1.
      int drop = -1;
      for (int d = 0; d < rank; ++d)
        if (a.var.type().shape[d] == 1) drop = d;
      if (drop < 0) return false;
      for (int d = 0; d < rank; ++d)
        if (d != drop) pattern.push_back(d);
    }
    push(dimshuffle(a.var, pattern));
    return true;
  }

  bool reshape_op() {
    const Entry& a = operand();
    if (a.var.ndim() == 0) return false;
    int64_t numel = 1;
    for (int64_t d : a.shape) numel *= d;
    switch (bits_.below(3)) {
      case 0: push(a.var.flatten()); break;
      case 1: push(reshape(a.var, {1, -1})); break;
      default: push(reshape(a.var, {numel, 1})); break;
    }
    return true;
  }

  bool subtensor_op() {
    const Entry& a = operand();
    if (a.var.ndim() == 0) return false;
    const int64_t n = a.shape[0];
    if (bits_.chance(50)) push(a.var[{slice(0, 1 + bits_.below(static_cast<int>(n)))}]);
    else push(a.var[static_cast<int64_t>(bits_.below(static_cast<int>(n)))]);
    return true;
  }

  // What constant folding and the fill rules take apart (RandomGraphOptions::foldable_percent).
  bool foldable() {
    static const std::vector<double> scales = {2, 0.5, -1, 0.25, 4, 3, 0.1, -0.5, 1};
    const Entry& a = operand();
    switch (bits_.below(5)) {
      case 0: {  // a chain of 2-4 scalings and shifts by constants, as gradients make them
        Var v = a.var;
        for (int k = 2 + bits_.below(3); k-- > 0;) {
          const double c = bits_.pick(scales);
          switch (bits_.below(6)) {
            case 0: v = v * c; break;
            case 1: v = c * v; break;
            case 2: v = v / c; break;
            case 3: v = -v; break;
            case 4: v = v + c; break;
            default: v = v - c; break;
          }
        }
        push(v);
        return true;
      }
      case 1: {  // where on a constant condition: 0-d, or all-true/all-false/mixed of a's trailing dims
        const Entry& b = operand();
        if (!broadcastable(a.shape, b.shape)) return false;
        Var cond;
        if (bits_.chance(50)) {
          cond = constant(Tensor::full(DType::Bool, {}, bits_.chance(50) ? 1.0 : 0.0));
        } else {
          Shape shape;
          for (int d = 3 - bits_.below(3); d < 3; ++d) shape.push_back(universe_[d]);
          Tensor t = bits_.chance(25) ? values_rng_.randint(0, 2, shape, DType::Bool)
                                      : Tensor::full(DType::Bool, shape, bits_.chance(50) ? 1.0 : 0.0);
          if (!broadcastable(shape, a.shape) || !broadcastable(shape, b.shape)) return false;
          cond = constant(t);
        }
        push(where(cond, a.var, b.var));
        return true;
      }
      case 2: {  // a fill read by an elementwise op (the gradient of a sum or mean)
        const Entry& b = operand();
        if (!broadcastable(a.shape, b.shape)) return false;
        Var f = bits_.chance(50) ? fill(a.var, constant(Tensor::full(b.var.dtype(), {}, bits_.pick(scales))))
                                 : (bits_.chance(50) ? ones_like(a.var) : zeros_like(a.var));
        if (bits_.chance(50)) f = -f;
        if (bits_.chance(30) && f.ndim() == 1) f = dimshuffle(f, {0, -1});
        if (!broadcastable(shape_of(f.ptr()), b.shape)) return false;
        push(bits_.chance(50) ? f * b.var : b.var + f);
        return true;
      }
      case 3: {  // a size-1 constant: broadcasts, adds nothing but (maybe) rank
        Shape ones(static_cast<size_t>(bits_.below(3)), 1);
        push(a.var * constant(Tensor::full(a.var.dtype() == DType::Bool ? DType::Int32 : a.var.dtype(), ones,
                                           bits_.pick(scales))));
        return true;
      }
      default: {  // a constant expression the folding cascades through
        Var c = constant(Tensor::full(DType::Float32, {}, bits_.pick(scales)));
        push(a.var * (c * bits_.pick(scales) + 1));
        return true;
      }
    }
  }

  bool cast_op() {
    static const std::vector<DType> dtypes = {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool};
    const Entry& a = operand();
    DType to = bits_.pick(dtypes);
    // Float to integer conversions of values out of the integer's range are undefined in
    // C++: only bounded float values (those of tanh) are converted to integers.
    if (is_float(a.var.dtype()) && !is_float(to) && to != DType::Bool) {
      push(cast(tanh(a.var) * 3.0, to));
      return true;
    }
    push(cast(a.var, to));
    return true;
  }

  Bits bits_;
  RandomState values_rng_;
  RandomGraphOptions options_;
  int universe_[3] = {1, 1, 1};
  std::vector<Var> inputs_;
  std::vector<Tensor> input_values_;
  std::vector<Entry> pool_;
  std::unordered_map<const Variable*, Shape> shapes_;
};

}  // namespace detail

// The graph of `seed`: the same graph and values for the same seed and options.
inline RandomGraph random_graph(uint64_t seed, const RandomGraphOptions& options = {}) {
  return detail::Generator(seed, options).run();
}

}  // namespace tgc::test
