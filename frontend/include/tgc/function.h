// function(): compiles a graph from inputs to outputs (plus shared-variable updates) into a
// callable Function. All compilation happens here, never on the first call.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tgc/collective.h>
#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

class Graph;
class Node;
struct CompilePhases;  // runtime/compile_log.h
class Profiler;
struct LinkedProgram;

// (shared variable, its new value): applied together after a call succeeded.
using Updates = std::vector<std::pair<Shared, Var>>;
// Theano's givens: (variable, replacement) pairs; the function computes its outputs and
// updates as if every read of the variable read the replacement instead.
using Givens = std::vector<std::pair<Var, Var>>;

// Data parallelism (docs/distributed.md): each rank of `group` runs the function on its part
// of the split inputs (the batch), with the shared variables replicated (rank 0's values are
// broadcast to every rank when the function is made). The compiler keeps the work split
// where it can and inserts the collectives that make values whole where they must be: the
// parameters' gradients are summed over ranks before the updates use them, so every rank
// applies the same update and the results equal one process's on the whole batch.
struct DataParallel {
  // (input, axis): the inputs divided among the ranks, in equal parts along axis. A shared
  // variable may be split too: its value on each rank is that rank's part (a dataset kept on
  // the device), and it is not made equal to rank 0's.
  std::vector<std::pair<Var, int>> split{};
  CommGroupPtr group{};  // null: world(), the ranks of the launch
  // false: every rank is given the whole batch and takes its part (a view, no copy);
  // true: every rank is given its own part.
  bool local_inputs = false;
  // false: results split along the batch are gathered (every rank gets the whole result);
  // true: each rank gets its part. Results summed over the batch always come back whole.
  bool local_results = false;
  // Several devices of this process, one rank each ({"cuda:0", "cuda:1"}): each call runs every
  // rank at once, on a thread of its own, over an in-process group (NCCL on CUDA). The user's
  // shared variables are rank 0's; the other ranks keep copies on their devices, which follow
  // any change made to the variables between calls. Every rank is given the whole batch and
  // takes its part; results come back whole, and updates are applied only when every rank's
  // call succeeded. Empty: one rank per process (`group`). Not with group, local_inputs or
  // local_results. docs/distributed.md#several-devices-from-one-call.
  std::vector<std::string> devices{};
  bool enabled() const { return !split.empty(); }
};

struct FunctionOptions {
  // Every member has an explicit initializer so designated initializers that name only
  // some of them ({.name = "train"}) compile without -Wmissing-field-initializers noise.
  std::string name{};  // shown in profiles and errors; default "function N"
  // Theano's borrow for outputs: results may alias inputs, shared values or each other
  // without the defensive copy. Results are never overwritten by a later call either way.
  bool borrow_outputs = false;
  // Config keys for this function only, on top of the global config (see Config).
  std::map<std::string, std::string> config{};
  // Record every replacement the optimizer makes (rewrite_trace()); off by default because
  // describing nodes costs time on large graphs.
  bool trace_rewrites = false;
  // On a GPU device, leave every output on the device: the call returns device Tensors
  // (Tensor::to_host(), Tensor::sync()) and skips the copies back. Outputs marked with
  // gpu_from_host() stay on the device either way. No effect on the cpu device.
  bool device_result = false;
  // Data parallelism over a group of ranks; off unless some input is split.
  DataParallel data_parallel{};
  // Theano's no_default_updates: leave out the default updates of the shared variables the
  // function reaches (a random draw then gives the same numbers on every call).
  bool no_default_updates = false;
  // Theano's givens: each variable (a shared variable, an intermediate, a free variable that
  // is not an input) is replaced by an expression of the same dtype and rank wherever the
  // outputs and updates read it, e.g. {x, data[i * 20 : (i + 1) * 20]} to train on a
  // minibatch of a shared dataset picked by an index input. Replacements are not replaced in
  // turn. Applied before default updates are collected.
  Givens givens{};
};

// Theano's default_update: `update` is the next value of `var` in every function that reaches
// `var` and gives it no update of its own (unless no_default_updates). RandomStreams sets it
// for each draw's state (holding the draw's update only while the draw is alive); this one
// keeps `update` until it is replaced or cleared.
void set_default_update(const Shared& var, const Var& update);
void clear_default_update(const Shared& var);
// The default update of `var`, or an undefined Var.
Var default_update(const Shared& var);

