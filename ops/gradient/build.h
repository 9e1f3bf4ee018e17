// Graph-building helpers for gradient rules: the few expressions every rule needs (elementwise
// math, constants like a variable, reducing a broadcast gradient back to an input's shape),
// so rules read like the math they implement.
#pragma once

#include <vector>

#include "ops/core/variable.h"
#include "ops/elemwise/scalar_op.h"

namespace tgc::gradient {

// An Elemwise node of `kind` over `inputs` (floatX taken from the global config).
VarPtr ew(ScalarOpKind kind, std::vector<VarPtr> inputs);
VarPtr add(const VarPtr& a, const VarPtr& b);
VarPtr sub(const VarPtr& a, const VarPtr& b);
VarPtr mul(const VarPtr& a, const VarPtr& b);
VarPtr div(const VarPtr& a, const VarPtr& b);
VarPtr neg(const VarPtr& a);
VarPtr cast(const VarPtr& a, DType dtype);  // `a` itself when it already has `dtype`
// A 0-d constant of `like`'s dtype (broadcasts against anything).
VarPtr scalar_like(double value, const VarPtr& like);
// zeros / ones with like's runtime shape and dtype.
VarPtr zeros_like(const VarPtr& like);
VarPtr ones_like(const VarPtr& like);
// Sums `g` (the gradient of a broadcast result) back to the runtime shape of `like`: over
// leading dims `like` lacks and over dims where `like` has size 1 and `g` does not; then
// casts to like's dtype. The identity (returns g, cast) when the static types show that no
// dim was broadcast. Null when g is null or `like` is not a float tensor (integer and bool
// inputs get no gradient), so rules may call it for every input.
VarPtr sum_to_like(const VarPtr& g, const VarPtr& like);

}  // namespace tgc::gradient
