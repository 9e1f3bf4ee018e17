// Frontend API: creation functions, built from Alloc, Fill, Arange, ArangeLike and Eye.
#include <tgc/creation.h>

#include <cmath>

#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/arange_like.h"
#include "ops/alloc/eye.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/shape/shape_of.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {

Var alloc(const Var& value, const std::vector<int64_t>& shape) {
  return Var(apply1(std::make_shared<Alloc>(shape), to_ptrs({value})));
}

Var zeros(const std::vector<int64_t>& shape, std::optional<DType> dtype) {
  return alloc(constant(0.0, dtype.value_or(floatX())), shape);
}

Var ones(const std::vector<int64_t>& shape, std::optional<DType> dtype) {
  return alloc(constant(1.0, dtype.value_or(floatX())), shape);
}

Var fill(const Var& like, const Var& value) {
  return Var(apply1(std::make_shared<Fill>(), to_ptrs({like, value})));
}

Var zeros_like(const Var& x) { return fill(x, constant(0.0, checked_ptr(x)->type().dtype)); }
Var ones_like(const Var& x) { return fill(x, constant(1.0, checked_ptr(x)->type().dtype)); }

Var arange(double start, double stop, double step, std::optional<DType> dtype) {
  auto whole = [](double v) { return std::isfinite(v) && v == std::trunc(v); };
  DType t = dtype.value_or(whole(start) && whole(stop) && whole(step) ? DType::Int64 : floatX());
  return Var(apply1(std::make_shared<Arange>(start, stop, step, t), {}));
}

Var arange(double stop) { return arange(0, stop, 1); }

Var arange(const Var& stop) {
  // The one symbolic stop tgc's static-size ops can take: a dim of a tensor, shape_of(x)[i].
  const VarPtr& v = checked_ptr(stop);
  const Node* pick = v->owner();
  const auto* sub = pick ? dynamic_cast<const Subtensor*>(&pick->op()) : nullptr;
  const Node* shape = sub ? pick->inputs()[0]->owner() : nullptr;
  if (!sub || sub->spec().entries.size() != 1 || sub->spec().entries[0].kind != IndexEntry::Kind::Int || !shape ||
      !dynamic_cast<const ShapeOf*>(&shape->op()))
    throw TypeError("arange of a symbolic stop (" + v->label() + ") that is not a dim of a tensor", "arange",
                    "a symbolic stop must be shape_of(x)[i] (x.shape[i] in Python): the indices of x's axis i; "
                    "other sizes are numbers");
  const VarPtr& x = shape->inputs()[0];
  const int ndim = x->type().ndim();
  const int64_t i = sub->spec().entries[0].index;
  const int axis = static_cast<int>(i < 0 ? i + ndim : i);  // Subtensor checked the range
  return Var(apply1(std::make_shared<ArangeLike>(axis), {x}));
}

Var eye(int64_t n, std::optional<int64_t> m, int64_t k, std::optional<DType> dtype) {
  return Var(apply1(std::make_shared<Eye>(n, m.value_or(n), k, dtype.value_or(floatX())), {}));
}

}  // namespace tgc
