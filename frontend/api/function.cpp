// function() and Function: compile a graph once, then run it with argument checks,
// output ownership and all-or-nothing shared-variable updates, from any number of threads at
// once (docs/api.md#threads: call contexts, shared-variable locks, the device lock). The compile assumes the
// shapes of the shared variables' values (shape facts); a call after one changed shape runs
// a program compiled for the new shapes, compiled then and kept.
#include <tgc/function.h>
#include <tgc/tgc.h>  // version(): part of the program cache's key

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "backends/backend_registry.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "compiler/data_parallel.h"
#include "compiler/loss_scaling.h"
#include "compiler/linker.h"
#include "compiler/scan/scan_thunk.h"
#include "compiler/serialize/program_cache.h"
#include "compiler/memory_plan.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/placement.h"
#include "frontend/api/backend_choice.h"
#include "frontend/api/call_context.h"
#include "frontend/api/call_site.h"
#include "frontend/api/default_updates.h"
#include "frontend/api/device_ranks.h"
#include "frontend/api/function_access.h"
#include "frontend/api/function_impl.h"
#include "frontend/api/graphs_only.h"
#include "frontend/api/shape_guard.h"
#include "frontend/api/shared_locks.h"
#include "ops/collective/collective_op.h"
#include "ops/core/graph.h"
#include "ops/core/shared_value_lock.h"
#include "ops/reduce/reduce_axes.h"
#include "ops/shape/shape_of.h"
#include "ops/transfer/transfer.h"
#include "runtime/build_identity.h"  // with version(): the program cache's key
#include "runtime/call_replay.h"
#include "runtime/compile_log.h"
#include "runtime/device_lock.h"
#include "runtime/executor.h"
#include "runtime/interrupt.h"
#include "runtime/kernel_uses.h"
#include "runtime/log.h"
#include "runtime/profiler.h"

namespace tgc {

namespace {

std::atomic<int> function_counter{0};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The design's rule for a shared variable the function updates, also the placement pass's
// (PlacementTarget::float32_shared_on_device); placement may move others (shared_on_device).
bool shared_lives_on_device(const SharedValue& s) { return s.type().dtype == DType::Float32; }

// Function::Impl::Variant::input_takes_device, per input of the optimized graph.
std::vector<bool> inputs_taking_device(const Graph& graph, const Backend* device_backend) {
  std::vector<bool> takes(graph.inputs().size(), false);
  if (!device_backend || !device_backend->device()) return takes;
  const auto clients = graph.clients();
  std::unordered_set<const Variable*> outputs;
  for (const VarPtr& out : graph.outputs()) outputs.insert(out.get());
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const Variable* input = graph.inputs()[i].get();
    const auto it = clients.find(input);
    if (it == clients.end() || outputs.count(input)) continue;
    bool all = true;
    for (const auto& [node, index] : it->second) all = all && dynamic_cast<const HostToDevice*>(&node->op()) != nullptr;
    takes[i] = all;
  }
  return takes;
}

// The shared variables of another dtype that stay on the device: the function updates each
// with a value a device node computes and reads it only in device nodes (a random draw's
// int64 state), so neither its value nor its update crosses to the host on a call.
std::unordered_set<const SharedValue*> device_kept_shared(const Graph& graph, size_t num_outputs,
                                                          const std::vector<std::shared_ptr<SharedValue>>& targets,
                                                          const Backend& dev) {
  std::unordered_set<const SharedValue*> kept;
  const auto clients = graph.clients();
  std::unordered_map<const SharedValue*, const Variable*> var_of;
  for (Variable* root : graph.roots())
    if (root->kind() == Variable::Kind::Shared) var_of[root->storage().get()] = root;
  for (size_t k = 0; k < targets.size(); ++k) {
    const SharedValue* target = targets[k].get();
    if (shared_lives_on_device(*target)) continue;
    const Variable* update = graph.outputs().at(num_outputs + k).get();
    if (update->kind() != Variable::Kind::Result || !dev.runs_on_device(*update->owner())) continue;
    auto var = var_of.find(target);
    if (var == var_of.end()) continue;
    auto readers = clients.find(var->second);
    bool device_only = readers != clients.end() && !readers->second.empty();
    if (device_only)
      for (const auto& [n, i] : readers->second) device_only = device_only && dev.runs_on_device(*n);
    // Read only on the device, and a graph output nowhere else than as its own update.
    for (size_t o = 0; o < graph.outputs().size() && device_only; ++o)
      device_only = graph.outputs()[o].get() != var->second;
    if (device_only) kept.insert(target);
  }
  return kept;
}

// assert_no_cpu_op: names every node the placement left on the host of a GPU function, in
// the user's names, with the placement's reason. Only the function's own way in and out is
// exempt: the transfers that bring its host inputs over and take its host outputs back (and
// the user's own gpu_from_host / host_from_gpu markers, which placement made transfers), and
// nodes that read only a shape (x.shape: metadata, no element leaves the device).
void check_cpu_ops(const Graph& graph, const std::unordered_map<const Node*, std::string>& reasons,
                   const Config& config, const std::string& fn, std::vector<std::string>& warnings) {
  if (config.assert_no_cpu_op == "ignore") return;
  std::vector<std::string> left;
  for (Node* n : graph.toposort()) {
    if (n->placement() != DeviceKind::Host || n->op().is_transfer() || reads_only_metadata(n->op())) continue;
    auto it = reasons.find(n);
    const std::string reason =
        it != reasons.end() ? it->second : "no device implementation of " + n->op().op_class();
    left.push_back(n->describe() + "   # host: " + reason);
  }
  if (left.empty()) return;
  std::string list;
  for (const std::string& l : left) list += "\n  " + l;
  const std::string what = fmt::format("{} node{} of {} run{} on the host (device={}):{}", left.size(),
                                       left.size() == 1 ? "" : "s", fn, left.size() == 1 ? "s" : "", config.device, list);
  if (config.assert_no_cpu_op == "raise")
    throw ConfigError(what, fn, "each line says why its node stays on the host (docs/gpu.md lists what runs on the device); change those nodes, or set assert_no_cpu_op=warn or ignore to run them on the host");
  warnings.push_back("assert_no_cpu_op: " + what);
}

// While a call runs, the shared variables it may update in place let the write disregard
// their own reference to their buffer (Buffer::owner_refs); every other holder still counts.
// Undone when the call ends, however it ends.
class OwnerRefs {
 public:
  OwnerRefs() = default;
  OwnerRefs(const OwnerRefs&) = delete;
  OwnerRefs& operator=(const OwnerRefs&) = delete;
  ~OwnerRefs() { release(); }
  void lend(const Tensor& value) {
    if (!value.defined()) return;
    value.buffer()->set_owner_refs(value.buffer()->owner_refs() + 1);
    lent_.push_back(value.buffer());  // weak: no reference of its own
  }
  void release() {
    for (const std::weak_ptr<Buffer>& b : lent_)
      if (std::shared_ptr<Buffer> buffer = b.lock()) buffer->set_owner_refs(buffer->owner_refs() - 1);
    lent_.clear();
  }

