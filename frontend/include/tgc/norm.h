// Public API: batch normalization (Theano's batch_normalization_train / _test, PyTorch's
// BatchNorm2d), per channel over (N, C) or rank-4 activations of either layout. The training
// form is an op whose gradient is the two-pass formula libraries use (ops/norm/batch_norm.h);
// the optimizer writes both out as reductions and elementwise ops, so they fuse with their
// neighbours and run on every backend. The inference form is elementwise ops. See docs/conv.md.
#pragma once

#include <tgc/function.h>
#include <tgc/var.h>

#include "ops/conv/conv_params.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

struct BatchNormOptions {
  ConvLayout layout = ConvLayout::NCHW;  // rank 4: which axis holds the channels; rank 2: (N, C)
  double epsilon = 1e-5;
  // PyTorch's rule: running = (1 - momentum) * running + momentum * batch statistic, the
  // variance's statistic unbiased (n / (n - 1)).
  double momentum = 0.1;
};

struct BatchNormTrain {
  Var y;           // gamma * (x - mean) / sqrt(var + epsilon) + beta
  Var mean, var;   // the batch statistics, shape (C,), var biased (as normalization uses it)
  Updates updates; // running_mean and running_var moved towards the batch statistics
};

// The training form: normalizes by the batch's statistics; gamma, beta, the running
// statistics are (C,) vectors. Pass `updates` to function() to keep the running statistics.
BatchNormTrain batch_normalization_train(const Var& x, const Var& gamma, const Var& beta, const Shared& running_mean,
                                         const Shared& running_var, const BatchNormOptions& options = {});
// The inference form: normalizes by given statistics (the running ones, usually).
Var batch_normalization_test(const Var& x, const Var& gamma, const Var& beta, const Var& mean, const Var& var,
                             const BatchNormOptions& options = {});

TGC_API_END
}  // namespace tgc
