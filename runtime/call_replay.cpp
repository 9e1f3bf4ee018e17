// CallReplay: when to record a call, when a recording may be replayed, and the in-place
// shared-variable updates that keep a recording's inputs where they were.
#include "runtime/call_replay.h"


#include <algorithm>
#include <optional>
#include <string>

#include "runtime/capture_branches.h"
#include "runtime/error.h"
#include "runtime/recorded_branches.h"

namespace tgc {

namespace {

// Recordings kept per function: two let `last = f()` alternate (the caller still holds one
// recording's outputs while the next call runs).
constexpr size_t kMaxEntries = 2;
// Recordings made without a replay in between before recording is given up (bound values
// that never repeat, outputs that are always held).
constexpr int kMaxRecordingsWithoutReplay = 4;

// What an asynchronous error surfacing later names as the last launch.
const std::string kReplayLabel = "the replayed recording of the whole call (cuda_graphs=off, or sync=true, names the node)";

}  // namespace

bool CallReplay::eligible(const Program& program, const Device& device) {
  return ineligible_reason(program, device).empty();
}

std::string CallReplay::ineligible_reason(const Program& program, const Device& device) {
  if (program.thunks.empty()) return "the function runs no node";
  // Transfers record as copies; one the device cannot record (from host memory, through
  // staging) fails the recording, and the function then runs node by node.
  for (const Thunk& t : program.thunks)
    if (t.kind == ThunkKind::Cpu || t.device != &device)
      return "not every node runs on the device (tgc show marks the host ones)";
  // A recording replays fixed work; which branch of an ifelse runs is known only from the
  // condition's value during the call: a device that records conditional work decides it on
  // each replay (runtime/recorded_branches.h).
  if (!device.capture_conditionals())
    for (const Thunk& t : program.thunks)
      if (!t.guard.empty() || t.choice)
        return "an ifelse runs only its taken branch, chosen from the condition's value during the call, and " +
               device.name() + " cannot record conditional work (" + t.label + ")";
  return "";
}

CallReplay::CallReplay(const Program& program, Device& device, size_t max_recorded_bytes)
    : program_(program), device_(device), max_recorded_bytes_(max_recorded_bytes) {}

CallReplay::~CallReplay() = default;

bool CallReplay::make_key(const std::vector<Tensor>& slots, const ReplayUpdates& updates) {
  key_.clear();
  layout_key_.clear();
  auto add = [&](const Tensor& t) {
    if (!t.defined() || &t.device() != &device_) return false;
    key_.push_back(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.raw_data())));
    layout_key_.push_back(static_cast<int64_t>(t.dtype()));
    layout_key_.push_back(t.ndim());
    for (int d = 0; d < t.ndim(); ++d) layout_key_.push_back(t.shape()[d]);
    for (int d = 0; d < t.ndim(); ++d) layout_key_.push_back(t.strides()[d]);
    return true;
  };
  for (int s : program_.bound_slots)
    if (!add(slots[s])) return false;
  // An updated variable the graph does not read is not bound, yet the recording writes its
  // buffer: set_value() giving it another one must not replay into the old.
  for (const auto& [slot, target] : updates)
    if (!add(*target)) return false;
  key_.insert(key_.end(), layout_key_.begin(), layout_key_.end());
  return true;
}

bool CallReplay::in_own_variable(const std::vector<Tensor>& slots, int slot, const ReplayUpdates& updates) {
  const Tensor& value = slots[slot];
  for (const auto& [s, target] : updates)
    if (s == slot && value.defined() && value.buffer() == target->buffer() && value.raw_data() == target->raw_data() &&
        value.strides() == target->strides())
      return true;
  return false;
}

void CallReplay::clear_unbound(std::vector<Tensor>& slots) const {
  std::vector<char> keep(slots.size(), 0);
  for (int s : program_.bound_slots) keep[s] = 1;
  for (const auto& [s, t] : program_.constants) keep[s] = 1;
  for (size_t s = 0; s < slots.size(); ++s)
    if (!keep[s]) slots[s] = Tensor();
}