 private:
  std::vector<std::weak_ptr<Buffer>> lent_;
};

// Whether `t` is the variable's current value itself (its buffer, layout and dtype).
bool is_value_of(const Tensor& t, const SharedValue& var) {
  const Tensor& v = var.current();
  return t.shares_buffer(v) && t.raw_data() == v.raw_data() && t.dtype() == v.dtype() && t.shape() == v.shape() &&
         t.strides() == v.strides();
}

std::string input_label(const Var& v, size_t i) {
  return v.name().empty() ? "input " + std::to_string(i + 1) : "input '" + v.name() + "'";
}

// FunctionOptions::givens applied to `outs` (the outputs, then the updates' values): checks
// each pair (defined, not an input, given once, the same dtype and rank and no static dim that
// differs) with errors naming the user's variables, then rebuilds the expressions reading the
// replacements.
std::vector<VarPtr> apply_givens(const std::vector<VarPtr>& outs, const std::vector<Var>& inputs, const Givens& givens,
                                 const std::string& fn) {
  std::unordered_map<const Variable*, VarPtr> replacements;
  for (size_t k = 0; k < givens.size(); ++k) {
    const auto& [var, by] = givens[k];
    const std::string where = "givens pair " + std::to_string(k + 1);
    if (!var.defined() || !by.defined())
      throw InputError(where + " has an undefined Var", fn, "give (variable, replacement expression) pairs");
    const std::string label = "'" + var.ptr()->label() + "'";
    if (std::any_of(inputs.begin(), inputs.end(), [&](const Var& in) { return in.ptr() == var.ptr(); }))
      throw InputError(label + " is an input of the function and is replaced by givens", fn,
                       "drop it from the inputs (its replacement is computed) or from givens");
    if (var.ptr() == by.ptr()) throw InputError(label + " is given as its own replacement", fn, "drop the pair");
    const Type& want = var.type();
    const Type& got = by.type();
    if (got.dtype != want.dtype || got.ndim() != want.ndim() || !interchangeable(want, got))
      throw TypeError("givens replaces " + label + ", a " + want.str() + ", by a " + got.str(), fn,
                      got.dtype != want.dtype ? "cast the replacement with .astype(DType::" +
                                                    std::string(dtype_name(want.dtype)) + ")"
                      : got.ndim() != want.ndim() ? "reshape the replacement to the variable's rank"
                                                  : "give a replacement whose known dims match the variable's");
    if (!replacements.emplace(var.ptr().get(), by.ptr()).second)
      throw InputError(label + " is replaced twice in givens", fn, "give each variable at most one replacement");
  }
  return clone_replace(outs, replacements);
}

// Why calls of `graph` are not recorded although every node runs on the device ("" when they
// may be): a collective over a group of several devices of this process (CommGroup peers,
// one thread per device). On 4 H200s, 4 such ranks recording their calls at once hung
// (with cuda_graphs=off the same training passed, and ranks of separate processes record
// and replay their collectives fine); the cause is not known, so they run node by node.
std::string in_process_group_reason(const Graph& graph) {
  for (const Node* node : graph.toposort())
    if (const auto* c = dynamic_cast<const CollectiveOp*>(&node->op()); c && c->group()->peers().size() > 1)
      return "a collective over a group of " + std::to_string(c->group()->peers().size()) +
             " devices of this process (group " + c->group()->name() + ") runs node by node: such ranks recording at once hung";
  return "";
}

}  // namespace


void Function::Impl::check_args(const std::vector<Tensor>& args) const {
  if (args.size() != user_inputs.size()) {
    std::string names;
    for (size_t i = 0; i < user_inputs.size(); ++i)
      names += (i ? ", " : "") + (user_inputs[i].name().empty() ? "?" : user_inputs[i].name());
    throw InputError(name + " takes " + std::to_string(user_inputs.size()) + " argument" +
                         (user_inputs.size() == 1 ? "" : "s") + " (" + names + "), got " +
                         std::to_string(args.size()),
                     "call of " + name, "pass one Tensor per input, in the order given to function()");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const Type& want = user_inputs[i].type();
    const Tensor& a = args[i];
    if (!a.defined())
      throw InputError(input_label(user_inputs[i], i) + " was given an undefined Tensor",
                       "call of " + name, "pass a Tensor holding a " + want.str());
    if (a.dtype() != want.dtype || a.ndim() != want.ndim())
      throw InputError(input_label(user_inputs[i], i) + " expects a " + want.str() + ", got " +
                           std::string(dtype_name(a.dtype())) + " " + rank_name(a.ndim()) +
                           " of shape " + shape_str(a.shape()),
                       "call of " + name,
                       a.dtype() != want.dtype
                           ? "convert the argument with .astype(DType::...) to " + std::string(dtype_name(want.dtype))
                           : "reshape the argument to " + std::to_string(want.ndim()) + " dimensions");
    if (!want.accepts(a.dtype(), a.shape()))
      throw InputError(input_label(user_inputs[i], i) + " has static shape " + want.str() +
                           " but was given shape " + shape_str(a.shape()),
                       "call of " + name, "pass a value whose known dimensions match");
  }
}