class Function {
 public:
  ~Function();
  Function(Function&&) noexcept;
  Function& operator=(Function&&) noexcept;

  // Runs the function. Arguments must match the inputs' dtype and rank exactly and any
  // static dims; errors name the input. Shared-variable updates are applied only when the
  // whole call succeeded. Inputs may change shape between calls without a compile; a shared
  // variable whose value changed shape since the function was compiled is served by a
  // program compiled for its new shape (once per set of shapes, logged to stderr).
  std::vector<Tensor> operator()(const std::vector<Tensor>& args);
  std::vector<Tensor> operator()() { return (*this)(std::vector<Tensor>{}); }
  template <typename... Ts>
  std::vector<Tensor> operator()(const Tensor& first, const Ts&... rest) {
    return (*this)(std::vector<Tensor>{first, rest...});
  }
  std::vector<Tensor> call(const std::vector<Tensor>& args) { return (*this)(args); }

  const std::string& name() const;
  const Config& config() const;
  // The outputs asked for: graph() and raw_graph() have these first, then one output per
  // shared-variable update (its new value), in the order the updates were given.
  size_t num_outputs() const;
  // The nodes in execution order, Theano-style: "Elemwise{exp}(x)".
  std::vector<std::string> toposort() const;
  // The compiled graph (after rewrites) of the program that ran last (or was compiled by
  // function()), for inspection.
  const Graph& graph() const;
  // The graph as built, before any rewrite (tgc show --stage raw).
  const Graph& raw_graph() const;
  // One line per replacement, "canonicalize: mul_by_one: Elemwise{mul}(x, 1) -> x", when
  // compiled with trace_rewrites; empty otherwise.
  const std::vector<std::string>& rewrite_trace() const;
  // Reports of the optimizer for the user (warn_float64: where float64 entered a float32
  // graph). Also printed to stderr when the function is compiled.
  const std::vector<std::string>& optimizer_warnings() const;
  // Why a node of graph() runs on the host of a GPU function ("no device implementation of
  // ArgMax", or the device backend's own reason); "" for device nodes, transfers and
  // functions on device=cpu. tgc show and assert_no_cpu_op print it.
  std::string host_reason(const Node& node) const;
  // Seconds spent in each optimizer pass, in order: (pass name, seconds).
  std::vector<std::pair<std::string, double>> optimizer_timings() const;
  // Where the compile of the program that ran last spent its time: making the backends,
  // optimizing, code generation, linking and loading kernels (what log_compiles prints).
  const CompilePhases& compile_phases() const;
  // The profile report so far; empty when profiling is off.
  std::string profile_report() const;
  // Calls served by replaying a recorded CUDA graph (cuda_graphs=auto, docs/gpu.md); 0 when
  // the function runs node by node.
  int cuda_graph_replays() const;
  // How calls used CUDA graphs, in words: "2 recordings, 998 calls replayed", "off: ..." with
  // the reason, or "...; recording given up: <why>" (a node that waits for the device, ...).
  // "" for a function on a device that cannot record (the host, OpenCL). `tgc run` prints it.
  // Of the program that ran last, when the function holds several (compiled_programs()).
  std::string cuda_graph_status() const;
  // How many programs the function holds: 1, plus one for each new set of shared-variable
  // shapes it was called with (the compiler assumes the shapes the shared values have;
  // docs/optimizations.md#shape-facts).
  int compiled_programs() const;
  const Profiler* profiler() const;
  // The shared variables the function reads or updates, each once, in the order its graph
  // meets them. For a function made by load_function (<tgc/save.h>), the variables the load
  // made: read a trained parameter with f.shared_variables()[k].get_value(), or find it by name.
  std::vector<Shared> shared_variables() const;

 private:
  friend Function function(const std::vector<Var>&, const std::vector<Var>&, const Updates&,
                           const FunctionOptions&);
  friend struct FunctionAccess;  // saving and loading (frontend/api/function_access.h)
  struct Impl;
  explicit Function(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

Function function(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                  const Updates& updates = {}, const FunctionOptions& options = {});

TGC_API_END
}  // namespace tgc
