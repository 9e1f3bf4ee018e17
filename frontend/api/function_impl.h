// Function::Impl: what a Function holds (frontend/api/function.cpp makes and calls it,
// function_ranks.cpp runs one over several devices of this process). Private to the frontend.
#pragma once

#include <tgc/function.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/backend.h"
#include "compiler/data_parallel.h"
#include "compiler/linker.h"
#include "compiler/passes/pipeline.h"
#include "frontend/api/call_context.h"
#include "frontend/api/device_ranks.h"
#include "frontend/api/shape_guard.h"
#include "frontend/api/shared_locks.h"
#include "ops/core/graph.h"
#include "ops/core/shared_value_lock.h"
#include "runtime/call_replay.h"
#include "runtime/compile_log.h"
#include "runtime/config.h"
#include "runtime/device_lock.h"
#include "runtime/kernel_uses.h"
#include "runtime/profiler.h"

namespace tgc {

struct Function::Impl {
  // One compiled program of a function: the graph optimized under one set of shape facts,
  // linked, with its own slots, profile and call replay. A function has one per set of shared
  // shapes it was called with (usually one).
  struct Variant {
    ShapeGuard guard;  // the shared values' shapes this program assumes
    Graph graph;
    std::vector<std::string> rewrite_trace;
    std::vector<std::string> optimizer_warnings;
    std::unordered_map<const Node*, std::string> host_reasons;  // the placement pass's
    std::vector<PassTiming> optimizer_timings;
    CompilePhases phases;
    LinkedProgram linked;
    // Shared slots whose value lives on the device (moved there on the first call).
    std::vector<bool> shared_on_device;
    // Per input, whether a tensor already on the function's device can be bound as it is:
    // every reader of the input is a HostToDevice transfer, which passes it through (a
    // device argument: an eager tensor, a device result of another function).
    std::vector<bool> input_takes_device;
    // The slots of the calls running now, one context each (docs/api.md#threads).
    std::unique_ptr<CallContextPool> contexts;
    std::vector<bool> constant_slot;  // slots of Program::constants
    // profile=true: the profile times every node of one call, so calls of this program run
    // one at a time, holding profile_mutex (report() takes it too).
    std::unique_ptr<Profiler> profiler;
    std::mutex profile_mutex;
    // cuda_graphs=auto on a function all of whose nodes run on the GPU: records and replays
    // calls (runtime/call_replay.h); nullptr otherwise.
    std::unique_ptr<CallReplay> replay;
    std::function<ReplayUpdates()> replay_updates;  // the updates' value slots and targets
    // Made under a GraphsOnlyScope (frontend/api/graphs_only.h): optimized, never linked.
    bool graphs_only = false;
  };

  std::string name;
  Config config;
  bool borrow_outputs = false;
  bool device_result = false;
  bool trace_rewrites = false;
  std::vector<Var> user_inputs;  // for error messages
  // Data parallelism (options.data_parallel): the spec compile() distributes raw_graph with
  // (no group: off), and per input the axis each rank takes its part along (-1: whole).
  DataParallelSpec data_parallel;
  std::vector<int> split_axis;
  bool local_inputs = false;
  Graph raw_graph;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Backend> device_backend;  // device=cuda: runs the device-placed nodes
  Device* device() const { return device_backend ? device_backend->device() : nullptr; }
  size_t num_outputs = 0;  // graph outputs past this index are update values
  std::vector<std::shared_ptr<SharedValue>> update_targets;
  // Per graph output, the shared variable it updates (null for the results): the inplace pass
  // and the linker let an update write into its variable (compiler/update_in_place.h).
  std::vector<const SharedValue*> update_outputs;
  SharedShapeHistory shared_shapes;  // under compile_mutex
  // Every program compiled, in order; `current` ran the last call. Never removed, so a
  // graph() or profiler() handed out stays valid. Added to under compile_mutex; a call reads
  // `current` without it.
  std::vector<std::unique_ptr<Variant>> variants;
  std::atomic<Variant*> current{nullptr};
  std::mutex compile_mutex;
  std::unordered_set<std::string> warned;  // optimizer warnings already printed (compile_mutex)
  // The shared variables a call locks (the graph's and the update targets), and the lock of
  // the device its work goes to (nullptr on device=cpu): docs/api.md#threads.
  LockPlan lock_plan;
  DeviceWorkMutex* device_mutex = nullptr;
  // The locks of update_targets, whose versions each call that updates them moves on (a
  // function over several devices refreshes its copies of a variable that moved).
  std::vector<SharedValueLock*> update_locks;
  // The kernel-cache entries every compile and call of this function used: what save() ships.
  KernelUses kernel_uses;
  // data_parallel.devices: rank 0's function holds the other ranks (null otherwise), and every
  // rank's call votes before it applies its updates (null: a rank of its own process).
  struct Ranks;  // defined below
  std::unique_ptr<Ranks> ranks;
  CommitVote* vote = nullptr;
  int vote_rank = 0;
  // Rank 0's copies of split shared variables, each with the user's variable it holds a part
  // of (shared_variables() names the user's).
  std::unordered_map<const SharedValue*, std::shared_ptr<SharedValue>> user_of_copy;