Function::Function(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Function::Function(Function&&) noexcept = default;
Function& Function::operator=(Function&&) noexcept = default;

Function::~Function() {
  if (!impl_) return;
  for (const auto& v : impl_->variants) {
    if (!v->profiler) continue;
    // Theano prints profiles when the program ends; a Function's end is the C++ equivalent.
    try {
      v->profiler->collect_device_times(/*wait=*/true);
    } catch (const Error& e) {
      log_message(LogKind::Warning, e.what());
    }
    log_message(LogKind::Profile, v->profiler->report());
  }
  // Every program's profile joins the process's trace at that path (Profiler::write_chrome_trace
  // keeps what other functions wrote there).
  if (!impl_->config.profile_trace.empty())
    for (const auto& v : impl_->variants) {
      if (!v->profiler) continue;
      try {
        v->profiler->write_chrome_trace(impl_->config.profile_trace);
      } catch (const Error& e) {
        log_message(LogKind::Warning, e.what());
      }
    }
}

// A call, in the lock order of docs/api.md#threads: the shared variables' locks (held to the
// end), the compile mutex (only to find or compile a program), the program's profile mutex
// (profile=true), a call context, then the device's lock while the work is enqueued.
std::vector<Tensor> Function::operator()(const std::vector<Tensor>& args) {
  InterruptScope interruptible;  // a Ctrl-C stops the call before it writes a variable
  return impl_->ranks ? impl_->call_on_ranks(args) : impl_->call(args);
}

std::vector<Tensor> Function::Impl::call(const std::vector<Tensor>& args) {
  Impl& f = *this;
  f.check_args(args);
  SharedLocks locks(f.lock_plan);
  Impl::Variant& v = f.variant_for_call(locks);
  TGC_INTERNAL_CHECK(!v.graphs_only, "function '" + f.name + "' was made for its graph only (GraphsOnlyScope) and called");
  std::unique_lock<std::mutex> profiling;
  if (v.profiler) profiling = std::unique_lock<std::mutex>(v.profile_mutex);
  CallContextPool::Lease context(*v.contexts);
  std::vector<Tensor>& slots = context->slots;
  // Kernels built on a first launch (a GPU row kernel) belong to the function too.
  KernelUseScope kernel_uses(&f.kernel_uses);

  const Program& prog = v.linked.program;
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor arg = f.rank_part(i, args[i]).eval();
    const bool bind_as_is = arg.on_host() || (v.input_takes_device[i] && &arg.device() == f.device());
    slots[v.linked.input_slots[i]] = bind_as_is ? arg : copy_to_device_locked(arg, host_device());
  }
  for (size_t k = 0; k < v.linked.shared_slots.size(); ++k) {
    auto& [slot, storage] = v.linked.shared_slots[k];
    const Tensor& value = storage->current();
    // Read on the host by this function while another keeps it on a device: a copy. (One this
    // function keeps on its device is there: variant_for_call moved it.)
    slots[slot] = !v.shared_on_device[k] && !value.on_host() ? copy_to_device_locked(value, host_device()) : value;
  }
  std::unique_lock<DeviceWorkMutex> device_lock;
  if (f.device_mutex) device_lock = std::unique_lock<DeviceWorkMutex>(*f.device_mutex);
  if (v.profiler) v.profiler->begin_call();

  auto clear_bound = [&] {
    for (int s : prog.bound_slots) slots[s] = Tensor();
  };
  // The variables' own references to the buffers their updates are written into.
  OwnerRefs owner_refs;
  for (size_t k : v.linked.written_in_place) owner_refs.lend(v.linked.shared_slots[k].second->current());
  ExecOptions exec_options{f.config.allow_gc, f.config.sync};
  // A rank of a function over several devices applies its updates only when every rank's call
  // got that far (their copies of the variables stay equal): it votes before the first update
  // written in place, or else before the updates are applied below. Such ranks never replay.
  bool voted = false;
  std::function<void()> vote;  // made only for such ranks: every other call goes without
  if (f.vote) {
    vote = [&] {
      voted = true;
      if (!f.vote->vote(f.vote_rank, true))
        throw PeerRankFailed("another rank of the call failed, so no rank applied its updates", "call of " + f.name,
                             "the other rank's error says why");
    };
    exec_options.before_variable_writes = &vote;
  }
  bool replayed = false;  // the call ran as a recorded CUDA graph: the updates are applied
  try {
    if (v.replay) replayed = v.replay->run(slots, exec_options, v.replay_updates);
    if (!replayed) execute(prog, slots, exec_options, v.profiler.get());
  } catch (...) {
    owner_refs.release();
    clear_bound();
    if (v.profiler) v.profiler->end_call(/*completed=*/false);
    throw;  // no update was applied: shared variables are as before the call
  }
  owner_refs.release();

  // Results belong to the caller. Without borrow, a result that shares memory with an
  // argument, a shared value, a constant or an earlier result is copied.
  std::vector<Tensor> results;
  results.reserve(prog.output_slots.size());
  // A handful of buffers: a vector searched linearly costs less per call than a hash set.
  std::vector<const Buffer*>& foreign = context->foreign;
  foreign.clear();
  if (!f.borrow_outputs) {
    for (int s : prog.bound_slots) foreign.push_back(slots[s].buffer().get());
    for (auto& [s, t] : prog.constants) foreign.push_back(t.buffer().get());
  }
  for (size_t i = 0; i < prog.output_slots.size(); ++i) {
    Tensor t = slots[prog.output_slots[i]];
    // An update written into its own variable's buffer is that variable's value already.
    const bool in_its_variable = i >= f.num_outputs && is_value_of(t, *f.update_targets[i - f.num_outputs]);
    if (!f.borrow_outputs && !in_its_variable) {
      const Buffer* b = t.buffer().get();
      if (std::find(foreign.begin(), foreign.end(), b) != foreign.end()) t = t.copy();
      else foreign.push_back(b);
    }
    results.push_back(std::move(t));
  }
  clear_bound();
  // Results now belong to the caller; constant slots are filled once per context and must
  // survive (an output may be a constant, e.g. after constant folding).
  for (int s : prog.output_slots)
    if (!v.constant_slot[s]) slots[s] = Tensor();

  if (f.vote) {
    TGC_INTERNAL_CHECK(!replayed, "a rank of a function over several devices replayed a recording");
    if (!voted) vote();
  }
  // The call holds these variables' locks exclusively (set_value would take them again).
  if (!replayed)
    for (size_t u = 0; u < f.update_targets.size(); ++u)
      set_value_locked(*f.update_targets[u], results[f.num_outputs + u]);
  for (SharedValueLock* l : f.update_locks) l->version.fetch_add(1, std::memory_order_release);
  results.resize(f.num_outputs);
  if (v.profiler) v.profiler->end_call();
  return results;
}

