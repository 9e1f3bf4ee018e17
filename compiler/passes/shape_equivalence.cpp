// ShapeEquivalence: the interned symbolic dims, their join, and the per-op shape rules.
#include "compiler/passes/shape_equivalence.h"

#include <algorithm>
#include <iterator>

#include "ops/alloc/alloc.h"
#include "ops/blas/dot.h"
#include "ops/core/node.h"
#include "ops/elemwise/elemwise.h"
#include "ops/gradient/stop_gradient.h"
#include "ops/nn/softmax.h"
#include "ops/gradient/sum_to_like.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/float_reduce.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/reshape_like.h"
#include "runtime/error.h"

namespace tgc {

namespace {

// A join of more base symbols than this becomes a fresh symbol: still sound (a fresh symbol
// only forgets equalities), and keeps the sets of wide graphs (many inputs) small.
constexpr size_t kMaxSymbols = 64;

template <typename O>
const O* op_as(const Node& n) {
  return dynamic_cast<const O*>(&n.op());
}

// The reduced input dims dropped, or kept as `one` with keepdims.
std::vector<DimId> reduce_dims(const std::vector<DimId>& in, const ReduceAxes& axes, bool keepdims, DimId one) {
  std::vector<bool> reduced = reduced_mask(axes, static_cast<int>(in.size()));
  std::vector<DimId> out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced[d]) out.push_back(in[d]);
    else if (keepdims) out.push_back(one);
  }
  return out;
}

}  // namespace

DimId ShapeEquivalence::intern(Dim d) {
  auto [it, inserted] = ids_.emplace(d, static_cast<DimId>(dims_.size()));
  if (inserted) dims_.push_back(std::move(d));
  return it->second;
}

DimId ShapeEquivalence::fresh() { return intern({kUnknownDim, {next_symbol_++}}); }

DimId ShapeEquivalence::constant(int64_t size) { return intern({size, {}}); }

std::optional<int64_t> ShapeEquivalence::known(DimId d) const {
  const Dim& dim = dims_.at(static_cast<size_t>(d));
  if (dim.size == kUnknownDim) return std::nullopt;
  return dim.size;
}

std::vector<std::optional<int64_t>> ShapeEquivalence::known_dims(const Variable& v) {
  const Type& t = v.type();
  if (t.fully_known()) return {t.shape.begin(), t.shape.end()};
  std::vector<std::optional<int64_t>> out;
  for (DimId d : dims(v)) out.push_back(known(d));
  return out;
}

std::optional<Shape> ShapeEquivalence::known_shape(const Variable& v) {
  Shape out;
  for (const std::optional<int64_t>& d : known_dims(v)) {
    if (!d) return std::nullopt;
    out.push_back(*d);
  }
  return out;
}

DimId ShapeEquivalence::join(DimId a, DimId b) {
  if (a == b) return a;
  const std::optional<int64_t> ka = known(a), kb = known(b);
  if (ka == 1) return b;
  if (kb == 1) return a;
  // A known size other than 1 is what the other must be (or be 1, and stretch to it). Two
  // different known sizes cannot meet in a graph that type-checked; keep the first.
  if (ka) return a;
  if (kb) return b;
  const Dim& da = dims_[static_cast<size_t>(a)];
  const Dim& db = dims_[static_cast<size_t>(b)];
  Dim u{kUnknownDim, {}};
  std::set_union(da.symbols.begin(), da.symbols.end(), db.symbols.begin(), db.symbols.end(),
                 std::back_inserter(u.symbols));
  if (u.symbols.size() > kMaxSymbols) return fresh();
  return intern(std::move(u));
}

std::vector<DimId> ShapeEquivalence::broadcast(const std::vector<const std::vector<DimId>*>& shapes) {
  size_t rank = 0;
  for (const auto* s : shapes) rank = std::max(rank, s->size());
  std::vector<DimId> out(rank, constant(1));
  for (const auto* s : shapes) {
    const size_t lead = rank - s->size();
    for (size_t d = 0; d < s->size(); ++d) out[lead + d] = join(out[lead + d], (*s)[d]);
  }
  return out;
}

std::vector<DimId> ShapeEquivalence::from_type(const Variable& v) {
  // A shared variable with a fact has its value's sizes (the type's rank is the value's).
  const Shape* fact = nullptr;
  if (facts_ && v.kind() == Variable::Kind::Shared)
    if (auto it = facts_->find(v.storage().get()); it != facts_->end() && static_cast<int>(it->second.size()) == v.type().ndim())
      fact = &it->second;
  std::vector<DimId> out;
  for (size_t d = 0; d < v.type().shape.size(); ++d) {
    const int64_t s = v.type().shape[d];
    out.push_back(s != kUnknownDim ? constant(s) : fact ? constant((*fact)[d]) : fresh());
  }
  return out;
}

