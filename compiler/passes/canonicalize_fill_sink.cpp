// canonicalize's fill-sinking rules (after Theano's local_fill_sink): a broadcast of a value
// — fill(like, v) or alloc(v, shape) — moves past the unary elementwise ops and DimShuffles
// that read it, towards a reader whose own broadcast makes it useless (fill_into_elemwise,
// useless_fill). A gradient's fill under a negation or a transpose (the mean's 1/n in
// -mean(...), sum(..., axis=1)'s DimShuffle{0,x}) reaches the product that broadcasts it
// anyway. Elementwise ops commute with broadcasting, so each rule is exact. A sum of an alloc
// of a 0-d value is the value times the count it sums (sum_of_alloc): the count of elements a
// batch norm divides by, written sum(ones_like(x), axes), is a constant, not a tensor of ones
// filled and summed on every call.
#include "compiler/passes/canonicalize_rules.h"

#include <algorithm>

#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/reduce/careduce.h"
#include "ops/shape/dimshuffle.h"

namespace tgc::canon {

namespace {

const Type& out_type(const Node& n) { return n.output_raw(0)->type(); }

// Whether moving the fill or alloc computing `v` past one of its readers duplicates nothing:
// it has no other reader, or its value is a constant (the reader's op on it folds). A shared
// fill of a computed value sunk into each reader would compute the value's ops in a kernel
// of their own (1/n and -1/n of logreg's mean, read by two products).
bool sinks_alone(const Variable& v, const RewriteEnv& env) {
  const Node* f = v.owner();
  const VarPtr& value = f->inputs()[dynamic_cast<const Fill*>(&f->op()) ? 1 : 0];
  return env.graph.num_uses(&v) == 1 || value->kind() == Variable::Kind::Constant;
}

}  // namespace

std::vector<VarPtr> fill_sink(Node& n, const RewriteEnv& env) {
  // Unary ops only: a binary reader either drops the fill itself (fill_into_elemwise, where
  // its other operand gives the shape) or would only carry it on, splitting the kernel that
  // reads the fill's like into one per reader.
  const auto* e = dynamic_cast<const Elemwise*>(&n.op());
  if (!e || e->inplace_input(0) >= 0 || n.num_outputs() != 1 || n.inputs().size() != 1) return {};
  const Node* f = n.inputs()[0]->owner();
  if (!f || (!dynamic_cast<const Fill*>(&f->op()) && !dynamic_cast<const Alloc*>(&f->op()))) return {};
  if (!sinks_alone(*n.inputs()[0], env)) return {};
  VarPtr out;
  if (dynamic_cast<const Fill*>(&f->op()))
    out = apply1(std::make_shared<Fill>(), {f->inputs()[0], apply1(n.op_ptr(), {f->inputs()[1]})});
  else if (const auto* alloc = dynamic_cast<const Alloc*>(&f->op()))
    out = apply1(std::make_shared<Alloc>(alloc->shape()), {apply1(n.op_ptr(), {f->inputs()[0]})});
  if (!out || !interchangeable(out_type(n), out->type())) return {};
  return {out};
}

std::vector<VarPtr> fill_fill(Node& n, const RewriteEnv& env) {
  if (!dynamic_cast<const Fill*>(&n.op())) return {};
  const Node* inner = n.inputs()[1]->owner();
  if (!inner || !dynamic_cast<const Fill*>(&inner->op())) return {};
  const VarPtr& like = n.inputs()[0];
  const VarPtr& v = inner->inputs()[1];
  // The inner like must add nothing to the broadcast of the outer like and the value.
  const std::vector<DimId> a = env.shapes.dims(*like), b = env.shapes.dims(*v);
  if (env.shapes.broadcast({&a, &b}) != env.shapes.dims(*n.output_raw(0))) return {};
  VarPtr out = apply1(std::make_shared<Fill>(), {like, v});
  if (!interchangeable(out_type(n), out->type())) return {};
  return {out};
}

std::vector<VarPtr> dimshuffle_fill_sink(Node& n, const RewriteEnv& env) {
  const auto* ds = dynamic_cast<const DimShuffle*>(&n.op());
  const Node* f = n.inputs()[0]->owner();
  if (!ds || !f) return {};
  if ((dynamic_cast<const Fill*>(&f->op()) || dynamic_cast<const Alloc*>(&f->op())) && !sinks_alone(*n.inputs()[0], env))
    return {};
  if (dynamic_cast<const Fill*>(&f->op())) {
    // With a 0-d value the fill has like's shape, and the DimShuffle can act on like (a view).
    const VarPtr& like = f->inputs()[0];
    const VarPtr& v = f->inputs()[1];
    if (v->type().ndim() != 0 || like->type().ndim() != n.inputs()[0]->type().ndim()) return {};
    VarPtr out = apply1(std::make_shared<Fill>(), {apply1(n.op_ptr(), {like}), v});
    if (!interchangeable(out_type(n), out->type())) return {};
    return {out};
  }
  if (const auto* alloc = dynamic_cast<const Alloc*>(&f->op())) {
    const VarPtr& v = f->inputs()[0];
    if (v->type().ndim() != 0) return {};
    Shape shape;
    for (int axis : ds->pattern()) shape.push_back(axis < 0 ? 1 : alloc->shape()[axis]);
    VarPtr out = apply1(std::make_shared<Alloc>(std::move(shape)), {v});
    if (!interchangeable(out_type(n), out->type())) return {};
    return {out};
  }
  return {};
}

std::vector<VarPtr> sum_of_alloc(Node& n, const RewriteEnv& env) {
  (void)env;
  const auto* r = dynamic_cast<const CAReduce*>(&n.op());
  const Node* f = n.inputs()[0]->owner();
  if (!r || r->kind() != ReduceKind::Sum || !f) return {};
  const auto* alloc = dynamic_cast<const Alloc*>(&f->op());
  if (!alloc) return {};
  const VarPtr& v = f->inputs()[0];
  if (v->type().ndim() != 0 || v->type().dtype != out_type(n).dtype || !is_float(v->type().dtype)) return {};
  // The count summed per output element, and the output's shape (keepdims keeps 1s).
  double count = 1;
  Shape shape;
  for (int d = 0; d < static_cast<int>(alloc->shape().size()); ++d) {
    const bool reduced = !r->axes() || std::find(r->axes()->begin(), r->axes()->end(), d) != r->axes()->end();
    if (reduced) count *= static_cast<double>(alloc->shape()[static_cast<size_t>(d)]);
    if (!reduced) shape.push_back(alloc->shape()[static_cast<size_t>(d)]);
    else if (r->keepdims()) shape.push_back(1);
  }
  VarPtr times = apply1(std::make_shared<Elemwise>(ScalarOpKind::Mul),
                        {v, Variable::constant(Tensor::full(v->type().dtype, Shape{}, count))});
  VarPtr out = apply1(std::make_shared<Alloc>(std::move(shape)), {times});
  if (!interchangeable(out_type(n), out->type())) return {};
  return {out};
}

}  // namespace tgc::canon