// The accessors read the program that ran last (`current`); those that look at every program
// take the compile mutex (a call may be adding one), and those that read what calls change (the
// replay counters, the profile) the device's lock or the profile mutex. docs/api.md#threads.
const std::string& Function::name() const { return impl_->name; }
const Config& Function::config() const { return impl_->config; }
const Graph& Function::graph() const { return impl_->current.load()->graph; }
size_t Function::num_outputs() const { return impl_->num_outputs; }
const Graph& Function::raw_graph() const { return impl_->raw_graph; }
const std::vector<std::string>& Function::rewrite_trace() const { return impl_->current.load()->rewrite_trace; }
const std::vector<std::string>& Function::optimizer_warnings() const {
  return impl_->current.load()->optimizer_warnings;
}
std::string Function::host_reason(const Node& node) const {
  std::lock_guard<std::mutex> lock(impl_->compile_mutex);
  for (const auto& v : impl_->variants)
    if (auto it = v->host_reasons.find(&node); it != v->host_reasons.end()) return it->second;
  return "";
}
const CompilePhases& Function::compile_phases() const { return impl_->current.load()->phases; }
std::vector<std::pair<std::string, double>> Function::optimizer_timings() const {
  std::vector<std::pair<std::string, double>> out;
  for (auto& t : impl_->current.load()->optimizer_timings) out.push_back({t.name, t.seconds});
  return out;
}
const Profiler* Function::profiler() const { return impl_->current.load()->profiler.get(); }
int Function::cuda_graph_replays() const {
  std::lock_guard<std::mutex> lock(impl_->compile_mutex);
  std::unique_lock<DeviceWorkMutex> device_lock;
  if (impl_->device_mutex) device_lock = std::unique_lock<DeviceWorkMutex>(*impl_->device_mutex);
  int n = 0;
  for (const auto& v : impl_->variants) n += v->replay ? v->replay->replays() : 0;
  return n;
}
std::string Function::cuda_graph_status() const {
  const Impl& f = *impl_;
  const Impl::Variant& v = *f.current.load();
  Device* device = f.device_backend ? f.device_backend->device() : nullptr;
  if (!device || device->kind() != DeviceKind::Cuda) return "";  // only CUDA records calls
  if (!v.replay) {
    if (f.config.cuda_graphs != "auto") return "off: cuda_graphs=" + f.config.cuda_graphs;
    if (f.config.profile) return "off: profile=true times every node on its own";
    if (f.config.sync) return "off: sync=true waits after every node";
    if (std::string why = CallReplay::ineligible_reason(v.linked.program, *device); !why.empty()) return "off: " + why;
    if (std::string why = in_process_group_reason(v.graph); !why.empty()) return "off: " + why;
    return "off";
  }
  std::lock_guard<DeviceWorkMutex> device_lock(*f.device_mutex);
  const CallReplay& r = *v.replay;
  std::string s = fmt::format("{} recording{}, {} call{} replayed", r.recordings(), r.recordings() == 1 ? "" : "s",
                              r.replays(), r.replays() == 1 ? "" : "s");
  if (r.updates() > 0 && r.recordings() > 0)
    s += fmt::format(", {} of {} update{} written in place", r.updates() - r.copied_updates(), r.updates(),
                     r.updates() == 1 ? "" : "s");
  if (r.disabled()) s += "; recording given up: " + r.disabled_reason();
  return s;
}
int Function::compiled_programs() const {
  std::lock_guard<std::mutex> lock(impl_->compile_mutex);
  return static_cast<int>(impl_->variants.size());
}
std::string Function::profile_report() const {
  std::vector<Impl::Variant*> profiled;
  {
    std::lock_guard<std::mutex> lock(impl_->compile_mutex);
    for (const auto& v : impl_->variants)
      if (v->profiler) profiled.push_back(v.get());
  }
  std::string out;
  for (Impl::Variant* v : profiled) {
    // The profile mutex, then the device's: a call's order. No call of this program runs meanwhile.
    std::lock_guard<std::mutex> lock(v->profile_mutex);
    std::unique_lock<DeviceWorkMutex> device_lock;
    if (impl_->device_mutex) device_lock = std::unique_lock<DeviceWorkMutex>(*impl_->device_mutex);
    v->profiler->collect_device_times(/*wait=*/true);
    out += v->profiler->report();
  }
  return out;
}

std::vector<std::string> Function::toposort() const {
  std::vector<std::string> out;
  for (Node* n : impl_->current.load()->graph.toposort()) {
    std::string s = n->op().name() + "(";
    for (size_t i = 0; i < n->inputs().size(); ++i) s += (i ? ", " : "") + n->inputs()[i]->label();
    out.push_back(s + ")");
  }
  return out;
}

