// The executor: the loop over thunks, garbage collection of dead intermediates, failure
// cleanup, and (when profiling) thunk timing and the peak-memory bookkeeping.
#include "runtime/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <new>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "runtime/capture_branches.h"
#include "runtime/condition.h"
#include "runtime/error.h"
#include "runtime/interrupt.h"
#include "runtime/profiler.h"
#include "runtime/recorded_branches.h"

namespace tgc {

namespace {

// Follows the bytes of intermediates and outputs alive during one call, twice: as they are
// with gc (a slot dies at its last reader) and as they would be without (nothing dies).
// Buffers are counted once however many slots (views) share them; buffers of bound slots
// and constants are the caller's memory, not the function's, and are not counted.
class MemoryTracker {
 public:
  MemoryTracker(const Program& program, const std::vector<Tensor>& slots) {
    for (int s : program.bound_slots)
      if (slots[s].defined()) external_.insert(slots[s].buffer().get());
    for (const auto& [s, t] : program.constants)
      if (t.defined()) external_.insert(t.buffer().get());
  }

  // A thunk stored `t` in a slot.
  void produced(const Tensor& t) {
    const Buffer* b = counted(t);
    if (!b) return;
    // A buffer that becomes alive is new memory for both accounts, unless it was handed over
    // from a dead slot within this thunk (reused, not allocated). (Keyed by address: a buffer
    // freed by gc may be followed by a new one at the same address.)
    if (live_[b]++ == 0) {
      live_bytes_ += static_cast<int64_t>(b->bytes());
      if (!handed_.count(b)) all_bytes_ += static_cast<int64_t>(b->bytes());
    }
    peak_ = std::max(peak_, live_bytes_);
  }
  // A slot's tensor moved into a thunk's output (Thunk::inplace, Thunk::reuse): the slot no
  // longer holds it; if the thunk's output keeps a buffer alive in this call, that is no new
  // memory. (A buffer kept from the previous call, allow_gc off, is counted when it is stored
  // again, as a slot's own kept buffer is.)
  void handed_over(const Tensor& t) {
    const Buffer* b = counted(t);
    if (!b || !live_.count(b)) return;
    freed(t);
    handed_.insert(b);
  }
  // After a thunk's outputs are stored: a handed-over buffer they did not keep was dropped.
  void thunk_done() { handed_.clear(); }
  // A slot holding `t` died (with gc; the simulation applies it under either setting).
  void freed(const Tensor& t) {
    const Buffer* b = counted(t);
    if (!b) return;
    auto it = live_.find(b);
    if (it == live_.end()) return;
    if (--it->second == 0) {
      live_bytes_ -= static_cast<int64_t>(b->bytes());
      live_.erase(it);
    }
  }

  int64_t peak_with_gc() const { return peak_; }
  int64_t peak_without_gc() const { return all_bytes_; }

 private:
  const Buffer* counted(const Tensor& t) const {
    if (!t.defined() || external_.count(t.buffer().get())) return nullptr;
    return t.buffer().get();
  }
  std::unordered_set<const Buffer*> external_;
  std::unordered_set<const Buffer*> handed_;
  std::unordered_map<const Buffer*, int> live_;
  int64_t live_bytes_ = 0, peak_ = 0, all_bytes_ = 0;
};

// Drops every slot that is not bound or constant: a failed call leaves nothing
// half-computed behind.
void clear_results(const Program& program, std::vector<Tensor>& slots) {
  std::vector<char> keep(slots.size(), 0);
  for (int s : program.bound_slots) keep[s] = 1;
  for (const auto& [s, t] : program.constants) keep[s] = 1;
  for (size_t s = 0; s < slots.size(); ++s)
    if (!keep[s]) slots[s] = Tensor();
}

// Before the first thunk that writes a shared variable in place: every such thunk's check on
// its inputs (all computed by now: those thunks read only values made before them), so that
// an error any of them would raise is raised while every variable is still intact.
void check_variable_writes(const Program& program, const std::vector<Tensor>& slots, std::vector<Tensor>& inputs) {
  for (size_t w = program.first_variable_write; w < program.thunks.size(); ++w) {
    const Thunk& thunk = program.thunks[w];
    if (!thunk.check) continue;
    inputs.clear();
    bool complete = true;
    for (int s : thunk.inputs) {
      complete = complete && slots[s].defined();
      inputs.push_back(slots[s]);
    }
    if (!complete) continue;  // the thunk itself reports the missing value
    try {
      thunk.check(inputs);
    } catch (Error& e) {
      e.set_where_if_empty(thunk.label);
      throw;
    }
  }
  inputs.clear();
}

// Lazy branches (Thunk::guard): which thunks this call skipped, which slots they left unset,
// and the condition values read so far (each read once: on a device it waits).
class Skips {
 public:
  explicit Skips(const Program& program) : skipped_(program.thunks.size(), 0), unset_(program.num_slots, 0),
                                           value_(program.num_slots, -1) {}

