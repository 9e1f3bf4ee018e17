// Graph-building helpers for gradient rules (see build.h): thin wrappers over apply() with
// Elemwise, Fill and SumToLike, so rule code reads like the derivative it writes down.
#include "ops/gradient/build.h"

#include "ops/alloc/alloc.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/gradient/sum_to_like.h"
#include "runtime/config.h"

namespace tgc::gradient {

VarPtr ew(ScalarOpKind kind, std::vector<VarPtr> inputs) {
  return apply1(std::make_shared<Elemwise>(kind, std::nullopt, global_config().floatX), std::move(inputs));
}

VarPtr add(const VarPtr& a, const VarPtr& b) { return ew(ScalarOpKind::Add, {a, b}); }
VarPtr sub(const VarPtr& a, const VarPtr& b) { return ew(ScalarOpKind::Sub, {a, b}); }
VarPtr mul(const VarPtr& a, const VarPtr& b) { return ew(ScalarOpKind::Mul, {a, b}); }
VarPtr div(const VarPtr& a, const VarPtr& b) { return ew(ScalarOpKind::TrueDiv, {a, b}); }
VarPtr neg(const VarPtr& a) { return ew(ScalarOpKind::Neg, {a}); }

VarPtr cast(const VarPtr& a, DType dtype) {
  if (a->type().dtype == dtype) return a;
  return apply1(std::make_shared<Elemwise>(ScalarOpKind::Cast, dtype, global_config().floatX), {a});
}

VarPtr scalar_like(double value, const VarPtr& like) {
  return Variable::constant(Tensor::full(like->type().dtype, Shape{}, value));
}

VarPtr zeros_like(const VarPtr& like) {
  return apply1(std::make_shared<Fill>(), {like, scalar_like(0.0, like)});
}

VarPtr ones_like(const VarPtr& like) {
  return apply1(std::make_shared<Fill>(), {like, scalar_like(1.0, like)});
}

namespace {

// Whether g, of the same rank as like, certainly has like's runtime shape: along every dim
// either like's size is known and not 1 (so g's must equal it), or g's is known to be 1.
bool surely_same_shape(const Type& g, const Type& like) {
  if (g.ndim() != like.ndim()) return false;
  for (int d = 0; d < g.ndim(); ++d) {
    int64_t l = like.shape[d], s = g.shape[d];
    if (s == 1) continue;
    if (l == kUnknownDim || l == 1) return false;
  }
  return true;
}

}  // namespace

VarPtr sum_to_like(const VarPtr& g, const VarPtr& like) {
  if (!g || !is_float(like->type().dtype)) return nullptr;
  VarPtr summed = surely_same_shape(g->type(), like->type())
                      ? g
                      : apply1(std::make_shared<SumToLike>(), {g, like});
  return cast(summed, like->type().dtype);
}

}  // namespace tgc::gradient