std::unique_ptr<Function::Impl::Variant> Function::Impl::compile(ShapeGuard guard, double setup_s, const Graph* optimized) {
  const auto t0 = std::chrono::steady_clock::now();
  // Every kernel compiled or loaded while this program links reports its time (and, when the
  // log is printed, why the cache missed) here.
  CompileLog log(/*explain_misses=*/config.log_compiles != "false");
  CompileLogScope log_scope(&log);
  auto v = std::make_unique<Variant>();
  v->guard = std::move(guard);
  // The program cache (compiler/serialize/program_cache.h): a graph this compile would
  // optimize to, stored by an earlier compile of the same function, is linked as it is.
  std::optional<ProgramCacheEntry> cache_entry;
  std::optional<Graph> cached;
  // Not when the passes' times are asked for (log_compiles=passes): they must run to be timed.
  if (!optimized && !data_parallel.group && !trace_rewrites && config.optimizer != "none" &&
      config.log_compiles != "passes") {
    ProgramCacheQuery q;
    q.raw = &raw_graph;
    q.facts = v->guard.facts();
    q.update_outputs = update_outputs;
    q.update_targets = update_targets;
    q.num_results = num_outputs;
    q.device_result = device_result;
    q.config_text = program_config_text(config);
    q.device_kind = device_backend ? device_kind_name(device_backend->device_kind()) : "cpu";
    q.version = std::string(version()) + " build " + build_identity();
    cache_entry = ProgramCacheEntry::of(q);
    if (cache_entry) {
      const Backend* dev = device_backend.get();
      cached = cache_entry->load(kernel_cache_for(config.cache_dir),
                                 [dev](const Node& n) { return dev && dev->runs_on_device(n); }, &v->optimizer_warnings);
      if (cached) {
        optimized = &*cached;
        v->phases.program_from_cache = true;
      }
    }
  }
  v->graph = optimized                ? Graph::clone_of(optimized->inputs(), optimized->outputs())
             : data_parallel.group ? distribute(raw_graph, data_parallel, &v->optimizer_warnings)
                                 : Graph::clone_of(raw_graph.inputs(), raw_graph.outputs());
  std::unordered_set<const SharedValue*> device_shared;  // the shared values that live on the device
  // Kept until linking: loops (Scan) optimize their inner graphs with the function's pipeline.
  PassContext ctx = make_pass_context(config);
  {
    ctx.shared_shapes = v->guard.as_pass_facts();
    if (const Backend* dev = device_backend.get()) {
      ctx.placement.device = dev->device_kind();
      ctx.placement.runs_on_device = [dev](const Node& n) { return dev->runs_on_device(n); };
      ctx.placement.host_reason = [dev](const Node& n) { return dev->host_reason(n); };
      for (size_t k = 0; k < num_outputs; ++k)
        ctx.placement.output_locations.push_back(device_result ? dev->device_kind() : DeviceKind::Host);
      const std::unordered_set<const SharedValue*> kept = device_kept_shared(optimized ? raw_graph : v->graph, num_outputs, update_targets, *dev);
      for (auto& target : update_targets)
        ctx.placement.output_locations.push_back(shared_lives_on_device(*target) || kept.count(target.get())
                                                     ? dev->device_kind()
                                                     : DeviceKind::Host);
      if (!kept.empty())
        ctx.placement.stays_on_device = [kept](const Variable& var) {
          return var.kind() == Variable::Kind::Shared && kept.count(var.storage().get()) > 0;
        };
      // A shared variable this function updates keeps the dtype rule (its new value comes back
      // where the rule says); one it only reads may follow its readers onto the device.
      ctx.placement.may_move_shared = [this](const Variable& var) {
        for (const auto& t : update_targets)
          if (t == var.storage()) return false;
        return true;
      };
    }
    std::vector<RewriteEvent> events;
    if (trace_rewrites) ctx.trace = &events;
    ctx.warnings = &v->optimizer_warnings;
    ctx.host_reasons = &v->host_reasons;
    ctx.updates = update_outputs;
    if (!optimized) {
      v->optimizer_timings = optimize(v->graph, ctx);
      if (cache_entry) cache_entry->store(kernel_cache_for(config.cache_dir), v->graph, v->optimizer_warnings);
    }
    for (const RewriteEvent& e : events)
      v->rewrite_trace.push_back(e.pass + ": " + e.rewrite + ": " + e.before + " -> " + e.after);
    if (device_backend) {
      // A graph linked as it was stored (the program cache, a saved function) had its
      // placement made elsewhere: the device backend says again why a node stays on the host.
      if (optimized)
        for (Node* n : v->graph.toposort())
          if (n->placement() == DeviceKind::Host && !n->op().is_transfer())
            if (std::string why = device_backend->host_reason(*n); !why.empty()) v->host_reasons[n] = why;
      check_cpu_ops(v->graph, v->host_reasons, config, name, v->optimizer_warnings);
      std::vector<const Variable*> shared;
      for (Variable* var : v->graph.roots())
        if (var->kind() == Variable::Kind::Shared) shared.push_back(var);
      const std::vector<bool> there = shared_on_device(v->graph, shared, ctx.placement);
      for (size_t k = 0; k < shared.size(); ++k)
        if (there[k]) device_shared.insert(shared[k]->storage().get());
    }
    for (const std::string& w : v->optimizer_warnings)
      if (warned.insert(w).second) log_message(LogKind::Warning, w);
  }
  ctx.trace = nullptr;  // the block's events are gone
  double optimizer_s = seconds_since(t0);
  // The compile log (log_compiles): the phases so far, and the passes' times when asked.
  auto print_compile_log = [&] {
    for (const PassTiming& t : v->optimizer_timings) v->phases.passes.push_back({t.name, t.seconds});
    if (config.log_compiles == "false") return;
    std::string label = name;
    if (!variants.empty()) label += " (program " + std::to_string(variants.size() + 1) + ")";
    log_message(LogKind::CompileLog, format_compile_log(label, v->phases, log, config.log_compiles == "passes"));
  };
  if (graphs_only()) {  // tgc show: the optimized graph is all that is asked for, no kernel
    v->graphs_only = true;
    v->phases.setup_s = setup_s;
    v->phases.optimize_s = optimizer_s;
    print_compile_log();
    return v;
  }

  auto t1 = std::chrono::steady_clock::now();
  {
    // Linking loads kernels and copies constants to the device: not into a CUDA graph another
    // thread's call is recording there (docs/api.md#threads).
    std::unique_lock<DeviceWorkMutex> device_lock;
    if (device_mutex) device_lock = std::unique_lock<DeviceWorkMutex>(*device_mutex);
    LoopCompileContext loops{backend.get(), device_backend.get(), &ctx, memory_plan_enabled(config)};
    KernelUseScope uses(&kernel_uses);
    v->linked = link(v->graph, *backend,
                     LinkOptions{memory_plan_enabled(config), config.allow_gc, device_backend.get(), update_outputs, &loops,
                                &ctx.shared_shapes});
  }
  for (auto& [slot, storage] : v->linked.shared_slots)
    v->shared_on_device.push_back(device_shared.count(storage.get()) > 0);
  v->input_takes_device = inputs_taking_device(v->graph, device_backend.get());
  v->contexts = std::make_unique<CallContextPool>(v->linked.program);
  v->constant_slot.assign(v->linked.program.num_slots, false);
  for (auto& [slot, value] : v->linked.program.constants) v->constant_slot[slot] = true;
  const double link_total_s = seconds_since(t1);
  // Code generation and kernel loading happen inside linking (a thunk is made per node);
  // the log separates them out.
  v->phases.setup_s = setup_s;
  v->phases.optimize_s = optimizer_s;
  v->phases.codegen_s = log.codegen_seconds();
  v->phases.load_s = log.load_seconds();
  for (const auto& [backend, times] : log.backends()) v->phases.kernels_compiled += times.compiled;
  v->phases.link_s = std::max(0.0, link_total_s - v->phases.codegen_s - v->phases.load_s);
  print_compile_log();

  if (config.profile) {
    // A program compiled again for other shared shapes is profiled apart, under the shapes.
    std::string profiled = name;
    if (!variants.empty()) {
      std::string shapes;
      for (const auto& [value, shape] : v->guard.facts())
        shapes += (shapes.empty() ? "" : ", ") + (value->name().empty() ? "?" : value->name()) + " " + shape_str(shape);
      profiled += " (program " + std::to_string(variants.size() + 1) + ": " + shapes + ")";
    }
    v->profiler = std::make_unique<Profiler>(profiled, v->linked.program);
    v->profiler->set_compile_times(setup_s + optimizer_s, v->phases.codegen_s, v->phases.link_s + v->phases.load_s);
  }
  // Per-node profiling and sync=true need the nodes run one by one. Whether the device can
  // record at all is its own answer (Device::begin_capture: only CUDA's can).
  Device* device = device_backend ? device_backend->device() : nullptr;
  if (config.cuda_graphs == "auto" && device && !config.profile && !config.sync &&
      CallReplay::eligible(v->linked.program, *device) && in_process_group_reason(v->graph).empty()) {
    v->replay = std::make_unique<CallReplay>(v->linked.program, *device, config.cuda_graph_max_size);
    Variant* p = v.get();  // owned by the Impl, which never moves it
    v->replay_updates = [this, p] {
      ReplayUpdates u;
      for (size_t k = 0; k < update_targets.size(); ++k)
        u.emplace_back(p->linked.program.output_slots[num_outputs + k], &update_targets[k]->current());
      return u;
    };
  }
  return v;
}

