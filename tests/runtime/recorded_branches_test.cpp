// RecordedBranches through CallReplay on a fake device that records conditional work: a lazy
// ifelse stays in the recording, each run of thunks of one guard is one conditional work, the
// choice copies the taken value, the untaken branch's device work does not run on a replay,
// and what cannot be recorded (branches of different shapes) runs node by node.
#include "runtime/recorded_branches.h"

#include <gtest/gtest.h>

#include "runtime/call_replay.h"
#include "runtime/config.h"
#include "runtime/executor.h"
#include "tests/runtime/fake_recording_device.h"

namespace tgc {
namespace {

const std::function<ReplayUpdates()> kNoUpdates = [] { return ReplayUpdates{}; };
const size_t kCap = Config{}.cuda_graph_max_size;

// IfElse's thunk: the taken value handed on (run node by node).
Thunk choice(FakeDevice& d, int cond, int then_slot, int else_slot, int out) {
  Thunk t;
  t.op_name = t.op_class = "IfElse";
  t.label = "y = ifelse(c, b, e)";
  t.kind = ThunkKind::Gpu;
  t.device = &d;
  t.inputs = {cond, then_slot, else_slot};
  t.outputs = {out};
  t.choice = Thunk::Choice{0, {1}, {2}};
  t.run = [](const std::vector<Tensor>& i, std::vector<Tensor>& o) {
    o[0] = FakeDevice::holds({{{i[0].raw_data(), 4, true, true}}}) ? i[1] : i[2];
  };
  return t;
}

// Slots: 0 x, 1 c (bound, float32); 2 a = 3x and 3 b = 2a (then branch); 4 e = 5x (else);
// 5 y = ifelse(c, b, e).
Program branches(FakeDevice& d, int* then_calls, int* else_calls) {
  Program p;
  p.num_slots = 6;
  p.bound_slots = {0, 1};
  p.output_slots = {5};
  p.thunks.push_back(scale_thunk(d, 3, 0, 2, false, then_calls, "a = 3 x"));
  p.thunks.push_back(scale_thunk(d, 2, 2, 3, false, then_calls, "b = 2 a"));
  p.thunks[0].guard = p.thunks[1].guard = {{{1, -1, true}}};
  p.thunks.push_back(scale_thunk(d, 5, 0, 4, false, else_calls, "e = 5 x"));
  p.thunks[2].guard = {{{1, -1, false}}};
  p.thunks.push_back(choice(d, 1, 3, 4, 5));
  return p;
}

TEST(RecordedBranches, AnIfelseIsRecordedAndEachReplayRunsOnlyTheTakenBranch) {
  FakeDevice d;
  d.conditionals = true;
  int then_calls = 0, else_calls = 0;
  Program p = branches(d, &then_calls, &else_calls);
  ASSERT_TRUE(CallReplay::eligible(p, d));
  CallReplay r(p, d, kCap);
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = on(d, 1);
  Tensor c = on(d, 1, 1);
  slots[1] = c;
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates)) << r.disabled_reason();
  EXPECT_EQ(r.recordings(), 1);
  // a and b share one conditional work, e has its own, the choice one with an else.
  ASSERT_EQ(d.opened.size(), 3u);
  EXPECT_EQ(d.opened[0], (Device::Condition{{{c.raw_data(), 4, true, true}}}));
  EXPECT_EQ(d.opened[1], (Device::Condition{{{c.raw_data(), 4, true, false}}}));
  EXPECT_EQ(d.opened_with_else, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(read(slots[5]), 6.0f);
  EXPECT_EQ(then_calls, 2);
  EXPECT_EQ(else_calls, 0);
  slots[5] = Tensor();
  for (float cv : {0.0f, -0.0f, 2.0f, 0.0f}) {  // -0.0 is zero, as on the host
    write(c, cv);
    then_calls = else_calls = 0;
    ASSERT_TRUE(r.run(slots, {}, kNoUpdates));
    const bool taken = cv != 0.0f;
    EXPECT_EQ(read(slots[5]), taken ? 6.0f : 5.0f) << "c = " << cv;
    EXPECT_EQ(then_calls, taken ? 2 : 0);
    EXPECT_EQ(else_calls, taken ? 0 : 1);
    slots[5] = Tensor();
  }
  EXPECT_EQ(r.replays(), 4);
}

TEST(RecordedBranches, ADeviceWithoutConditionalWorkRunsTheIfelseNodeByNode) {
  FakeDevice d;  // conditionals off
  Program p = branches(d, nullptr, nullptr);
  EXPECT_FALSE(CallReplay::eligible(p, d));
  EXPECT_NE(CallReplay::ineligible_reason(p, d).find("cannot record conditional work"), std::string::npos);
}

TEST(RecordedBranches, ConditionsComputedLaterHoldAndConstantsAreReadWhileRecording) {
  FakeDevice d;
  d.conditionals = true;
  int later_calls = 0, constant_calls = 0;
  Program p;  // 0 x (bound); 1 a = 2x guarded by slot 2, made after it; 2 c = 1x; 3 k (a host constant, 0)
  p.num_slots = 5;
  p.bound_slots = {0};
  p.output_slots = {1, 4};
  p.constants = {{3, Tensor::from_vector<float>({0}).reshape({})}};
  p.thunks.push_back(scale_thunk(d, 2, 0, 1, false, &later_calls, "a = 2 x"));
  p.thunks[0].guard = {{{2, 1, false}}};
  p.thunks.push_back(scale_thunk(d, 1, 0, 2, false, nullptr, "c = x"));
  p.thunks.push_back(scale_thunk(d, 4, 0, 4, false, &constant_calls, "z = 4 x"));
  p.thunks[2].guard = {{{3, -1, true}}, {{3, -1, true}, {2, 1, true}}};  // k never holds
  std::vector<Tensor> slots(p.num_slots);
  for (const auto& [s, t] : p.constants) slots[s] = t;
  slots[0] = on(d, 1);
  CallReplay r(p, d, kCap);
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates)) << r.disabled_reason();
  // a runs always (its condition comes later); z's guard never holds: conditional work of no terms.
  ASSERT_EQ(d.opened.size(), 1u);
  EXPECT_TRUE(d.opened[0].empty());
  EXPECT_EQ(later_calls, 1);
  EXPECT_EQ(constant_calls, 0);
  EXPECT_EQ(read(slots[1]), 2.0f);
}

