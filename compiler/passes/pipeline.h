// The optimizer's pipeline as data: one ordered list of named passes per optimizer mode,
// each with its phase and a one-line reason, and optimize(), which runs a list with timing,
// tracing and a type check after every pass.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/passes/local_rewrite.h"
#include "compiler/passes/pass_context.h"
#include "ops/core/graph.h"

namespace tgc {

// The phases, in the order they run: canonicalize -> loops -> stabilize -> float32 -> specialize ->
// fusion -> inplace -> memory (memory planning happens when the graph is linked; its entry
// in the table is how optimizer_excluding and the docs reach it).
struct PassInfo {
  std::string_view name;    // "merge", "canonicalize", "fuse_elemwise"
  std::string_view phase;   // "canonicalize", "stabilize", ...
  bool (*run)(Graph& graph, const PassContext& ctx);  // returns whether it changed the graph
  std::string_view reason;  // why it runs here, one line
  // For passes that run a rule table: the table (its rule names are excludable one by one).
  std::span<const LocalRewrite> (*rules)() = nullptr;
};

// The passes of `mode` (fast_run | fast_compile | none), in order.
std::vector<PassInfo> pipeline(std::string_view mode);

// Every pass and rule name any mode knows, for optimizer_excluding and the docs.
std::vector<std::string> optimizer_names();

// The context for a function compiled under `config`: its excluded names, checked against
// optimizer_names() (ConfigError naming the unknown name, with the closest known one).
PassContext make_pass_context(const Config& config);

struct PassTiming {
  std::string name;
  double seconds = 0;
  bool changed = false;
  size_t nodes_after = 0;
};

// Runs ctx.config.optimizer's pipeline on `graph`, skipping excluded passes. With
// ctx.verify, checks after each pass that every node's output types are what its op infers
// from its inputs (InternalError naming the pass and the node otherwise).
std::vector<PassTiming> optimize(Graph& graph, const PassContext& ctx);

// The check optimize() runs after each pass; exposed for pass tests.
void verify_graph(const Graph& graph, std::string_view after_pass);

}  // namespace tgc
