// Frontend API: creation functions, built from Alloc, Fill, Arange and Eye.
#include <tgc/creation.h>

#include <cmath>

#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/eye.h"
#include "ops/core/apply.h"

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

Var eye(int64_t n, std::optional<int64_t> m, int64_t k, std::optional<DType> dtype) {
  return Var(apply1(std::make_shared<Eye>(n, m.value_or(n), k, dtype.value_or(floatX())), {}));
}

}  // namespace tgc
