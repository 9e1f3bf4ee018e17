// verify_grad: Theano's numeric gradient check. The symbolic gradient of sum(fn(x) * P)
// comes from grad() with known_grads {fn(x): P}, so the check relies on the rules of the
// ops inside fn only (not on mul's or sum's); the numeric one from central differences.
#include <fmt/format.h>
#include <tgc/function.h>
#include <tgc/grad.h>

#include <cmath>

#include "runtime/error.h"
#include "runtime/random.h"

namespace tgc {

namespace {

// "(1, 2)": the C-order multi-index of flat position `flat` in `shape`.
std::string index_str(int64_t flat, const Shape& shape) {
  Shape index(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return shape_str(index);
}

// sum(y * p) for a float64 y and a contiguous float64 p of the same shape.
double project(const Tensor& y, const Tensor& p) {
  Tensor yc = y.contiguous();
  const double* a = yc.data<double>();
  const double* b = p.data<double>();
  double s = 0;
  for (int64_t i = 0; i < yc.numel(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

void verify_grad(const std::function<Var(const std::vector<Var>&)>& fn, const std::vector<Tensor>& points,
                 const VerifyGradOptions& options) {
  if (points.empty()) throw ValueError("verify_grad: no points given", "verify_grad()", "pass one tensor per argument of fn");
  std::vector<Var> xs;
  for (size_t i = 0; i < points.size(); ++i) {
    if (!points[i].defined() || points[i].dtype() != DType::Float64)
      throw TypeError(fmt::format("verify_grad: point {} must be a float64 tensor, got {}", i,
                                  points[i].defined() ? dtype_name(points[i].dtype()) : "an undefined tensor"),
                      "verify_grad()", "convert it with .astype(DType::Float64)");
    xs.push_back(tensor(fmt::format("x{}", i), DType::Float64, std::vector<int64_t>(points[i].ndim(), kUnknownDim)));
  }
  Var out = fn(xs);
  if (!out.defined() || out.dtype() != DType::Float64)
    throw TypeError(fmt::format("verify_grad: fn must return a float64 expression, got {}",
                                out.defined() ? out.type().str() : "an undefined Var"),
                    "verify_grad()", "the numeric check works in float64: build fn's result from its float64 inputs");

  Function f = function(xs, {out});
  Tensor y0 = f(points)[0];
  RandomState rng(static_cast<int64_t>(options.seed % 4294967296ULL));
  Tensor proj = rng.rand(y0.shape());

  GradOptions go;
  go.disconnected_inputs = DisconnectedInputs::Ignore;  // an unused input: zero, checked like the rest
  go.known_grads.emplace_back(out.ptr(), constant(proj).ptr());
  std::vector<VarPtr> g = grad(nullptr, to_ptrs(xs), go);
  std::vector<Var> gvars(g.begin(), g.end());
  Function df = function(xs, gvars);
  std::vector<Tensor> analytic = df(points);

  std::vector<Tensor> args(points.size());
  for (size_t i = 0; i < points.size(); ++i) args[i] = points[i].copy();

  double max_abs = 0, max_rel = 0, worst = 0;  // worst: error / tolerance, > 1 fails
  std::string report;
  for (size_t i = 0; i < points.size(); ++i) {
    if (analytic[i].shape() != points[i].shape())
      throw ValueError(fmt::format("verify_grad: the gradient of input {} has shape {}, the input {}", i,
                                   shape_str(analytic[i].shape()), shape_str(points[i].shape())),
                       "verify_grad()", "a gradient rule returned a wrongly shaped result");
    Tensor a = analytic[i].contiguous();
    double* x = args[i].data<double>();
    for (int64_t j = 0; j < args[i].numel(); ++j) {
      const double saved = x[j];
      x[j] = saved + options.eps;
      double plus = project(f(args)[0], proj);
      x[j] = saved - options.eps;
      double minus = project(f(args)[0], proj);
      x[j] = saved;
      double numeric = (plus - minus) / (2 * options.eps);
      double an = a.data<double>()[j];
      double err = std::abs(an - numeric);
      double scale = std::max(std::abs(an), std::abs(numeric));
      max_abs = std::max(max_abs, err);
      if (scale > 0) max_rel = std::max(max_rel, err / scale);
      double ratio = err / (options.atol + options.rtol * scale);
      if (std::isnan(an) != std::isnan(numeric) || (!std::isnan(err) && ratio > 1 && ratio > worst)) {
        worst = std::isnan(ratio) ? INFINITY : ratio;
        report = fmt::format("input {} element {}: analytic {:.10g}, numeric {:.10g}", i,
                             index_str(j, points[i].shape()), an, numeric);
      }
    }
  }
  if (!report.empty())
    throw ValueError(fmt::format("verify_grad: the gradient disagrees with central differences at {} "
                                 "(max abs error {:.3g}, max rel error {:.3g}; rtol {}, atol {}, eps {})",
                                 report, max_abs, max_rel, options.rtol, options.atol, options.eps),
                     "verify_grad()", "the gradient rule of an op in fn is wrong (or eps is too large for "
                                      "a function this curved)");
}

}  // namespace tgc
