// Frontend API: concatenate, stack and split, built from the join ops.
#include <tgc/join.h>

#include <fmt/format.h>

#include "ops/core/apply.h"
#include "ops/join/join.h"
#include "ops/join/split.h"

namespace tgc {

namespace {

// The axis in canonical (non-negative) form, so equal calls build equal ops; the ops
// report a bad axis themselves, with the user's names.
int canonical_axis(int axis, int ndim) { return axis < 0 && axis >= -ndim ? axis + ndim : axis; }

}  // namespace

Var concatenate(const std::vector<Var>& xs, int axis) {
  std::vector<VarPtr> in = to_ptrs(xs);
  if (!in.empty()) axis = canonical_axis(axis, in[0]->type().ndim());
  return Var(apply1(std::make_shared<Concatenate>(axis), std::move(in)));
}

Var stack(const std::vector<Var>& xs, int axis) {
  std::vector<VarPtr> in = to_ptrs(xs);
  if (!in.empty()) axis = canonical_axis(axis, in[0]->type().ndim() + 1);
  return Var(apply1(std::make_shared<Stack>(axis), std::move(in)));
}

std::vector<Var> split(const Var& x, const std::vector<int64_t>& sizes, int axis) {
  std::vector<VarPtr> in{checked_ptr(x)};
  axis = canonical_axis(axis, in[0]->type().ndim());
  std::vector<Var> out;
  for (VarPtr& v : tgc::apply(std::make_shared<Split>(axis, sizes), std::move(in))) out.emplace_back(std::move(v));
  return out;
}

}  // namespace tgc
