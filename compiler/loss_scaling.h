// Dynamic loss scaling for mixed_precision=float16 (docs/precision.md): float16's smallest
// normal value is 6e-5, so small gradients cast to float16 for the backward pass's products
// would flush to zero. The backward pass grad() built is scaled instead: its seed d cost /
// d cost = 1 becomes the loss scale S (a float32 shared variable, 2^16 to start), every
// gradient grad() returned is divided by S again in float32, and a step whose unscaled
// gradients hold an inf or NaN (S too large) is skipped — every update of the function keeps
// its variable's value — and halves S; after 2000 finite steps in a row S doubles (PyTorch's
// GradScaler's defaults). All of it is graph: it runs inside the recorded call.
//
// grad() records each backward pass it builds (its seed and its results); the frontend's
// function() asks for the scaling of the outputs and updates it compiles.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "ops/core/variable.h"

namespace tgc {

// Called by grad(): `seed` (the constant 1 the backward pass starts from) and the gradients it
// returned. Kept as weak references; a graph that no longer exists is forgotten.
void record_backward_pass(const VarPtr& seed, const std::vector<VarPtr>& gradients);

inline constexpr double kInitialLossScale = 65536.0;
inline constexpr int kLossScaleGrowthInterval = 2000;

struct LossScaled {
  // The function's outputs and update values, rewritten (same order and types).
  std::vector<VarPtr> outs;
  // Two more updates: the scale and its count of finite steps.
  std::vector<std::pair<VarPtr, VarPtr>> state_updates;
};

// `outs`: the function's outputs, then the new values of `update_targets` (shared variables,
// from index first_update on). nullopt when no recorded backward pass is reachable from them
// (nothing to scale).
std::optional<LossScaled> apply_loss_scaling(const std::vector<VarPtr>& outs, size_t first_update,
                                             const std::vector<VarPtr>& update_targets);

}  // namespace tgc