std::vector<std::vector<DimId>> ShapeEquivalence::compute(const Variable& v) {
  const Node* n = v.owner();
  if (!n) return {from_type(v)};
  std::vector<const std::vector<DimId>*> in;
  for (const VarPtr& i : n->inputs()) in.push_back(&memo_.at(i->id()));
  auto one = [&](std::vector<DimId> dims) { return std::vector<std::vector<DimId>>{std::move(dims)}; };

  if (op_as<Elemwise>(*n)) return one(broadcast(in));
  if (op_as<Fill>(*n)) return one(broadcast(in));
  if (op_as<SumToLike>(*n) || op_as<ReshapeLike>(*n)) return one(*in[1]);
  if (op_as<StopGradient>(*n) || op_as<Softmax>(*n) || n->op().is_transfer()) return one(*in[0]);
  if (const auto* ds = op_as<DimShuffle>(*n)) {
    std::vector<DimId> out;
    for (int p : ds->pattern()) out.push_back(p == -1 ? constant(1) : (*in[0])[static_cast<size_t>(p)]);
    return one(std::move(out));
  }
  if (const auto* r = op_as<CAReduce>(*n)) return one(reduce_dims(*in[0], r->axes(), r->keepdims(), constant(1)));
  if (const auto* r = op_as<FloatReduce>(*n)) return one(reduce_dims(*in[0], r->axes(), r->keepdims(), constant(1)));
  if (const auto* r = op_as<ArgReduce>(*n)) {
    // Argmax/argmin reduce one axis, or every axis when none is given.
    std::optional<std::vector<int>> axes;
    if (r->axis()) axes = std::vector<int>{*r->axis()};
    return one(reduce_dims(*in[0], axes, r->keepdims(), constant(1)));
  }
  if (op_as<Dot>(*n) && in[0]->size() <= 2 && in[1]->size() <= 2) {
    // vector.vector -> (); matrix.vector -> (a0); vector.matrix -> (b1); matrix.matrix -> (a0, b1).
    std::vector<DimId> out;
    if (in[0]->size() == 2) out.push_back((*in[0])[0]);
    if (in[1]->size() == 2) out.push_back((*in[1])[1]);
    return one(std::move(out));
  }
  std::vector<std::vector<DimId>> outs;
  if (std::optional<std::vector<Shape>> shapes = concrete_outputs(*n, in)) {
    for (const Shape& shape : *shapes) {
      outs.emplace_back();
      for (int64_t size : shape) outs.back().push_back(constant(size));
    }
    return outs;
  }
  for (int i = 0; i < n->num_outputs(); ++i) outs.push_back(from_type(*n->output_raw(i)));
  return outs;
}

std::optional<std::vector<Shape>> ShapeEquivalence::concrete_outputs(const Node& n,
                                                                     const std::vector<const std::vector<DimId>*>& in) {
  std::vector<Shape> shapes;
  for (const std::vector<DimId>* dims : in) {
    shapes.emplace_back();
    for (DimId d : *dims) {
      const std::optional<int64_t> size = known(d);
      if (!size) return std::nullopt;
      shapes.back().push_back(*size);
    }
  }
  try {
    std::vector<Shape> out = n.op().infer_shapes(shapes);
    if (static_cast<int>(out.size()) != n.num_outputs()) return std::nullopt;
    return out;
  } catch (const Error&) {
    return std::nullopt;  // shapes it rejects: the node raises when it runs, as written
  }
}

const std::vector<DimId>& ShapeEquivalence::dims(const Variable& v) {
  if (auto it = memo_.find(v.id()); it != memo_.end()) return it->second;
  // Post-order over the variables not yet known: a variable is computed once every input
  // of its owner is.
  std::vector<std::pair<const Variable*, bool>> stack{{&v, false}};
  while (!stack.empty()) {
    auto [var, expanded] = stack.back();
    stack.pop_back();
    if (memo_.count(var->id())) continue;
    const Node* n = var->owner();
    if (n && !expanded) {
      stack.push_back({var, true});
      for (const VarPtr& i : n->inputs())
        if (!memo_.count(i->id())) stack.push_back({i.get(), false});
      continue;
    }
    std::vector<std::vector<DimId>> outs = compute(*var);
    // Static knowledge wins; an op whose rule and type disagree on the rank keeps the type.
    auto settle = [&](const Variable& out, std::vector<DimId> d) {
      const Type& t = out.type();
      if (static_cast<int>(d.size()) != t.ndim()) d = from_type(out);
      for (int a = 0; a < t.ndim(); ++a)
        if (t.shape[a] != kUnknownDim) d[a] = constant(t.shape[a]);
      memo_[out.id()] = std::move(d);
    };
    if (!n) {
      settle(*var, std::move(outs[0]));
      continue;
    }
    TGC_INTERNAL_CHECK(static_cast<int>(outs.size()) == n->num_outputs(),
                       "shape equivalence: wrong number of output shapes for " + n->op().name());
    for (int i = 0; i < n->num_outputs(); ++i) settle(*n->output_raw(i), std::move(outs[i]));
  }
  return memo_.at(v.id());
}

bool ShapeEquivalence::same_shape(const Variable& a, const Variable& b) {
  if (a.type().ndim() != b.type().ndim()) return false;
  const std::vector<DimId> da = dims(a);  // a copy: dims(b) may rehash the memo
  return da == dims(b);
}

}  // namespace tgc