  // A new function's settings from its options (name, config, output flags).
  static std::unique_ptr<Impl> from_options(const FunctionOptions& options);
  // function()'s first step: checks the updates and applies givens, default updates and loss
  // scaling; sets user_inputs, num_outputs and update_targets; returns the graph's outputs
  // (the results, then one per update).
  std::vector<VarPtr> prepare(const std::vector<Var>& inputs, const std::vector<Var>& outputs, const Updates& updates,
                              const FunctionOptions& options);
  // The rest: the backends, the locks, data parallelism and the first compile.
  void finish(const std::vector<VarPtr>& outs, const DataParallel& dp, std::chrono::steady_clock::time_point t0);
  // A function over several devices of this process, one rank per slot (data_parallel.devices).
  static std::unique_ptr<Impl> on_ranks(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                        const Updates& updates, const FunctionOptions& options, std::vector<RankSlot> slots);
  // lock_plan and update_locks, from raw_graph and update_targets.
  void plan_locks();
  // One call of this rank's program; call_on_ranks runs every rank's at once.
  std::vector<Tensor> call(const std::vector<Tensor>& args);
  std::vector<Tensor> call_on_ranks(const std::vector<Tensor>& args);

  void check_args(const std::vector<Tensor>& args) const;
  // Argument i as this rank's program reads it: its part along the split axis (a view) when
  // the input is split and every rank is given the whole batch; the argument otherwise.
  Tensor rank_part(size_t i, const Tensor& arg) const;
  // Checks the split inputs, fills the spec compile() distributes with, and makes every
  // rank's shared values rank 0's (a function's replicas start equal and so stay equal).
  void set_up_data_parallel(const DataParallel& dp);
  // Optimizes and links raw_graph under `guard`'s facts; `setup_s`: the time spent making the
  // backends for it (0 for a later program of the same function). With `optimized` (a loaded
  // function's saved program, optimized under the same facts), links a copy of it instead.
  std::unique_ptr<Variant> compile(ShapeGuard guard, double setup_s, const Graph* optimized = nullptr);
  // The program for the shared values' shapes now: a kept one whose facts hold, or a new one.
  // The caller holds the shared variables' locks.
  Variant& variant_for_shared_shapes();
  // The program for this call, with every shared value it keeps on the device moved there:
  // the locks of values to move are made exclusive first (SharedLocks::relock_exclusive).
  Variant& variant_for_call(SharedLocks& locks);
};

// The other ranks of a function over several devices of this process, and what they share.
struct Function::Impl::Ranks {
  explicit Ranks(int n) : threads(n), vote(n) {}
  std::vector<std::unique_ptr<Impl>> peers;  // ranks 1 .. n-1
  RankThreads threads;
  CommitVote vote;
  SharedCopies copies;
  std::mutex call_mutex;  // one call at a time: the ranks' threads serve one
};

}  // namespace tgc
