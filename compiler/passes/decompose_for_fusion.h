// decompose_for_fusion: rewrites softmax, log_softmax, logsumexp, log_softmax's gradient, outer
// and integer dot into the primitives fusion turns into kernels (max and sum reductions, exp,
// log, where, broadcast multiply), so that on a GPU they run as device kernels instead of host
// ops between transfers (issue 19), and fuse with what reads and feeds them.
//
// Where the device backend runs a softmax-family node itself (PlacementTarget::runs_on_device:
// a GPU's row kernels, one block per row, backends/gpu/row_rules.h), the node is left whole:
// one kernel instead of the three or four below. The rules write out only what it does not
// run (an integer input, which the op promotes; a backend without row kernels), and
// LogSoftmaxGrad (made by LogSoftmax's gradient rule) wherever no row kernel runs it, the cpu
// included, as the formula the rule built before: g - exp(y) * sum(g).
//
// Semantics are perform()'s (ops/nn/softmax.h, logsumexp.h; SciPy's rules), value by value:
//   softmax(x)     = e / sum(e),            e = exp(x - max(x))
//   log_softmax(x) = t - log(sum(exp(t))),  t = x - finite(max(x))
//   logsumexp(x)   = log(sum(exp(x - s))) + s,  s = finite(max(x))
// with finite(m) = where(abs(m) < inf, m, 0) (SciPy's shift: a row max that is -inf, +inf
// or NaN shifts by 0), so an all -inf row, a +inf and a NaN give what the op gives. The
// reductions keep their axes (keepdims) so the shift broadcasts back over the row; a
// logsumexp without keepdims drops them at the end with a DimShuffle (a view).
//
// Kernel counts after fusion for the softmax cross-entropy -mean(sum(y * log_softmax(z), 1))
// on a GPU without row kernels (tests/compiler/passes/decompose_for_fusion_test.cpp checks
// them; with row kernels it is 3 forward, 5 with the gradient): forward 5, of
// which 4 reductions — the row max (its finite() epilogue inside), t = z - s together with
// exp(t) (one elementwise kernel, two outputs), the row sum of exp(t) with its log epilogue,
// the rows' losses sum(y * (t - lse), 1), and their mean, a reduction over another axis (a
// kernel folds one set of axes). The elementwise kernel is there because fusion joins
// t = z - s (also read by the loss kernel) with exp(t) as siblings reading z, and a group
// with a value read outside cannot become the sum's prologue; x - (s + lse) (PyTorch's form)
// avoids it but rounds s + lse, an error of 3e-5 for float32 rows of 1000, so the pass keeps
// perform's (x - s) - lse. With the gradient 10 kernels (5 reductions): log_softmax is then
// written out (exp of it is the gradient's softmax), and -y/n, the row sums of the incoming
// gradient and g - exp(log_softmax) * sum(g) add theirs. Softmax::grad, LogSoftmax's and
// LogSumExp::grad are built from Elemwise and Sum ops, so gradients need no rule here.
//
// The row max is a Max{empty=identity} (-inf over an empty row, as the ops' own shift
// starts), so an empty row gives the op's empty result, and logsumexp's -inf, instead of
// max's "zero-size array" error.
//
// dot of integers (BLAS has none) becomes one reduction kernel: sum(a[:, :, None] * b, 1).
// So does a small matrix-vector product on a GPU (a Gemv, or a dot of a matrix and a vector,
// the matrix's size known and at most 2^20 elements): sum(A * x, 1), or sum(A * x[:, None], 0)
// transposed, with alpha, beta and C as elementwise ops around it. Such a product is bound by
// its launch, and as a reduction it fuses with the elementwise work that reads it: one kernel
// where BLAS's gemv needed one of its own.
//
// Where the rules run: the softmax family on GPU devices whose backend does not run the node,
// integer dot and small matrix-vector products on GPU devices (kSoftmaxOnCpu in the .cpp says why not on the cpu, with the CPU
// timings), log_softmax's gradient and outer everywhere (the gradient: where no row kernel runs it).
#pragma once

#include <span>

#include "compiler/passes/local_rewrite.h"
#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// Runs decompose_for_fusion_rules() to a fixed point; rules that apply only on a GPU device
// (ctx.placement.device) do nothing on the host. Returns whether anything changed.
bool decompose_for_fusion(Graph& graph, const PassContext& ctx);

// The rule table, one rule a line with its example (docs/optimizations.md lists the same).
std::span<const LocalRewrite> decompose_for_fusion_rules();

}  // namespace tgc