bool CallReplay::run(std::vector<Tensor>& slots, const ExecOptions& options,
                     const std::function<ReplayUpdates()>& updates) {
  if (disabled_) return false;
  const ReplayUpdates targets = updates();
  if (!make_key(slots, targets)) return false;
  for (Entry& e : entries_) {
    if (e.key != key_) continue;
    // The caller (or a view it made) still holds a result of this recording: replaying would
    // overwrite it.
    bool busy = false;
    for (size_t i = 0; i < e.outputs.size(); ++i)
      busy = busy || (!e.in_variable[i] && e.outputs[i].buffer_use_count() > e.idle_use[i]);
    if (busy) continue;
    device_.note_launch(kReplayLabel);
    e.work->replay();
    for (size_t i = 0; i < program_.output_slots.size(); ++i) {
      const int slot = program_.output_slots[i];
      if (!e.in_variable[i]) {
        slots[slot] = e.outputs[i];
        continue;
      }
      for (const auto& [s, target] : targets)
        if (s == slot) slots[slot] = *target;
    }
    ++replays_;
    recordings_since_replay_ = 0;
    return true;
  }
  // Record once two calls in a row had the same dtypes, shapes and strides. Addresses are
  // not compared: a call run node by node gives each updated shared variable a new buffer,
  // while a recorded one writes it in place, so its address repeats from then on.
  if (layout_key_ != last_layout_key_) {
    last_layout_key_ = layout_key_;
    return false;
  }
  return record(slots, options, targets);
}

void CallReplay::give_up(std::string reason) {
  disabled_ = true;
  disabled_reason_ = std::move(reason);
}