  // Whether thunk i's guard holds: one of its terms has no test known to fail.
  bool runs(const Program& program, size_t i, const std::vector<Tensor>& slots) {
    for (const std::vector<BranchTest>& term : program.thunks[i].guard) {
      bool term_holds = true;
      for (const BranchTest& t : term)
        if (!holds(t, i, slots)) {
          term_holds = false;
          break;
        }
      if (term_holds) return true;
    }
    return false;
  }
  void skip(const Thunk& thunk, size_t i) {
    skipped_[i] = 1;
    for (int s : thunk.outputs) unset_[s] = 1;
  }
  bool unset(int slot) const { return unset_[slot] != 0; }

 private:
  // A test whose condition is not computed yet (its producer comes later or was skipped)
  // counts as holding: running the thunk is always correct.
  bool holds(const BranchTest& t, size_t i, const std::vector<Tensor>& slots) {
    if (t.producer >= 0 && (static_cast<size_t>(t.producer) >= i || skipped_[t.producer])) return true;
    signed char& v = value_[t.slot];
    if (v < 0) {
      if (!slots[t.slot].defined()) return true;
      v = condition_holds(slots[t.slot]) ? 1 : 0;
    }
    return (v == 1) == t.when;
  }
  std::vector<char> skipped_, unset_;
  std::vector<signed char> value_;
};

// A skipped thunk: its frees still apply (no later thunk reads those slots), and the buffers
// handed to it are dropped as gc would have (with gc off they stay where they are, for the
// next call).
void skip_thunk(const Thunk& thunk, std::vector<Tensor>& slots, bool allow_gc, MemoryTracker* memory) {
  for (const std::vector<Handover>* list : {&thunk.inplace, &thunk.reuse})
    for (const Handover& h : *list) {
      if (std::find(thunk.frees.begin(), thunk.frees.end(), h.slot) != thunk.frees.end()) continue;
      if (memory) memory->freed(slots[h.slot]);
      if (allow_gc) slots[h.slot] = Tensor();
    }
  for (int s : thunk.frees) {
    if (memory) memory->freed(slots[s]);
    if (allow_gc) slots[s] = Tensor();
  }
}

[[noreturn]] void missing_value(const Thunk& thunk, bool output, size_t index, int slot) {
  throw InternalError(
      fmt::format("internal error: {} {} of '{}' (slot {}) is undefined {} the thunk ran",
                  output ? "output" : "input", index, thunk.op_name, slot,
                  output ? "after" : "before"),
      thunk.label, "this is a bug in tgc; please report it");
}

// Side work (Device::side_work_pending: a collective on a stream beside the device's default
// one): joined before a thunk reads one of its buffers, and all of it at the end of the call,
// so that results, updates and the next call see it complete in the default stream's order.
// Nothing is checked until some thunk of the call left side work.
class SideWork {
 public:
  // After a thunk ran: whether its device now has side work.
  void after(const Thunk& thunk) {
    if (!thunk.device || !thunk.device->side_work_pending()) return;
    if (std::find(devices_.begin(), devices_.end(), thunk.device) == devices_.end()) devices_.push_back(thunk.device);
  }
  // Before a thunk reads `t`.
  void before_read(const Tensor& t) const {
    if (devices_.empty() || !t.defined() || !t.buffer()) return;
    Device& d = t.device();
    if (d.side_work_pending()) d.join_side_work(t.buffer().get());
  }
  // Whether `t`, handed over to a thunk's output, is still used by side work: then the
  // output must not be written into it (it is dropped from the handover instead).
  bool held(const Tensor& t) const {
    if (devices_.empty() || !t.buffer()) return false;
    Device& d = t.device();
    return d.side_work_pending() && d.side_work_holds(t.buffer().get());
  }
  void join_all() {
    for (Device* d : devices_) d->join_side_work(nullptr);
    devices_.clear();
  }
  // After a failure: joined as far as the devices still can. A join that fails itself (the
  // device's stream is broken) leaves its pieces, and their buffers, with the device until a
  // later join; the call's own error is the one reported.
  void join_all_after_failure() noexcept {
    for (Device* d : devices_) try {
        d->join_side_work(nullptr);
      } catch (...) {
      }
    devices_.clear();
  }

