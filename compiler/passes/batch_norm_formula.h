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

// The same (y, mean, var) for BatchNormTraining's float32 or float64 x with the statistics in
// one pass over x: with k each channel's first element (0 in an empty batch), the sums of d =
// x - k and of d^2, in float64 (one multi-output reduction kernel reading x once; the
// two-pass formula reads it twice), mean = k + sum(d) / n, var = max(sum(d^2) / n - (sum(d) /
// n)^2, 0). A plain sum of squares loses the variance to cancellation when |mean| >> std; the
// shift brings the mean within a few standard deviations of 0 (the error is then float64's
// rounding times the sums' length, far below float32's), and the exact float64 differences
// keep float32 data from rounding before the sums. decompose_for_fusion's rule for
// BatchNormTraining; the data-parallel rank graphs keep the two-pass formula (each rank's k
// would differ).
std::vector<VarPtr> batch_norm_training_one_pass(const BatchNormTraining& op, const std::vector<VarPtr>& inputs);

// (dx, dgamma, dbeta) of BatchNormGrad on inputs (x, dy, gamma, mean, var): with invstd =
// rsqrt(var + eps) and xhat = (x - mean) * invstd, dbeta = sum(dy), dgamma = sum(dy * xhat) (one
// multi-output reduction kernel reading x and dy once), dx = gamma * invstd * (dy - dbeta / n -
// xhat * dgamma / n) (one elementwise kernel), n the count of reduced elements.
std::vector<VarPtr> batch_norm_grad_formula(const BatchNormGrad& op, const std::vector<VarPtr>& inputs);

}  // namespace tgc
