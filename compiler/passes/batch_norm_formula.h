// Batch normalization's ops (ops/norm/batch_norm.h) written out as reductions over every axis
// but the channel one and elementwise ops on (C,) vectors laid along it. decompose_for_fusion
// replaces the ops by these on every backend (fusion then makes kernels of them), and the
// data-parallel rank graphs distribute them (compiler/data_parallel.cpp: the batch's
// reductions become all-reduced partial sums, so every rank normalizes by the whole batch).
#pragma once

#include <vector>

#include "ops/core/variable.h"
#include "ops/norm/batch_norm.h"

namespace tgc {

// (y, mean, var) of a batch norm over `channel_axis` of inputs (x, gamma, beta): mean =
// mean(x), var = mean((x - mean)^2), y = (x - mean) * (gamma * rsqrt(var + epsilon)) + beta.
// Two passes for the statistics: the variance of the centred values, which a one-pass sum of
// squares would lose to cancellation. BatchNormTraining's formula, and the frontend's for
// operands BatchNormTraining does not take (mixed or half dtypes: the ops promote them, an
// integer x's mean to `floatx`).
std::vector<VarPtr> batch_norm_training_formula(int channel_axis, double epsilon, const std::vector<VarPtr>& inputs,
                                                DType floatx);

// (dx, dgamma, dbeta) of BatchNormGrad on inputs (x, dy, gamma, mean, var): with invstd =
// rsqrt(var + eps) and xhat = (x - mean) * invstd, dbeta = sum(dy), dgamma = sum(dy * xhat) (one
// multi-output reduction kernel reading x and dy once), dx = gamma * invstd * (dy - dbeta / n -
// xhat * dgamma / n) (one elementwise kernel), n the count of reduced elements.
std::vector<VarPtr> batch_norm_grad_formula(const BatchNormGrad& op, const std::vector<VarPtr>& inputs);

}  // namespace tgc
