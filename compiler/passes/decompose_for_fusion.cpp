// The decompose_for_fusion rule table: softmax, log_softmax and logsumexp as stable
// max/sum reductions with elementwise prologues and epilogues, and outer as a broadcast
// multiply.
#include "compiler/passes/decompose_for_fusion.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "compiler/passes/batch_norm_formula.h"
#include "compiler/passes/stabilize_patterns.h"
#include "ops/blas/dot.h"
#include "ops/blas/gemm.h"
#include "ops/join/join.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/blas/outer.h"
#include "ops/core/apply.h"
#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/logsumexp.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/careduce.h"
#include "ops/shape/dimshuffle.h"

namespace tgc {

namespace {

using stabilize_patterns::Builder;
using stabilize_patterns::replace_with;
using K = ScalarOpKind;
using Rewrite = std::vector<VarPtr>;

// Where the softmax family is decomposed: only on a GPU device, where it turns host ops
// between transfers into device kernels. On device=cpu the ops' own evaluation (in double)
// was as fast or faster than the fused LLVM kernels of the decomposition (2 loaded cores,
// median ms): the MLP step of benchmarks/compare (784-512-10, batch 256) 23.9-25.1 with the
// op vs 24.0-24.6 decomposed (the gemms dominate), its softmax cross-entropy with gradient
// alone 0.068 vs 0.094, and at 2048x1000 logits 100-104 vs 163-164. So the CPU keeps the ops.
constexpr bool kSoftmaxOnCpu = false;

// Whether the function runs on a GPU: the rules that exist because a device kernel or library
// lacks a form (integer BLAS, mixed dtypes) apply only there.
bool on_a_gpu(const RewriteEnv& env) { return env.ctx.placement.device != DeviceKind::Host; }

// Whether the device backend runs `node` itself (a GPU's row kernels: one block per row,
// backends/gpu/row_rules.h): then the op stays whole.
bool device_runs(const Node& node, const RewriteEnv& env) {
  return on_a_gpu(env) && env.ctx.placement.runs_on_device && env.ctx.placement.runs_on_device(node);
}

// The largest matrix (elements) whose product with a vector a GPU runs as a reduction kernel of tgc's: about a
// launch's worth of reading at HBM bandwidth (4 MiB of float32 take ~1.3 us on an H100), so
// the product is bound by its launch, and one launch fewer is what counts. Beyond it the
// library's gemv, tuned per GPU, keeps the product.
constexpr int64_t kGemvAsReductionMaxElements = int64_t{1} << 20;

// The softmax family is written out on a GPU whose backend does not run the node (an integer
// input, which the op promotes; a backend without row kernels), never on the host.
bool softmax_family_applies(const Node& node, const RewriteEnv& env) {
  return (kSoftmaxOnCpu || on_a_gpu(env)) && !device_runs(node, env);
}

VarPtr constant_like(double value, const VarPtr& like) {
  return Variable::constant(Tensor::full(like->type().dtype, Shape{}, value));
}

// The row sums, keeping the folded axes so they broadcast back over the rows.
VarPtr row_sum(const VarPtr& x, const ReduceAxes& axes) {
  return apply1(std::make_shared<CAReduce>(ReduceKind::Sum, axes, /*keepdims=*/true), {x});
}

// The row maxima, -inf for an empty row (as the ops' own shift starts): the op then gives
// its empty result or -inf (logsumexp of nothing) where a plain max would raise.
VarPtr row_max(const VarPtr& x, const ReduceAxes& axes) {
  return apply1(std::make_shared<CAReduce>(ReduceKind::Max, axes, /*keepdims=*/true, /*identity_when_empty=*/true),
                {x});
}

// The axis of softmax as a reduction (a 0-d input is its own row).
ReduceAxes row_axes(const VarPtr& x, int axis) {
  return x->type().ndim() == 0 ? ReduceAxes() : ReduceAxes(std::vector<int>{axis});
}

// The input as a float of the op's output dtype (the op promotes integers to floatX).
VarPtr as_output_float(const Builder& b, const Node& node) {
  return b.cast(node.inputs().at(0), node.output_raw(0)->type().dtype);
}

// SciPy's shift: the max where it is finite, else 0 (abs(NaN) < inf is false too).
VarPtr finite_shift(const Builder& b, const VarPtr& m) {
  VarPtr finite = b.ew(K::Lt, {b.ew(K::Abs, {m}), constant_like(std::numeric_limits<double>::infinity(), m)});
  return b.ew(K::Where, {finite, m, constant_like(0.0, m)});
}

// softmax(x) -> exp(x - max(x)) / sum(exp(x - max(x)))
Rewrite softmax_to_reductions(Node& node, const RewriteEnv& env) {
  auto* sm = dynamic_cast<const Softmax*>(&node.op());
  if (!sm || sm->log() || !softmax_family_applies(node, env)) return {};
  const VarPtr& in = node.inputs().at(0);
  const ReduceAxes axes = row_axes(in, sm->axis());
  Builder b(env.ctx.config.floatX);
  VarPtr x = as_output_float(b, node);
  VarPtr e = b.ew(K::Exp, {b.ew(K::Sub, {x, row_max(x, axes)})});
  return replace_with(node, b.ew(K::TrueDiv, {e, row_sum(e, axes)}));
}

// log_softmax(x) -> t - log(sum(exp(t))), t = x - finite(max(x))
Rewrite log_softmax_to_reductions(Node& node, const RewriteEnv& env) {
  auto* sm = dynamic_cast<const Softmax*>(&node.op());
  if (!sm || !sm->log() || !softmax_family_applies(node, env)) return {};
  const VarPtr& in = node.inputs().at(0);
  const ReduceAxes axes = row_axes(in, sm->axis());
  Builder b(env.ctx.config.floatX);
  VarPtr x = as_output_float(b, node);
  VarPtr t = b.ew(K::Sub, {x, finite_shift(b, row_max(x, axes))});
  VarPtr lse = b.ew(K::Log, {row_sum(b.ew(K::Exp, {t}), axes)});
  // (x - s) - lse, as perform rounds it. PyTorch's x - (s + lse) would let fusion put
  // exp(x - s) inside the sum's kernel (one kernel fewer: t is written out today because it
  // joins exp(t) as a sibling reading x), but rounds s + lse: for rows of 1000 in float32 an
  // error of 3e-5, far from the op's.
  return replace_with(node, b.ew(K::Sub, {t, lse}));
}

// logsumexp(x) -> log(sum(exp(x - s))) + s, s = finite(max(x)); keepdims=false drops the
// folded axes at the end
Rewrite logsumexp_to_reductions(Node& node, const RewriteEnv& env) {
  auto* op = dynamic_cast<const LogSumExp*>(&node.op());
  if (!op || !softmax_family_applies(node, env)) return {};
  const ReduceAxes& axes = op->axes();
  Builder b(env.ctx.config.floatX);
  VarPtr x = as_output_float(b, node);
  VarPtr s = finite_shift(b, row_max(x, axes));
  VarPtr sum = row_sum(b.ew(K::Exp, {b.ew(K::Sub, {x, s})}), axes);
  VarPtr lse = b.ew(K::Add, {b.ew(K::Log, {sum}), s});
  if (!op->keepdims()) {
    std::vector<int> kept;
    const int ndim = x->type().ndim();
    for (int d = 0; d < ndim; ++d) {
      bool folded = !axes.has_value();
      if (axes)
        for (int a : *axes) folded = folded || a == d;
      if (!folded) kept.push_back(d);
    }
    lse = apply1(std::make_shared<DimShuffle>(kept, "logsumexp"), {lse});
  }
  return replace_with(node, lse);
}

// log_softmax_grad(g, y) -> g - exp(y) * sum(g, axis, keepdims): the formula LogSoftmax's
// gradient was before it became an op, wherever no device row kernel runs it (the cpu too).
Rewrite log_softmax_grad_to_reductions(Node& node, const RewriteEnv& env) {
  auto* op = dynamic_cast<const LogSoftmaxGrad*>(&node.op());
  if (!op || device_runs(node, env)) return {};
  const VarPtr& g = node.inputs().at(0);
  const VarPtr& y = node.inputs().at(1);
  Builder b(env.ctx.config.floatX);
  VarPtr s = b.ew(K::Exp, {y});
  return replace_with(node, b.ew(K::Sub, {g, b.ew(K::Mul, {s, row_sum(g, row_axes(y, op->axis()))})}));
}

// Batch normalization's ops as their formulas (compiler/passes/batch_norm_formula.h): no
// backend runs them whole, so every device gets the fused kernels of the formulas.
Rewrite batch_norm_training_to_reductions(Node& node, const RewriteEnv& env) {
  auto* op = dynamic_cast<const BatchNormTraining*>(&node.op());
  if (!op || device_runs(node, env)) return {};
  return batch_norm_training_one_pass(*op, node.inputs());
}

Rewrite batch_norm_grad_to_reductions(Node& node, const RewriteEnv& env) {
  auto* op = dynamic_cast<const BatchNormGrad*>(&node.op());
  if (!op || device_runs(node, env)) return {};
  return batch_norm_grad_formula(*op, node.inputs());
}

// outer(x, y) -> x[:, None] * y for vectors: one elementwise kernel that writes what BLAS's
// ger would, and fuses with its readers (w - lr * outer(a, b) is one pass over w). Every
// device: there is no inner dimension for BLAS to block, so a library call buys nothing.
Rewrite outer_to_broadcast_mul(Node& node, const RewriteEnv& env) {
  if (!dynamic_cast<const Outer*>(&node.op())) return {};
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& y = node.inputs().at(1);
  if (x->type().ndim() != 1 || y->type().ndim() != 1) return {};
  Builder b(env.ctx.config.floatX);
  VarPtr column = apply1(std::make_shared<DimShuffle>(std::vector<int>{0, -1}, "outer"), {x});
  return replace_with(node, b.ew(K::Mul, {column, y}));
}

// dot(a, b) of integers -> sum(a' * b', inner axis) with a', b' broadcast views (GPU): BLAS
// has no integer routines, and as a reduction kernel whose prologue multiplies broadcast
// operands the product runs on the device (the loop space is M x K x N, K folded). Wrapping
// arithmetic makes it exact: the products and the int64 sum are congruent to the dot's
// own wrapping accumulation modulo 2^bits, and the cast back wraps as NumPy's does.
Rewrite integer_dot_to_reduction(Node& node, const RewriteEnv& env) {
  if (!dynamic_cast<const Dot*>(&node.op()) || !on_a_gpu(env)) return {};
  const DType out = node.output_raw(0)->type().dtype;
  if (!is_integer(out)) return {};
  Builder b(env.ctx.config.floatX);
  VarPtr x = b.cast(node.inputs().at(0), out), y = b.cast(node.inputs().at(1), out);
  const int xd = x->type().ndim(), yd = y->type().ndim();
  auto view = [](const VarPtr& v, std::vector<int> order) {
    return apply1(std::make_shared<DimShuffle>(std::move(order), "dot"), {v});
  };
  int inner = 0;  // the folded axis of the broadcast product
  if (xd == 2 && yd == 2) {  // (M,K,1) * (1,K,N), fold K
    x = view(x, {0, 1, -1});
    y = view(y, {-1, 0, 1});
    inner = 1;
  } else if (xd == 2 && yd == 1) {  // (M,K) * (1,K), fold K
    y = view(y, {-1, 0});
    inner = 1;
  } else if (xd == 1 && yd == 2) {  // (K,1) * (K,N), fold K
    x = view(x, {0, -1});
  } else if (xd != 1 || yd != 1) {
    return {};
  }
  VarPtr sum = apply1(std::make_shared<CAReduce>(ReduceKind::Sum, ReduceAxes(std::vector<int>{inner}), false),
                      {b.ew(K::Mul, {x, y})});
  return replace_with(node, b.cast(sum, out));
}

// A matrix-vector product: alpha * op(a) @ x + beta * c, op transposing where `trans`; c,
// alpha and beta null for a plain dot.
struct MatVec {
  VarPtr a, x, c, alpha, beta;
  bool trans = false;
};

// The product `node` computes, where matvec_to_reduction applies to it: a Gemv, or a dot of
// a matrix and a vector (either order), on a GPU, the matrix's size known (shape facts
// included) and at most kGemvAsReductionMaxElements, operands of the result's dtype (float32
// or float64: a half product keeps its tensor-core path).
std::optional<MatVec> small_matvec(const Node& node, const RewriteEnv& env) {
  if (!on_a_gpu(env)) return std::nullopt;
  const std::vector<VarPtr>& in = node.inputs();
  MatVec p;
  if (auto* gemv = dynamic_cast<const Gemv*>(&node.op())) {
    if (gemv->inplace()) return std::nullopt;
    p = {in[ScaledMatmul::kA], in[ScaledMatmul::kB], in[ScaledMatmul::kC], in[ScaledMatmul::kAlpha],
         in[ScaledMatmul::kBeta], gemv->trans_a()};
  } else if (dynamic_cast<const Dot*>(&node.op()) && in.size() == 2) {
    const int r0 = in[0]->type().ndim(), r1 = in[1]->type().ndim();
    if (r0 == 2 && r1 == 1) p = {in[0], in[1], nullptr, nullptr, nullptr, false};  // m @ v
    else if (r0 == 1 && r1 == 2) p = {in[1], in[0], nullptr, nullptr, nullptr, true};  // v @ m = m.T @ v
    else return std::nullopt;
  } else {
    return std::nullopt;
  }
  const DType out = node.output_raw(0)->type().dtype;
  if ((out != DType::Float32 && out != DType::Float64) || p.a->type().dtype != out || p.x->type().dtype != out)
    return std::nullopt;
  std::optional<Shape> a = env.shapes.known_shape(*p.a);
  if (!a || a->size() != 2 || (*a)[0] * (*a)[1] > kGemvAsReductionMaxElements) return std::nullopt;
  return p;
}

// Gemv(A, x, c, alpha, beta) -> alpha * sum(A * x, 1) + beta * c, with transA
// alpha * sum(A * x[:, None], 0) + beta * c, and dot(A, x), dot(x, A) likewise, for a small A
// on a GPU (small_matvec). A small product is bound by its launch, not by BLAS's kernel: as a
// reduction whose prologue multiplies, fusion makes it one kernel with the elementwise work
// after it (the logistic regression's sigmoid(dot(x, w) + b), its loss and its gradient's
// factor are one launch instead of cuBLAS's gemv and a kernel after it), and the weights'
// update (transA, its decay in beta) a column reduction whose epilogue writes w. The sums
// accumulate in double (the reduction kernels' rule for floats): at least BLAS's accuracy.
Rewrite matvec_to_reduction(Node& node, const RewriteEnv& env) {
  std::optional<MatVec> p = small_matvec(node, env);
  if (!p) return {};
  Builder b(env.ctx.config.floatX);
  const int folded = p->trans ? 0 : 1;  // A's axis that the product folds
  // A * x broadcasts x along A's rows as it is (NumPy aligns on the right); the transposed
  // product needs x as a column, a view. No view of x in the plain form: a view of a weights
  // vector alive during a recorded call would keep its update from being written in place.
  VarPtr x = folded == 1 ? p->x : apply1(std::make_shared<DimShuffle>(std::vector<int>{0, -1}, "matvec"), {p->x});
  VarPtr product = apply1(std::make_shared<CAReduce>(ReduceKind::Sum, ReduceAxes(std::vector<int>{folded}), false),
                          {b.ew(K::Mul, {p->a, x})});
  using stabilize_patterns::is_value;
  VarPtr result = product;
  if (p->alpha && !is_value(p->alpha.get(), 1)) result = b.ew(K::Mul, {p->alpha, result});
  if (p->beta && !is_value(p->beta.get(), 0))  // as in BLAS, C is not read when beta is 0
    result = b.ew(K::Add, {result, is_value(p->beta.get(), 1) ? p->c : b.ew(K::Mul, {p->beta, p->c})});
  return replace_with(node, b.cast(result, node.output_raw(0)->type().dtype));
}

// dot(a, b) of floats of mixed dtypes -> dot(cast(a), cast(b)) in the result's dtype (GPU):
// perform() promotes the same way, and BLAS on the device takes operands of one dtype.
Rewrite mixed_dot_to_one_dtype(Node& node, const RewriteEnv& env) {
  auto* dot = dynamic_cast<const Dot*>(&node.op());
  if (!dot || !on_a_gpu(env)) return {};
  const DType out = node.output_raw(0)->type().dtype;
  const VarPtr& x = node.inputs().at(0);
  const VarPtr& y = node.inputs().at(1);
  if (!is_float(out) || (x->type().dtype == out && y->type().dtype == out)) return {};
  Builder b(env.ctx.config.floatX);
  return replace_with(node, apply1(std::make_shared<Dot>(dot->user_name()), {b.cast(x, out), b.cast(y, out)}));
}

// concatenate/stack of mixed dtypes -> the same op on inputs cast to the result's dtype
// (GPU): perform() converts each input the same way, and the device copies move one dtype.
Rewrite join_inputs_to_one_dtype(Node& node, const RewriteEnv& env) {
  if ((!dynamic_cast<const Concatenate*>(&node.op()) && !dynamic_cast<const Stack*>(&node.op())) || !on_a_gpu(env))
    return {};
  const DType out = node.output_raw(0)->type().dtype;
  bool mixed = false;
  for (const VarPtr& in : node.inputs()) mixed = mixed || in->type().dtype != out;
  if (!mixed) return {};
  Builder b(env.ctx.config.floatX);
  std::vector<VarPtr> cast;
  for (const VarPtr& in : node.inputs()) cast.push_back(b.cast(in, out));
  return replace_with(node, apply1(node.op_ptr(), cast));
}

// inc_subtensor / set_subtensor with a value of another dtype -> the value cast to the
// tensor's dtype first (GPU): exactly what perform() does before it adds or assigns.
Rewrite inc_value_to_tensor_dtype(Node& node, const RewriteEnv& env) {
  if (!dynamic_cast<const IncSubtensor*>(&node.op()) || !on_a_gpu(env)) return {};
  const DType dtype = node.inputs().at(0)->type().dtype;
  if (node.inputs().at(1)->type().dtype == dtype) return {};
  Builder b(env.ctx.config.floatX);
  std::vector<VarPtr> inputs = node.inputs();
  inputs[1] = b.cast(inputs[1], dtype);
  return replace_with(node, apply1(node.op_ptr(), inputs));
}

}  // namespace

std::span<const LocalRewrite> decompose_for_fusion_rules() {
  static const LocalRewrite rules[] = {
      {"softmax_to_reductions", "softmax(x) -> e / sum(e), e = exp(x - max(x)) (GPU)", &softmax_to_reductions},
      {"log_softmax_to_reductions", "log_softmax(x) -> t - log(sum(exp(t))), t = x - finite(max(x)) (GPU)",
       &log_softmax_to_reductions},
      {"logsumexp_to_reductions", "logsumexp(x) -> log(sum(exp(x - s))) + s, s = finite(max(x)) (GPU)",
       &logsumexp_to_reductions},
      {"log_softmax_grad_to_reductions", "log_softmax_grad(g, y) -> g - exp(y) * sum(g) (without a device row kernel)",
       &log_softmax_grad_to_reductions},
      {"batch_norm_training_to_reductions",
       "batch_norm_training(x, gamma, beta) -> sum(x - k), sum((x - k)^2) in one pass (k: each channel's first x), "
       "(x - m) * gamma * rsqrt(v + eps) + beta",
       &batch_norm_training_to_reductions},
      {"batch_norm_grad_to_reductions",
       "batch_norm_grad(x, dy, gamma, m, v) -> sum(dy), sum(dy * xhat), gamma * invstd * (dy - mean(dy) - xhat * "
       "mean(dy * xhat))",
       &batch_norm_grad_to_reductions},
      {"outer_to_broadcast_mul", "outer(x, y) -> x[:, None] * y", &outer_to_broadcast_mul},
      {"integer_dot_to_reduction", "dot(a, b) of integers -> sum(a[:, :, None] * b, axis=1) (GPU)",
       &integer_dot_to_reduction},
      {"join_inputs_to_one_dtype", "concatenate([int32 a, float32 b]) -> concatenate([cast(a, float32), b]) (GPU)",
       &join_inputs_to_one_dtype},
      {"inc_value_to_tensor_dtype", "inc_subtensor(x[i], int32 v) -> inc_subtensor(x[i], cast(v, x.dtype)) (GPU)",
       &inc_value_to_tensor_dtype},
      {"mixed_dot_to_one_dtype", "dot(int32 a, float32 b) -> dot(cast(a, float32), b) (GPU)", &mixed_dot_to_one_dtype},
      {"matvec_to_reduction", "Gemv(A, x, c, 1, 1) -> sum(A * x, 1) + c for a small A (GPU)",
       &matvec_to_reduction},
  };
  return rules;
}

bool decompose_for_fusion(Graph& graph, const PassContext& ctx) {
  return rewrite_to_fixed_point(graph, decompose_for_fusion_rules(), "decompose_for_fusion", ctx);
}

}  // namespace tgc
