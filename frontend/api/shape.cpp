// Frontend API: shape manipulation, built from the Reshape, Flatten, DimShuffle and ShapeOf ops.
#include <tgc/shape.h>

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/api/call_site.h"
#include "ops/core/apply.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "ops/shape/shape_of.h"

namespace tgc {

namespace {

std::string call(const char* fn, const Var& x) { return fmt::format("{}({})", fn, x.ptr()->label()); }

}  // namespace

Var reshape(const Var& x, const std::vector<int64_t>& shape) {
  return Var(apply1(std::make_shared<Reshape>(shape), {checked_ptr(x)}));
}

Var flatten(const Var& x, int ndim) { return Var(apply1(std::make_shared<Flatten>(ndim), {checked_ptr(x)})); }

Var shape_of(const Var& x) { return Var(apply1(std::make_shared<ShapeOf>(), {checked_ptr(x)})); }

Var dimshuffle(const Var& x, const std::vector<int>& pattern) {
  return Var(apply1(std::make_shared<DimShuffle>(pattern), {checked_ptr(x)}));
}

Var transpose(const Var& x, const std::vector<int>& perm) {
  const int nd = checked_ptr(x)->type().ndim();
  std::vector<int> pattern(nd);
  if (perm.empty()) {
    std::iota(pattern.rbegin(), pattern.rend(), 0);
  } else {
    if (static_cast<int>(perm.size()) != nd)
      throw ShapeError(fmt::format("transpose: axes [{}] do not match a {}-d tensor", fmt::join(perm, ", "), nd),
                       call("transpose", x), fmt::format("give a permutation of all {} axes", nd));
    std::vector<bool> seen(nd, false);
    for (int i = 0; i < nd; ++i) {
      const int a = at_call(call("transpose", x), [&] { return normalize_axis(perm[i], nd, "transpose"); });
      if (seen[a])
        throw ShapeError(fmt::format("transpose: axis {} repeated in [{}]", perm[i], fmt::join(perm, ", ")),
                         call("transpose", x), "give each axis exactly once");
      seen[a] = true;
      pattern[i] = a;
    }
  }
  return Var(apply1(std::make_shared<DimShuffle>(pattern, "transpose"), {x.ptr()}));
}

Var squeeze(const Var& x, Axes axes) {
  const Type& t = checked_ptr(x)->type();
  std::vector<bool> drop(t.ndim(), false);
  if (!axes.axes) {
    for (int a = 0; a < t.ndim(); ++a) drop[a] = t.shape[a] == 1;
  } else {
    for (int a : *axes.axes) {
      const int n = at_call(call("squeeze", x), [&] { return normalize_axis(a, t.ndim(), "squeeze"); });
      if (t.shape[n] != kUnknownDim && t.shape[n] != 1)
        throw ShapeError(fmt::format("squeeze: cannot select an axis to squeeze out which has size not equal to "
                                     "one: axis {} of {}",
                                     a, t.str()),
                         call("squeeze", x), "only axes of size 1 can be squeezed");
      drop[n] = true;
    }
  }
  std::vector<int> pattern;
  for (int a = 0; a < t.ndim(); ++a)
    if (!drop[a]) pattern.push_back(a);
  return Var(apply1(std::make_shared<DimShuffle>(pattern, "squeeze"), {x.ptr()}));
}

Var expand_dims(const Var& x, int axis) {
  const int nd = checked_ptr(x)->type().ndim();
  const int a = at_call(call("expand_dims", x), [&] { return normalize_axis(axis, nd + 1, "expand_dims"); });
  std::vector<int> pattern;
  for (int i = 0; i < nd; ++i) pattern.push_back(i);
  pattern.insert(pattern.begin() + a, -1);
  return Var(apply1(std::make_shared<DimShuffle>(pattern, "expand_dims"), {x.ptr()}));
}

Var Var::T() const { return tgc::transpose(*this); }
Var Var::transpose(const std::vector<int>& perm) const { return tgc::transpose(*this, perm); }
Var Var::reshape(const std::vector<int64_t>& shape) const { return tgc::reshape(*this, shape); }
Var Var::flatten(int ndim) const { return tgc::flatten(*this, ndim); }
Var Var::dimshuffle(const std::vector<int>& pattern) const { return tgc::dimshuffle(*this, pattern); }

}  // namespace tgc