bool CallReplay::record(std::vector<Tensor>& slots, const ExecOptions& options, const ReplayUpdates& updates) {
  if (++recordings_since_replay_ > kMaxRecordingsWithoutReplay) {
    give_up("the bound values never repeated: " + std::to_string(kMaxRecordingsWithoutReplay) +
            " recordings were made without a replay (new shared-variable buffers or arguments each call, "
            "or every recording's outputs still held by the caller)");
    return false;
  }
  if (!device_.begin_capture()) {
    give_up("the device cannot record its work");
    return false;
  }
  bool ok = true;
  std::string why;
  try {
    // Where the device records graphs, independent work becomes parallel branches.
    std::optional<CaptureBranches> branches;
    if (device_.capture_branches()) branches.emplace(device_);
    std::optional<RecordedBranches> conditionals;
    if (device_.capture_conditionals()) conditionals.emplace(device_);
    // allow_gc off: every value the recording wrote stays in its slot, to be held below.
    execute(program_, slots,
            ExecOptions{/*allow_gc=*/false, options.sync, branches ? &*branches : nullptr,
                        conditionals ? &*conditionals : nullptr},
            nullptr);
    // New shared values written into the variables' own buffers, at the end of the recording.
    int copied = 0;
    for (const auto& [slot, target_ptr] : updates) {
      const Tensor& target = *target_ptr;
      const Tensor& value = slots[slot];
      if (value.buffer() == target.buffer() && value.raw_data() == target.raw_data() && value.strides() == target.strides()) {
        // Written in place by an op: a replay whose deferred check raises must not have
        // written it, so the op must skip its writes once the device's error word is set.
        if (device_.capture_defers_checks()) {
          bool skips = true;
          for (const Thunk& t : program_.thunks)
            if (std::find(t.outputs.begin(), t.outputs.end(), slot) != t.outputs.end())
              skips = skips && t.skips_writes_once_flagged;
          if (!skips) {
            ok = false;
            why = "a shared variable is updated in place, by an op that cannot skip its writes, in a call whose "
                  "index checks are made at its end";
          }
        }
        continue;
      }
      ok = ok && &target.device() == &device_ && &value.device() == &device_ && value.dtype() == target.dtype() &&
           value.shape() == target.shape() && value.is_contiguous() && target.is_contiguous();
      if (!ok) {
        why = "a shared variable's new value cannot be written into its buffer (another device, dtype, shape or layout)";
        continue;
      }
      if (branches) branches->before_copy(target, value);
      device_.copy_on_device(target.raw_data(), value.raw_data(), value.nbytes(), device_.default_stream());
      if (branches) branches->after_copy(target, value);
      ++copied;
    }
    copied_updates_ = copied;
    updates_ = static_cast<int>(updates.size());
    // A result sharing a bound value's buffer would be copied by the caller after the
    // recording changed that buffer in place: such a function is not recorded. (An update
    // computed in its own variable's buffer is the new value, not such a result.)
    for (int o : program_.output_slots)
      for (int b : program_.bound_slots)
        if (ok && !in_own_variable(slots, o, updates) && slots[o].defined() && slots[b].defined() &&
            slots[o].buffer() == slots[b].buffer()) {
          ok = false;
          why = "a result shares the buffer of an argument or shared variable";
        }
  } catch (const std::exception& e) {
    ok = false;  // a thunk that cannot be recorded (it synchronises): run the call normally
    why = e.what();
  } catch (...) {
    ok = false;
    why = "a thunk failed while the call was recorded";
  }
  std::unique_ptr<CapturedWork> work = device_.end_capture(ok);
  if (!ok || !work) {
    clear_unbound(slots);  // recorded, never run: no result of it may be used
    give_up(ok ? "the device could not record some of the call's work" : why);
    return false;
  }
  work->replay();  // recording ran nothing: this call's work runs now
  Entry e{key_, std::move(work), {}, {}, {}, {}};
  const std::vector<bool> intermediate = program_.intermediate_mask();
  for (size_t s = 0; s < slots.size(); ++s)
    if (intermediate[s] && slots[s].defined()) e.held.push_back(std::move(slots[s])), slots[s] = Tensor();
  // An update computed in its variable's own buffer is not held: the variable holds it, and a
  // reference of the recording's own would keep a later recording (made while a caller still
  // holds this one's results) from writing that variable in place. A replay takes the
  // variable's current tensor instead.
  for (int o : program_.output_slots) {
    const bool in_variable = in_own_variable(slots, o, updates);
    e.outputs.push_back(in_variable ? Tensor() : slots[o]);
    e.in_variable.push_back(in_variable);
  }
  // The output slots' references go once the caller has taken the results.
  for (const Tensor& t : e.outputs) {
    if (!t.defined()) {
      e.idle_use.push_back(0);
      continue;
    }
    long in_slots = 0;
    for (int o : program_.output_slots) in_slots += slots[o].buffer() == t.buffer();
    e.idle_use.push_back(t.buffer_use_count() - in_slots);
  }
  ++recordings_;
  if (const size_t bytes = held_bytes(e); bytes > max_recorded_bytes_) {
    // This call's results stand; the recording goes once they are enqueued.
    give_up("a recording would keep " + std::to_string(bytes >> 20) + " MiB of device memory (more than " +
            std::to_string(max_recorded_bytes_ >> 20) + " MiB): the call's kernels are long enough to launch one by one");
    return true;
  }
  if (entries_.size() == kMaxEntries) entries_.erase(entries_.begin());
  entries_.push_back(std::move(e));
  return true;
}

size_t CallReplay::held_bytes(const Entry& e) {
  std::vector<const Buffer*> seen;
  size_t bytes = e.work->kept_bytes();
  // Updates in their variables' buffers are not in e.outputs (the variables' memory).
  for (const std::vector<Tensor>* list : {&e.outputs, &e.held})
    for (const Tensor& t : *list) {
      const Buffer* b = t.buffer().get();
      if (!b || std::find(seen.begin(), seen.end(), b) != seen.end()) continue;
      seen.push_back(b);
      bytes += b->bytes();
    }
  return bytes;
}

}  // namespace tgc
