// The pipeline tables and the instrumented runner.
#include "compiler/passes/pipeline.h"

#include <chrono>
#include <unordered_set>

#include "compiler/passes/bucket_collectives.h"
#include "compiler/passes/canonicalize.h"
#include "compiler/passes/constant_fold.h"
#include "compiler/passes/conv_epilogue.h"
#include "compiler/passes/conv_layout.h"
#include "compiler/passes/decompose_for_fusion.h"
#include "compiler/passes/float32_casting.h"
#include "compiler/passes/half_products.h"
#include "compiler/passes/mixed_precision.h"
#include "compiler/passes/fuse_elemwise.h"
#include "compiler/passes/merge.h"
#include "compiler/passes/rematerialize.h"
#include "compiler/passes/stabilize.h"
#include "compiler/memory_plan.h"
#include "compiler/passes/inplace.h"
#include "compiler/passes/placement.h"
#include "compiler/passes/softmax_cross_entropy.h"
#include "compiler/passes/sparse_update.h"
#include "compiler/passes/specialize.h"
#include "compiler/scan/scan_rewrites.h"
#include "runtime/error.h"
#include "runtime/interrupt.h"
#include "runtime/suggest.h"

namespace tgc {

namespace {

// Placement is no optimisation: it decides where each node runs (and removes the user's
// transfer markers on the host), so every mode has it and it cannot be excluded.
constexpr std::string_view kPlacement = "placement";
PassInfo placement_pass() {
  return {kPlacement, "placement", place_on_device,
          "nodes with a device implementation run on the device; one transfer per value and direction"};
}

// fast_run: everything, in phase order. Passes add their line here (one pass a line).
std::vector<PassInfo> fast_run_passes() {
  return {
      // --- canonicalize ---
      {"merge", "canonicalize", merge, "one node per distinct computation: later rules see a shared subexpression once"},
      {"constant_fold", "canonicalize", constant_fold, "what needs no input is computed once, here, not on every call"},
      {"canonicalize", "canonicalize", canonicalize, "algebraic and shape identities to one normal form", canonicalize_rules},
      {"remerge", "canonicalize", merge, "canonicalize makes new duplicates (x*1 and x become one reader's input)"},
      // --- loops ---
      {"scan_refine_types", "loops", scan_refine_types, "a loop's step sees the dims its inputs are known to have (shape facts included): static shapes for the step's own rewrites"},
      {"scan_prune", "loops", scan_prune, "a loop computes only the results something reads (a gradient loop drops the input gradients nobody asked for)"},
      {"scan_pushout_sums", "loops", scan_pushout_sums, "a sum of dot(a[t].T, b[t]) over a loop's steps (a weight's gradient) is one product of the stacked a and b after the loop"},
      {"scan_pushout_products", "loops", scan_pushout_products, "dot(x[t], W) over a sequence's rows is one product of the whole sequence before the loop"},
      {"scan_vectorize", "loops", scan_vectorize, "a loop of independent elementwise steps is that elementwise computation on the whole sequences"},
      {"scan_save_memory", "loops", scan_save_memory, "a state read only at its last rows keeps those rows, not every step's"},
      // --- stabilize ---
      {"stabilize", "stabilize", stabilize, "finite where the naive formula overflows: sigmoid, softplus, log1p, logsumexp, log-add-exp and log1mexp forms", stabilize_rules},
      // --- float32 ---
      {"float32_casting", "float32", float32_casting, "a float32 graph stays float32: float64 constants narrowed; warn_float64 reports"},
      {"recanonicalize", "float32", canonicalize, "stabilize and float32 leave what the canonical rules fold: casts of fills, narrowed constant chains", canonicalize_rules},
      {"merge_stabilized", "float32", merge, "stabilize rebuilds subexpressions (sigmoid(dot(x, w) + b) twice): specialize folds a product only into its one reader"},
      {"mixed_precision", "float32", mixed_precision, "mixed_precision=bfloat16|float16: float32 products multiply half copies of their operands (tensor cores) and read back as float32; before specialize, so gemm takes the half product"},
      {"half_products", "float32", half_products, "a half product the device cannot run (OpenCL) multiplies float32 copies there and rounds once, instead of going to the host"},
      // --- specialize ---
      {"bucket_collectives", "specialize", bucket_collectives, "data parallel: the all_reduces of small gradients, consecutive in the backward pass, -> one all_reduce of their concatenation (DDP's buckets): one collective call's latency instead of one per gradient; before specialize, whose gemms shape facts do not see through"},
      {"sparse_update", "specialize", sparse_update, "x - c*inc_subtensor(zeros_like(x)[i], v) -> inc_subtensor(x[i], -c*v): an update touches only the rows it scatters to", sparse_update_rules},
      {"specialize", "specialize", specialize, "dot with scale and addend -> one BLAS gemm/gemv call; sum(x*y) -> dot", specialize_rules},
      {"merge_specialized", "specialize", merge, "specialize makes duplicates (each fill's cast of its like): one node each before fusion"},
      {"conv_layout", "specialize", conv_layout, "NCHW convolutions in NHWC where the device's kernels are faster so (oneDNN reads NHWC with no reorder; CUDA's tensor cores): the op between transposes, which sink through elementwise ops, reductions and batch norms until they cancel; before conv_epilogue, which fuses the NHWC op's bias and relu", conv_layout_rules},
      {"conv_epilogue", "specialize", conv_epilogue, "conv2d + bias (+ relu) -> one FusedConv2d: oneDNN's bias and post-op instead of another pass over the output; before fusion takes the add", conv_epilogue_rules},
      // --- fusion ---
      {"softmax_cross_entropy", "fusion", softmax_cross_entropy, "sum(t * log_softmax(z)) and log_softmax's gradient -> one SoftmaxCrossEntropy node (GPU): one row kernel for both"},
      {"decompose_for_fusion", "fusion", decompose_for_fusion, "softmax/log_softmax/logsumexp (GPU) and outer as max/sum reductions and elementwise ops fusion makes device kernels of", decompose_for_fusion_rules},
      {"rematerialize", "fusion", rematerialize, "a cheap elementwise value several kernels read (a batch norm's x - mean) is computed in each of them, not written and read back: after the last merge, which would undo it"},
      {"fuse_elemwise", "fusion", fuse_elemwise, "each elementwise computation, and each reduction with its prologue and epilogue, becomes one kernel"},
      {"merge_fused", "fusion", merge, "a rematerialized copy fusion left in a kernel of its own is one kernel again"},
      // --- placement --- (after fusion: a fused kernel is placed, and transferred, as one)
      placement_pass(),
      // --- inplace ---
      {"inplace", "inplace", inplace, "an op writes into an input that dies at it: no allocation, less memory; last, on the final schedule"},
      // --- memory ---
      {"memory_plan", "memory", memory_plan_pass, "dead buffers go to later outputs; made by the linker from the schedule (this entry names it)"},
  };
}

// fast_compile: what changes results (stabilisation keeps finite what the naive formula
// makes inf/NaN, float32 casting keeps the dtypes the user asked for) plus the cheap
// clean-ups; no specialisation, fusion or inplace.
std::vector<PassInfo> fast_compile_passes() {
  std::vector<PassInfo> out;
  for (const PassInfo& p : fast_run_passes())
    if (p.phase == "canonicalize" || p.phase == "stabilize" || p.phase == "float32") out.push_back(p);
  out.push_back(placement_pass());
  return out;
}

}  // namespace

std::vector<PassInfo> pipeline(std::string_view mode) {
  if (mode == "fast_run") return fast_run_passes();
  if (mode == "fast_compile") return fast_compile_passes();
  if (mode == "none") return {placement_pass()};
  throw ConfigError("unknown optimizer '" + std::string(mode) + "'", "",
                    "optimizer accepts fast_run, fast_compile or none");
}

std::vector<std::string> optimizer_names() {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  for (const PassInfo& p : fast_run_passes()) {
    if (seen.insert(std::string(p.name)).second) names.emplace_back(p.name);
    if (p.rules)
      for (const LocalRewrite& r : p.rules())
        if (seen.insert(std::string(r.name)).second) names.emplace_back(r.name);
  }
  return names;
}

PassContext make_pass_context(const Config& config) {
  PassContext ctx;
  ctx.config = config;
  std::string_view rest = config.optimizer_excluding;
  std::vector<std::string> known;
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string name(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (name.empty()) continue;
    if (known.empty()) known = optimizer_names();
    bool found = false;
    for (const std::string& k : known) found = found || k == name;
    if (name == kPlacement)
      throw ConfigError("optimizer_excluding names 'placement', which cannot be left out", "",
                        "placement decides where each node runs; use device=cpu to keep everything on the host");
    if (!found) {
      std::string near = closest_match(name, known);
      throw ConfigError("optimizer_excluding names '" + name + "', which is no rewrite or pass", "",
                        near.empty() ? "docs/optimizations.md lists every rewrite"
                                     : "did you mean '" + near + "'? docs/optimizations.md lists every rewrite");
    }
    ctx.excluded.insert(name);
  }
  return ctx;
}

void verify_graph(const Graph& graph, std::string_view after_pass) {
  for (Node* n : graph.toposort()) {
    std::vector<Type> in;
    for (auto& v : n->inputs()) in.push_back(v->type());
    std::vector<Type> want;
    try {
      want = n->op().infer_types(in);
    } catch (const Error& e) {
      throw InternalError("after " + std::string(after_pass) + ", node " + n->describe() +
                          " no longer type-checks: " + e.what());
    }
    TGC_INTERNAL_CHECK(static_cast<int>(want.size()) == n->num_outputs(),
                       "after " + std::string(after_pass) + ", node " + n->describe() +
                           " has the wrong number of outputs");
    for (int i = 0; i < n->num_outputs(); ++i)
      TGC_INTERNAL_CHECK(interchangeable(want[i], n->output_raw(i)->type()),
                         "after " + std::string(after_pass) + ", node " + n->describe() + " output " +
                             std::to_string(i) + " has type " + n->output_raw(i)->type().str() +
                             " but its op infers " + want[i].str());
  }
}

std::vector<PassTiming> optimize(Graph& graph, const PassContext& ctx) {
  std::vector<PassTiming> timings;
  for (const PassInfo& p : pipeline(ctx.config.optimizer)) {
    if (!ctx.enabled(p.name)) continue;
    check_interrupt("compiling (optimizing the graph)");
    auto t0 = std::chrono::steady_clock::now();
    bool changed = p.run(graph, ctx);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (ctx.verify && changed) verify_graph(graph, p.name);
    timings.push_back({std::string(p.name), s, changed, graph.toposort().size()});
  }
  return timings;
}

}  // namespace tgc