Function::Impl::Variant& Function::Impl::variant_for_shared_shapes() {
  std::lock_guard<std::mutex> lock(compile_mutex);
  // Another call may have compiled it meanwhile.
  for (const auto& v : variants)
    if (v->guard.holds()) return *v;
  // Compiled once per new set of shapes, then kept: calls going back and forth between
  // shapes find their program above.
  std::vector<std::string> log;
  const std::string why = current.load()->guard.first_broken();
  ShapeGuard guard = shared_shapes.facts_now(log);
  for (const std::string& line : log) log_message(LogKind::Note, name + ": " + line);
  log_message(LogKind::Note, name + ": shared variable " + why + "; compiling program " +
                                 std::to_string(variants.size() + 1) +
                                 " for the new shapes (docs/optimizations.md#shape-facts)");
  variants.push_back(compile(std::move(guard), /*setup_s=*/0.0));
  return *variants.back();
}

Function::Impl::Variant& Function::Impl::variant_for_call(SharedLocks& locks) {
  for (;;) {
    // The shape facts of the program that ran last are checked on every call (a few shape
    // compares, under the variables' locks); only a changed shared shape leads elsewhere.
    Variant* v = current.load(std::memory_order_acquire);
    if (!v->guard.holds()) {
      v = &variant_for_shared_shapes();
      current.store(v, std::memory_order_release);
    }
    if (!device_backend) return *v;
    // A float32 shared variable lives on the function's device: moved there once (from the
    // host, or through it from another function's device: opencl and cuda in one process).
    // The move replaces the value, so it needs the variable's lock exclusively.
    Device& here = *device_backend->device();
    std::vector<SharedValue*> to_move;
    bool exclusive = true;
    for (size_t k = 0; k < v->linked.shared_slots.size(); ++k) {
      SharedValue* storage = v->linked.shared_slots[k].second.get();
      if (!v->shared_on_device[k] || &storage->current().device() == &here) continue;
      to_move.push_back(storage);
      exclusive = exclusive && locks.holds_exclusive(storage);
    }
    if (to_move.empty()) return *v;
    if (!exclusive) {
      // The locks were let go meanwhile: the shapes are checked again.
      locks.relock_exclusive(std::vector<const SharedValue*>(to_move.begin(), to_move.end()));
      continue;
    }
    for (SharedValue* storage : to_move) set_value_locked(*storage, copy_to_device_locked(storage->current(), here));
    return *v;
  }
}

Tensor Function::Impl::rank_part(size_t i, const Tensor& arg) const {
  if (split_axis.empty() || split_axis[i] < 0 || local_inputs) return arg;
  return rank_part_of(arg, split_axis[i], data_parallel.group->rank(), data_parallel.group->size(),
                      input_label(user_inputs[i], i), name);
}

void Function::Impl::set_up_data_parallel(const DataParallel& dp) {
  Impl& f = *this;
  f.data_parallel.group = dp.group ? dp.group : world_group();
  f.data_parallel.local_results = dp.local_results;
  f.data_parallel.first_update = f.num_outputs;
  f.local_inputs = dp.local_inputs;
  f.split_axis.assign(f.user_inputs.size(), -1);
  std::unordered_set<const Variable*> split_shared;
  const std::vector<Variable*> roots = f.raw_graph.roots();
  for (const auto& [var, axis] : dp.split) {
    if (var.defined() && var.ptr()->kind() == Variable::Kind::Shared) {
      const bool read = std::find(roots.begin(), roots.end(), var.ptr().get()) != roots.end();
      if (!read)
        throw InputError(fmt::format("data_parallel splits shared variable '{}', which the function does not read",
                                     var.ptr()->label()),
                         f.name, "split the shared variables that hold the batch");
      if (var.ndim() == 0)
        throw ShapeError(fmt::format("data_parallel splits shared variable '{}', a 0-d value", var.ptr()->label()),
                         f.name, "split a value with a batch axis");
      const int canon = at_call(f.name, [&] { return normalize_reduce_axis(axis, var.ndim(), "data_parallel split"); });
      if (!split_shared.insert(var.ptr().get()).second)
        throw InputError(fmt::format("data_parallel splits '{}' twice", var.ptr()->label()), f.name,
                         "give each value at most one split axis");
      f.data_parallel.split[var.ptr().get()] = canon;
      continue;
    }
    auto it = std::find_if(f.user_inputs.begin(), f.user_inputs.end(), [&](const Var& in) { return in.ptr() == var.ptr(); });
    if (!var.defined() || it == f.user_inputs.end())
      throw InputError(fmt::format("data_parallel splits '{}', which is not an input of the function",
                                   var.defined() ? var.ptr()->label() : "<undefined>"),
                       f.name, "split the function's inputs (the batch) or shared variables it reads");
    const size_t i = static_cast<size_t>(it - f.user_inputs.begin());
    if (f.split_axis[i] >= 0)
      throw InputError(fmt::format("data_parallel splits {} twice", input_label(*it, i)), f.name,
                       "give each input at most one split axis");
    f.split_axis[i] = at_call(f.name, [&] { return normalize_reduce_axis(axis, it->ndim(), "data_parallel split"); });
    if (it->ndim() == 0)
      throw ShapeError(fmt::format("data_parallel splits {}, a 0-d input", input_label(*it, i)), f.name,
                       "split an input with a batch axis");
    f.data_parallel.split[f.raw_graph.inputs()[i].get()] = f.split_axis[i];
  }
  CommGroup& group = *f.data_parallel.group;
  if (group.size() == 1) return;
  // Through the engine of the function's device (NCCL for cuda: processes started without
  // MPI have no host collectives), the values on their way there anyway.
  Device& device = f.device_backend && f.device_backend->device() ? *f.device_backend->device() : host_device();
  SharedLocks locks(f.lock_plan);
  Communicator& comm = *group.communicator(device);
  for (const Variable* root : roots) {
    if (root->kind() != Variable::Kind::Shared || split_shared.count(root)) continue;
    SharedValue& storage = *root->storage();
    Tensor value = storage.current().to(device);
    comm.broadcast(value.raw_data(), value.raw_data(), static_cast<size_t>(value.numel()), value.dtype(), 0,
                   device.default_stream());
    set_value_locked(storage, value.to_host());
  }
}

