// Public API: symbolic differentiation — grad (Theano's T.grad), stop_gradient, Lop,
// jacobian and hessian for small cases, and verify_grad, the numeric check of a gradient.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <tgc/var.h>

#include "compiler/grad.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// d cost / d w for each w in wrt (inputs, shared variables or intermediate results), as
// ordinary Vars to compile with function(). cost must be a 0-d float Var. Options (see
// GradOptions): disconnected_inputs, known_grads and consider_constant, given as VarPtrs
// (x.ptr()). Each gradient has its variable's dtype and rank.
std::vector<Var> grad(const Var& cost, const std::vector<Var>& wrt, const GradOptions& options = {});
Var grad(const Var& cost, const Var& wrt, const GradOptions& options = {});

// x itself when evaluated; grad() treats it as a constant (no gradient flows into x).
Var stop_gradient(const Var& x);

// Theano's Lop: the vector-Jacobian product v^T (d f / d w) for each w, v of f's type.
std::vector<Var> Lop(const Var& f, const std::vector<Var>& wrt, const Var& v);

// J[i, ...] = d y[i] / d x, of shape (n,) + x's shape, for a vector y whose length n is
// known statically (one gradient per element: meant for small n). A 0-d y gives grad(y, x).
Var jacobian(const Var& y, const Var& x, const GradOptions& options = {});
// The matrix of second derivatives of a 0-d cost w.r.t. a vector x of static length:
// jacobian(grad(cost, x), x).
Var hessian(const Var& cost, const Var& x, const GradOptions& options = {});

struct VerifyGradOptions {
  uint64_t seed = 42;   // of the random projection
  double eps = 1e-6;    // central-difference step
  // An element passes when |analytic - numeric| <= atol + rtol * max(|analytic|, |numeric|).
  double rtol = 1e-5;
  double atol = 1e-6;
};

// Checks fn's gradient numerically (Theano's verify_grad). `points` are float64 tensors,
// one per argument of fn; fn builds a float64 expression from float64 symbolic inputs of
// the points' ranks. With a fixed random projection P of the output's shape, the symbolic
// gradient of cost = sum(fn(x) * P) at the points is compared element by element with
// central differences (cost(x + eps e_j) - cost(x - eps e_j)) / 2 eps. Throws ValueError
// naming the input, the element, both values and the largest error when they disagree.
void verify_grad(const std::function<Var(const std::vector<Var>&)>& fn, const std::vector<Tensor>& points,
                 const VerifyGradOptions& options = {});

TGC_API_END
}  // namespace tgc
