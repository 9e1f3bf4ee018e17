// PassContext: what every optimizer pass may read — the function's config, the rewrites the
// user left out, and where replacements (the rewrite trace) and float64 reports are recorded.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/config.h"
#include "runtime/device.h"
#include "runtime/shape.h"

namespace tgc {

class Node;
class SharedValue;
class Variable;
class SharedValue;

// Shape facts beyond the static types: the shapes of shared variables' values when the
// function was compiled (Theano leaves them (?, ?); tgc knows them at function() time). Only
// ShapeEquivalence reads them, so every rule that asks it learns them. They are promises the
// caller keeps: the frontend compiles again when a value's shape differs from its fact
// (frontend/api/function.cpp, docs/optimizations.md#shape-facts).
using SharedShapeFacts = std::unordered_map<const SharedValue*, Shape>;

// Where the function runs, for the placement pass (compiler/passes/placement.h).
struct PlacementTarget {
  DeviceKind device = DeviceKind::Host;  // Host: every node on the host, transfers removed
  // Whether the device backend implements a node (Backend::runs_on_device).
  std::function<bool(const Node&)> runs_on_device;
  // Why a node stays on the host (Backend::host_reason); "" or unset: the pass's fallback,
  // "no device implementation of <op class>".
  std::function<std::string(const Node&)> host_reason;
  // Where each graph output must end up, by position; outputs past the end (and every
  // output when empty) go to the host unless the graph marks them with gpu_from_host.
  // Updates of shared variables that live on the device are listed as the device.
  std::vector<DeviceKind> output_locations;
  // Where each graph input starts, by position (default: the host). A loop's inner graph
  // starts on the device its loop runs on (compiler/scan/scan_thunk.h).
  std::vector<DeviceKind> input_locations;
  // Whether a float32 shared variable lives on the device (the design's rule).
  bool float32_shared_on_device = true;
  // Whether a shared variable of another dtype may live on the device too, when the function
  // reads it only there (an embedding's token ids): the caller says no for the ones it
  // updates, whose new values it expects on the host. Unset: none may.
  std::function<bool(const Variable&)> may_move_shared;
  // Shared variables of another dtype that live on the device whatever their readers: those the
  // function reads and updates only on the device (a random stream's int64 state), so a call
  // moves nothing for them and can be recorded. Unset: none.
  std::function<bool(const Variable&)> stays_on_device;
};

// One replacement made by a rewrite: "mul_by_one: t0 = mul(x, 1) -> x".
struct RewriteEvent {
  std::string pass;     // the pipeline entry that ran it ("canonicalize")
  std::string rewrite;  // the rule's or pass's name ("mul_by_one")
  std::string before;   // the replaced node, in the graph's printing ("mul(x, 1)")
  std::string after;    // what replaced it ("x")
};

struct PassContext {
  Config config;
  // Rewrite and pass names left out (Config::optimizer_excluding, validated by optimize()).
  std::unordered_set<std::string> excluded;
  // When set, every replacement is appended (tgc show --trace-rewrites). Left null on the
  // normal path: describing nodes costs time on large graphs.
  std::vector<RewriteEvent>* trace = nullptr;
  // Reports for the user (warn_float64: which node brought float64 into a float32 graph).
  std::vector<std::string>* warnings = nullptr;
  // Where the placement pass records why each node of a GPU function stays on the host
  // (transfers excepted); passes that replace a placed node (inplace) move its entry.
  std::unordered_map<const Node*, std::string>* host_reasons = nullptr;
  // Check every node's types after each pass (an internal error names the pass).
  bool verify = true;
  PlacementTarget placement;
  // Per graph output, the shared variable it is the new value of (a function's updates), or
  // null for a result; outputs past the end are results. The inplace pass lets an update
  // write into its variable's own buffer (compiler/update_in_place.h).
  std::vector<const SharedValue*> updates;
  // Shapes the shared variables' values are assumed to have (empty: nothing assumed).
  SharedShapeFacts shared_shapes;

  bool enabled(std::string_view name) const { return !excluded.count(std::string(name)); }
  void warn(std::string message) const {
    if (warnings) warnings->push_back(std::move(message));
  }
};

}  // namespace tgc