 private:
  std::vector<Device*> devices_;
};

// Runs thunk i, or records its choice as conditional copies (RecordedBranches).
void run_thunk(const Program& program, size_t i, const ExecOptions& options, const std::vector<Tensor>& inputs,
               std::vector<Tensor>& outputs) {
  const Thunk& thunk = program.thunks[i];
  if (options.conditionals && thunk.choice) return options.conditionals->choose(program, i, inputs, outputs);
  thunk.run(inputs, outputs);
}

}  // namespace

void execute(const Program& program, std::vector<Tensor>& slots, const ExecOptions& options,
             Profiler* profiler) {
  TGC_INTERNAL_CHECK(static_cast<int>(slots.size()) == program.num_slots,
                     fmt::format("execute: {} slots given for a program of {}", slots.size(),
                                 program.num_slots));
  const auto call_start = Profiler::Clock::now();
  std::optional<MemoryTracker> memory;
  if (profiler) memory.emplace(program, slots);

  // Scratch vectors reused by every thunk: clear() keeps their capacity.
  std::vector<Tensor> inputs, outputs;
  std::optional<Skips> skips;  // made at the first guarded thunk
  SideWork side;
  // A Ctrl-C stops the call between thunks, up to its first write into a shared variable's
  // own buffer: from there on the call runs to its end (runtime/interrupt.h).
  std::optional<InterruptsHeld> writing_variables;
  size_t i = 0;
  try {
    for (; i < program.thunks.size(); ++i) {
      const Thunk& thunk = program.thunks[i];
      check_interrupt("running a call");
      if (i == program.first_variable_write) {
        check_variable_writes(program, slots, inputs);
        if (options.before_variable_writes) (*options.before_variable_writes)();
        writing_variables.emplace();
      }
      if (options.conditionals) {
        options.conditionals->before(program, i, slots);
      } else if (!thunk.guard.empty()) {
        if (!skips) skips.emplace(program);
        if (!skips->runs(program, i, slots)) {
          skips->skip(thunk, i);
          skip_thunk(thunk, slots, options.allow_gc, memory ? &*memory : nullptr);
          continue;
        }
      }
      if (options.branches) options.branches->before(thunk, slots);
      for (size_t k = 0; k < thunk.inputs.size(); ++k) {
        const int s = thunk.inputs[k];
        // A value of a skipped thunk (with gc off its slot may hold the previous call's): only
        // an op choosing between branches may be given it, undefined.
        if (skips && skips->unset(s)) {
          if (!thunk.choice) missing_value(thunk, false, k, s);
          inputs.emplace_back();
          continue;
        }
        const Tensor& t = slots[s];
        if (!t.defined()) missing_value(thunk, false, k, s);
        side.before_read(t);
        inputs.push_back(t);
      }
      // With gc off the slots still hold last call's tensors: hand them over for reuse. Moved,
      // not copied: the op's ensure_output() reuses a buffer only when nothing else holds it.
      for (int s : thunk.outputs) {
        outputs.push_back(options.allow_gc ? Tensor() : std::move(slots[s]));
        slots[s] = Tensor();
      }
      // Dead buffers the compiler assigned to this thunk's outputs (after the inputs were
      // gathered: an inplace input is read through `inputs` while its slot is emptied).
      for (const std::vector<Handover>* list : {&thunk.inplace, &thunk.reuse})
        for (const Handover& h : *list) {
          TGC_INTERNAL_CHECK(h.output >= 0 && h.output < static_cast<int>(outputs.size()) && h.slot >= 0 &&
                                 h.slot < program.num_slots,
                             "a buffer handover of '" + thunk.op_name + "' names no output or slot");
          Tensor& from = slots[h.slot];
          if (!from.defined()) continue;
          if (side.held(from)) {  // dead to the program, still read or written beside it
            if (memory) memory->freed(from);
            from = Tensor();
            continue;
          }
          if (memory) memory->handed_over(from);
          outputs[h.output] = std::move(from);
          from = Tensor();
        }

      if (thunk.device) thunk.device->note_launch(thunk.label);
      if (profiler) {
        auto start = Profiler::Clock::now();
        std::unique_ptr<DeviceTimer> timer = thunk.device ? thunk.device->make_timer() : nullptr;
        if (timer) timer->start(thunk.device->default_stream());
        run_thunk(program, i, options, inputs, outputs);
        if (timer) timer->stop(thunk.device->default_stream());
        profiler->record_thunk(static_cast<int>(i), start, Profiler::Clock::now());
        if (thunk.kind == ThunkKind::Comm) {
          int64_t read = 0, written = 0;
          for (const Tensor& t : inputs) read += t.defined() ? static_cast<int64_t>(t.nbytes()) : 0;
          for (const Tensor& t : outputs) written += t.defined() ? static_cast<int64_t>(t.nbytes()) : 0;
          profiler->record_comm_bytes(static_cast<int>(i), std::max(read, written));
        }
        if (timer) profiler->record_device_timer(static_cast<int>(i), start, std::move(timer));
      } else {
        run_thunk(program, i, options, inputs, outputs);
      }
      // Release the inputs now, not at the next thunk, so that gc frees memory on time.
      inputs.clear();

      if (outputs.size() != thunk.outputs.size())
        throw InternalError(fmt::format("internal error: '{}' returned {} outputs, expected {}",
                                        thunk.op_name, outputs.size(), thunk.outputs.size()),
                            thunk.label, "this is a bug in tgc; please report it");
      for (size_t k = 0; k < outputs.size(); ++k) {
        if (!outputs[k].defined()) missing_value(thunk, true, k, thunk.outputs[k]);
        Tensor& slot = slots[thunk.outputs[k]];
        slot = std::move(outputs[k]);
        if (memory) memory->produced(slot);
        if (options.sync && thunk.kind != ThunkKind::Cpu) slot.device().synchronize();
      }
      outputs.clear();
      side.after(thunk);
      if (options.branches) options.branches->after(thunk, slots);
      if (memory) memory->thunk_done();

      for (int s : thunk.frees) {
        if (memory) memory->freed(slots[s]);
        if (options.allow_gc) slots[s] = Tensor();
      }
    }
    if (options.conditionals) options.conditionals->finish();
    side.join_all();
  } catch (Error& e) {
    side.join_all_after_failure();
    clear_results(program, slots);
    if (i < program.thunks.size()) e.set_where_if_empty(program.thunks[i].label);
    throw;
  } catch (const std::bad_alloc&) {
    side.join_all_after_failure();
    clear_results(program, slots);
    const Thunk& thunk = program.thunks[i];
    throw ValueError(fmt::format("out of memory running '{}'", thunk.op_name), thunk.label,
                     "reduce the sizes involved, or keep allow_gc=true so that intermediates "
                     "are freed");
  } catch (const std::exception& e) {
    side.join_all_after_failure();
    clear_results(program, slots);
    const Thunk& thunk = program.thunks[i];
    throw InternalError(
        fmt::format("internal error: '{}' failed with an unexpected exception: {}",
                    thunk.op_name, e.what()),
        thunk.label, "this is a bug in tgc; please report it");
  } catch (...) {
    side.join_all_after_failure();
    clear_results(program, slots);
    const Thunk& thunk = program.thunks[i];
    throw InternalError(
        fmt::format("internal error: '{}' failed with an exception of unknown type", thunk.op_name),
        thunk.label, "this is a bug in tgc; please report it");
  }

  if (profiler) {
    profiler->record_memory(memory->peak_with_gc(), memory->peak_without_gc(), options.allow_gc);
    profiler->record_execute(call_start, Profiler::Clock::now());
    profiler->collect_device_times(/*wait=*/false);
  }
}

}  // namespace tgc