std::unique_ptr<Function::Impl> Function::Impl::from_options(const FunctionOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->name = options.name.empty() ? "function " + std::to_string(++function_counter) : options.name;
  impl->config = global_config();
  for (auto& [key, value] : options.config) impl->config.set(key, value, "options of " + impl->name);
  impl->borrow_outputs = options.borrow_outputs;
  impl->device_result = options.device_result;
  impl->trace_rewrites = options.trace_rewrites;
  return impl;
}

std::vector<VarPtr> Function::Impl::prepare(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                            const Updates& updates, const FunctionOptions& options) {
  Impl* impl = this;
  impl->user_inputs = inputs;
  impl->num_outputs = outputs.size();

  std::vector<VarPtr> outs = to_ptrs(outputs);
  std::unordered_set<const SharedValue*> updated;
  std::vector<VarPtr> update_vars;  // the shared variable of each update, in order
  for (auto& [target, value] : updates) {
    if (!target.defined() || target.ptr()->kind() != Variable::Kind::Shared)
      throw InputError("an update target is not a shared variable", impl->name,
                       "updates are pairs (shared variable, new value expression)");
    const std::string target_name = target.name().empty() ? "<unnamed>" : target.name();
    if (!value.defined())
      throw InputError("the update of shared variable '" + target_name + "' is an undefined Var",
                       impl->name, "give an expression for its new value");
    if (!updated.insert(target.ptr()->storage().get()).second)
      throw InputError("shared variable '" + target_name + "' is updated twice", impl->name,
                       "give each shared variable at most one update");
    const Type& want = target.type();
    const Type& got = value.type();
    if (got.dtype != want.dtype || got.ndim() != want.ndim())
      throw TypeError("the update of shared variable '" + target_name + "' is a " + got.str() +
                          ", but the variable is a " + want.str(),
                      impl->name, got.dtype != want.dtype
                                      ? "cast the update with .astype(DType::...) to " +
                                            std::string(dtype_name(want.dtype))
                                      : "reshape the update to the variable's rank");
    outs.push_back(value.ptr());
    impl->update_targets.push_back(target.ptr()->storage());
    update_vars.push_back(target.ptr());
  }
  if (!options.givens.empty()) outs = apply_givens(outs, inputs, options.givens, impl->name);
  // Theano's default updates of the shared variables the graph reaches (a random draw's state),
  // for those the user gave no update (docs/random.md#default-updates).
  if (!options.no_default_updates)
    for (auto& [target, value] : collect_default_updates(outs, updated)) {
      update_vars.push_back(target);
      TGC_INTERNAL_CHECK(value->type().dtype == target->type().dtype && value->type().ndim() == target->type().ndim(),
                         "the default update of " + target->label() + " has another type than the variable");
      outs.push_back(value);
      impl->update_targets.push_back(target->storage());
    }

  // mixed_precision=float16: the backward passes scaled by a dynamic loss scale
  // (compiler/loss_scaling.h); a step with an inf or NaN gradient changes no variable.
  if (impl->config.mixed_precision == "float16") {
    if (auto scaled = apply_loss_scaling(outs, impl->num_outputs, update_vars)) {
      outs = std::move(scaled->outs);
      for (auto& [target, value] : scaled->state_updates) {
        outs.push_back(value);
        impl->update_targets.push_back(target->storage());
      }
    }
  }
  return outs;
}

void Function::Impl::plan_locks() {
  std::vector<const SharedValue*> read, updated;
  for (const Variable* root : raw_graph.roots())
    if (root->kind() == Variable::Kind::Shared) read.push_back(root->storage().get());
  for (const auto& target : update_targets) updated.push_back(target.get());
  lock_plan = make_lock_plan(read, updated);
  update_locks.clear();
  for (const auto& target : update_targets) update_locks.push_back(&lock_of(*target));
}

void Function::Impl::finish(const std::vector<VarPtr>& outs, const DataParallel& dp,
                            std::chrono::steady_clock::time_point t0) {
  Impl* impl = this;
  impl->update_outputs.assign(impl->num_outputs, nullptr);
  for (const auto& target : impl->update_targets) impl->update_outputs.push_back(target.get());
  impl->raw_graph = Graph::clone_of(to_ptrs(impl->user_inputs), outs);
  // The backends first: placement asks the device backend what it implements.
  impl->backend = make_host_backend(impl->config);
  impl->device_backend = make_device_backend(impl->config);
  // optimizer=none runs no rule that could use a shape fact: nothing to assume or guard.
  if (impl->config.optimizer != "none") impl->shared_shapes = SharedShapeHistory(impl->raw_graph);
  impl->plan_locks();
  if (dp.enabled()) impl->set_up_data_parallel(dp);
  if (impl->device_backend && impl->device_backend->device())
    impl->device_mutex = &device_work_mutex(*impl->device_backend->device());
  std::vector<std::string> log;
  ShapeGuard guard;
  {
    // The shapes assumed are read under the variables' locks, as a call reads them.
    SharedLocks locks(impl->lock_plan);
    guard = impl->shared_shapes.facts_now(log);
  }
  // Setup: checking the arguments, copying the graph, making the backends (a device's
  // context and library handles the first time in a process).
  const double setup_s = seconds_since(t0);
  impl->variants.push_back(impl->compile(std::move(guard), setup_s));
  impl->current.store(impl->variants.back().get());
}