TEST(RecordedBranches, BranchesOfDifferentShapesAreNotRecorded) {
  FakeDevice d;
  d.conditionals = true;
  Program p = branches(d, nullptr, nullptr);
  p.thunks[2].run = [&d](const std::vector<Tensor>&, std::vector<Tensor>& o) {
    o[0] = on(d, 7, 2);  // e has 2 elements, b has 4
  };
  CallReplay r(p, d, kCap);
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = on(d, 1);
  slots[1] = on(d, 0, 1);
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
  EXPECT_TRUE(r.disabled());
  EXPECT_NE(r.disabled_reason().find("different shapes ((4,) and (2,))"), std::string::npos) << r.disabled_reason();
  execute(p, slots, {}, nullptr);  // node by node: the else value, whatever its shape
  EXPECT_EQ(slots[5].numel(), 2);
  EXPECT_EQ(read(slots[5]), 7.0f);
}

TEST(RecordedBranches, AConditionOfSeveralValuesIsNotRecorded) {
  FakeDevice d;
  d.conditionals = true;
  Program p = branches(d, nullptr, nullptr);
  CallReplay r(p, d, kCap);
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = on(d, 1);
  slots[1] = on(d, 1, 2);  // two values: not a condition
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
  EXPECT_NE(r.disabled_reason().find("ifelse: the condition must hold one value, it holds 2"), std::string::npos)
      << r.disabled_reason();
  EXPECT_NE(r.disabled_reason().find("a = 3 x"), std::string::npos) << r.disabled_reason();  // where
}

}  // namespace
}  // namespace tgc
