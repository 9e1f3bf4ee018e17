// RecordedBranches: guards as the device's conditional work, choices as conditional copies.
#include "runtime/recorded_branches.h"

#include <fmt/format.h>

#include "runtime/condition.h"
#include "runtime/device_kernels.h"
#include "runtime/error.h"

namespace tgc {

Device::ConditionTest RecordedBranches::test_of(const Tensor& condition, bool when, const std::string& label) const {
  if (&condition.device() != &device_)
    throw ValueError(fmt::format("the condition of an ifelse is on {}, not on the recording's device {}",
                                 condition.device().name(), device_.name()),
                     label, "");
  check_condition_size(condition);  // the executor's catch names the thunk
  const int bytes = static_cast<int>(dtype_size(condition.dtype()));
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    throw ValueError(fmt::format("an ifelse condition of dtype {} cannot be read by a recorded call",
                                 dtype_name(condition.dtype())),
                     label, "");
  return {condition.raw_data(), bytes, is_float(condition.dtype()), when};
}

std::optional<Device::Condition> RecordedBranches::condition_of(const Program& program, size_t i,
                                                                const std::vector<Tensor>& slots) const {
  const Thunk& thunk = program.thunks[i];
  if (thunk.guard.empty()) return std::nullopt;
  Device::Condition condition;
  for (const std::vector<BranchTest>& term : thunk.guard) {
    std::vector<Device::ConditionTest> tests;
    bool never = false;
    for (const BranchTest& t : term) {
      // Computed after this thunk, or not at all: holds, as for the executor.
      if (t.producer >= 0 && static_cast<size_t>(t.producer) >= i) continue;
      const Tensor& value = slots[t.slot];
      if (!value.defined()) continue;
      if (&value.device() == &host_device()) {  // a constant: known while recording
        if (condition_holds(value) != t.when) {
          never = true;
          break;
        }
        continue;
      }
      tests.push_back(test_of(value, t.when, thunk.label));
    }
    if (never) continue;
    if (tests.empty()) return std::nullopt;  // this term holds on every replay
    condition.push_back(std::move(tests));
  }
  return condition;  // no terms left: never
}

void RecordedBranches::before(const Program& program, size_t i, const std::vector<Tensor>& slots) {
  const Thunk& thunk = program.thunks[i];
  std::optional<Device::Condition> condition = thunk.choice ? std::nullopt : condition_of(program, i, slots);
  if (!condition) return close();
  if (open_ && *condition == open_condition_) return;
  close();
  device_.begin_conditional(*condition, /*with_else=*/false);
  open_ = true;
  open_condition_ = std::move(*condition);
}

void RecordedBranches::choose(const Program& program, size_t i, const std::vector<Tensor>& inputs,
                              std::vector<Tensor>& outputs) {
  close();
  const Thunk& thunk = program.thunks[i];
  const Thunk::Choice& choice = *thunk.choice;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor& a = inputs[choice.then_inputs[k]];
    const Tensor& b = inputs[choice.else_inputs[k]];
    TGC_INTERNAL_CHECK(a.defined() && b.defined(), "a recorded ifelse lacks a branch's value");
    if (a.dtype() != b.dtype() || a.shape() != b.shape())
      throw ValueError(fmt::format("the branches of an ifelse give values of different shapes ({} and {}): the "
                                   "taken one decides the result's shape, which a recording fixes",
                                   shape_str(a.shape()), shape_str(b.shape())),
                       thunk.label, "");
    // A fresh buffer: the buffer handed over (if any) may be one of the two values.
    outputs[k] = Tensor::empty(a.dtype(), a.shape(), device_);
  }
  // Dense values (a strided view copied first, on every replay: the copy of the untaken
  // branch's stale value is harmless).
  auto dense = [&](const Tensor& v) {
    if (v.is_contiguous()) return v;
    Tensor d = Tensor::empty(v.dtype(), v.shape(), device_);
    if (!dense_copy_on_device(v, d))
      throw ValueError("a strided value of an ifelse cannot be copied on " + device_.name(), thunk.label, "");
    return d;
  };
  const Tensor& condition = inputs[choice.condition];
  const bool known = &condition.device() == &host_device();  // a constant: chosen now
  const bool holds = known && condition_holds(condition);
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor a = dense(inputs[choice.then_inputs[k]]), b = dense(inputs[choice.else_inputs[k]]);
    if (known)
      device_.copy_on_device(outputs[k].raw_data(), (holds ? a : b).raw_data(), a.nbytes(), device_.default_stream());
    else
      device_.copy_chosen({{test_of(condition, true, thunk.label)}}, outputs[k].raw_data(), a.raw_data(), b.raw_data(),
                          a.nbytes());
  }
}

void RecordedBranches::finish() { close(); }

void RecordedBranches::close() {
  if (!open_) return;
  open_ = false;
  open_condition_.clear();
  device_.end_conditional();
}

}  // namespace tgc