Function function(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                  const Updates& updates, const FunctionOptions& options) {
  InterruptScope interruptible;  // a Ctrl-C stops the compile between passes and kernels
  auto t0 = std::chrono::steady_clock::now();
  if (!options.data_parallel.devices.empty()) {
    static std::atomic<int> groups{0};
    const std::string fn = options.name.empty() ? "function()" : options.name;
    return Function(Function::Impl::on_ranks(
        inputs, outputs, updates, options,
        device_rank_slots(options.data_parallel.devices, "devices#" + std::to_string(++groups), fn)));
  }
  auto impl = Function::Impl::from_options(options);
  const std::vector<VarPtr> outs = impl->prepare(inputs, outputs, updates, options);
  impl->finish(outs, options.data_parallel, t0);
  return Function(std::move(impl));
}

Function FunctionAccess::on_ranks(const std::vector<Var>& inputs, const std::vector<Var>& outputs, const Updates& updates,
                                  const FunctionOptions& options, std::vector<RankSlot> slots) {
  InterruptScope interruptible;
  return Function(Function::Impl::on_ranks(inputs, outputs, updates, options, std::move(slots)));
}

void set_default_update(const Shared& var, const Var& update) {
  const VarPtr& v = checked_ptr(var);
  if (v->kind() != Variable::Kind::Shared)
    throw InputError("set_default_update: '" + v->label() + "' is not a shared variable", "set_default_update",
                     "give the default update to a variable made by shared()");
  const VarPtr& u = checked_ptr(update);
  if (u->type().dtype != v->type().dtype || u->type().ndim() != v->type().ndim())
    throw TypeError("the default update of shared variable '" + v->label() + "' is a " + u->type().str() +
                        ", but the variable is a " + v->type().str(),
                    "set_default_update", "give an update of the variable's dtype and rank");
  register_default_update(v, u, /*weak=*/false);
}

void clear_default_update(const Shared& var) { unregister_default_update(checked_ptr(var)); }

Var default_update(const Shared& var) {
  VarPtr u = registered_default_update(checked_ptr(var)->storage().get());
  return u ? Var(u) : Var();
}

std::vector<Shared> Function::shared_variables() const {
  const Impl& f = *impl_;
  std::vector<Shared> out;
  std::unordered_set<const SharedValue*> seen;
  for (Variable* root : f.raw_graph.roots()) {
    auto copy = f.user_of_copy.find(root->storage().get());
    const std::shared_ptr<SharedValue>& value = copy == f.user_of_copy.end() ? root->storage() : copy->second;
    if (root->kind() == Variable::Kind::Shared && seen.insert(value.get()).second) out.push_back(Shared(Variable::shared(value)));
  }
  for (const auto& target : f.update_targets)
    if (seen.insert(target.get()).second) out.push_back(Shared(Variable::shared(target)));
  return out;
}

const std::vector<std::shared_ptr<SharedValue>>& FunctionAccess::update_targets(const Function& fn) {
  return fn.impl_->update_targets;  // set when the function is made, never changed
}

FunctionParts FunctionAccess::parts(const Function& fn) {
  Function::Impl& f = *fn.impl_;
  if (f.data_parallel.group)
    throw ValueError("function '" + f.name + "' is data-parallel and cannot be saved: its ranks live in this launch", "save",
                     "save a function made without data_parallel: a saved function runs in one process");
  std::lock_guard<std::mutex> lock(f.compile_mutex);
  const Function::Impl::Variant& v = *f.current.load();
  if (v.graphs_only)
    throw ValueError("function '" + f.name + "' was made for its graph only (tgc show) and cannot be saved", "save",
                     "make the function outside GraphsOnlyScope");
  FunctionParts p;
  p.name = f.name;
  p.config = f.config;
  p.borrow_outputs = f.borrow_outputs;
  p.device_result = f.device_result;
  p.raw_graph = Graph::clone_of(f.raw_graph.inputs(), f.raw_graph.outputs());
  p.num_outputs = f.num_outputs;
  p.update_targets = f.update_targets;
  p.optimized = Graph::clone_of(v.graph.inputs(), v.graph.outputs());
  p.facts = v.guard.facts();
  p.kernels = f.kernel_uses.uses();
  return p;
}

Function FunctionAccess::make(FunctionParts parts) {
  InterruptScope interruptible;
  const auto t0 = std::chrono::steady_clock::now();
  auto impl = std::make_unique<Function::Impl>();
  Function::Impl& f = *impl;
  f.name = std::move(parts.name);
  f.config = std::move(parts.config);
  f.borrow_outputs = parts.borrow_outputs;
  f.device_result = parts.device_result;
  f.num_outputs = parts.num_outputs;
  f.update_targets = std::move(parts.update_targets);
  f.raw_graph = std::move(parts.raw_graph);
  for (const VarPtr& in : f.raw_graph.inputs()) f.user_inputs.push_back(Var(in));
  f.update_outputs.assign(f.num_outputs, nullptr);
  for (const auto& target : f.update_targets) f.update_outputs.push_back(target.get());
  f.backend = make_host_backend(f.config);
  f.device_backend = make_device_backend(f.config);
  if (f.config.optimizer != "none") f.shared_shapes = SharedShapeHistory(f.raw_graph);
  f.plan_locks();
  if (f.device_backend && f.device_backend->device()) f.device_mutex = &device_work_mutex(*f.device_backend->device());
  std::vector<std::string> log;
  ShapeGuard guard;
  {
    SharedLocks locks(f.lock_plan);
    guard = f.shared_shapes.facts_now(log);
  }
  // The saved program assumed these shapes; values of other shapes (set before the save
  // without a call since) get a program optimized for theirs, as a call would.
  const bool same_facts = parts.optimized && guard.facts() == parts.facts;
  const double setup_s = seconds_since(t0);
  f.variants.push_back(f.compile(std::move(guard), setup_s, same_facts ? &*parts.optimized : nullptr));
  f.current.store(f.variants.back().get());
  return Function(std::move(impl));
}

}  // namespace tgc
