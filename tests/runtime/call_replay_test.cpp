// CallReplay's policy on a fake device that records the work enqueued while capturing (as
// CUDA stream capture does) and runs it on replay: when a call is recorded, when a
// recording is replayed, held outputs, in-place updates, and calls that cannot be recorded.
#include "runtime/call_replay.h"
#include "runtime/config.h"
#include "tests/runtime/fake_recording_device.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace tgc {
namespace {

Program one_thunk(FakeDevice& d, bool sync = false) {
  Program p;
  p.num_slots = 2;
  p.bound_slots = {0};
  p.output_slots = {1};
  p.thunks.push_back(scale_thunk(d, 2, 0, 1, sync));
  return p;
}

const std::function<ReplayUpdates()> kNoUpdates = [] { return ReplayUpdates{}; };
const size_t kCap = Config{}.cuda_graph_max_size;  // the default cap; tests of the cap pass their own

TEST(CallReplay, RecordsTheSecondCallWithTheSameShapesAndReplaysTheNext) {
  FakeDevice d;
  Program p = one_thunk(d);
  CallReplay r(p, d, kCap);
  Tensor x = on(d, 1);
  std::vector<Tensor> slots(2);
  slots[0] = x;
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));  // first sight of these shapes: the caller runs it
  EXPECT_FALSE(slots[1].defined());
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates));  // recorded, and run
  EXPECT_EQ(r.recordings(), 1);
  EXPECT_EQ(read(slots[1]), 2.0f);
  slots[1] = Tensor();
  write(x, 5);  // new contents at the same address: the recording reads them
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates));
  EXPECT_EQ(r.replays(), 1);
  EXPECT_EQ(read(slots[1]), 10.0f);
}

TEST(CallReplay, AHeldResultIsNeverOverwrittenASecondRecordingAlternates) {
  FakeDevice d;
  Program p = one_thunk(d);
  CallReplay r(p, d, kCap);
  Tensor x = on(d, 1);
  std::vector<Tensor> slots(2);
  slots[0] = x;
  r.run(slots, {}, kNoUpdates);
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates));
  Tensor first = std::move(slots[1]);  // the caller keeps it, as `last = f()` does
  write(x, 3);
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates));  // the first recording's output is held: a second one
  EXPECT_EQ(r.recordings(), 2);
  EXPECT_EQ(read(first), 2.0f) << "the held result was overwritten";
  EXPECT_EQ(read(slots[1]), 6.0f);
  Tensor second = std::move(slots[1]);
  first = Tensor();  // released: its recording may run again
  write(x, 4);
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates));
  EXPECT_EQ(r.replays(), 1);
  EXPECT_EQ(read(slots[1]), 8.0f);
  EXPECT_EQ(read(second), 6.0f);
}

TEST(CallReplay, ANewAddressIsNotReplayedAndNewShapesStartOver) {
  FakeDevice d;
  Program p = one_thunk(d);
  CallReplay r(p, d, kCap);
  std::vector<Tensor> slots(2);
  slots[0] = on(d, 1);
  r.run(slots, {}, kNoUpdates);
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates));
  slots[1] = Tensor();
  Tensor keep = slots[0];
  slots[0] = on(d, 7);  // same shape, another buffer: recorded anew, not replayed
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates));
  EXPECT_EQ(r.replays(), 0);
  EXPECT_EQ(read(slots[1]), 14.0f);
  slots[1] = Tensor();
  slots[0] = on(d, 1, 8);  // new shape: run by the caller first
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
}

TEST(CallReplay, UpdatesAreWrittenIntoTheSharedBufferSoItsAddressRepeats) {
  FakeDevice d;
  Program p;  // w_new = 2 w: output slot 1 is the update value
  p.num_slots = 2;
  p.bound_slots = {0};
  p.output_slots = {1};
  p.thunks.push_back(scale_thunk(d, 2, 0, 1));
  CallReplay r(p, d, kCap);
  Tensor w = on(d, 1);
  const void* address = w.raw_data();
  auto updates = [&] { return ReplayUpdates{{1, &w}}; };
  std::vector<Tensor> slots(2);
  slots[0] = w;
  EXPECT_FALSE(r.run(slots, {}, updates));
  ASSERT_TRUE(r.run(slots, {}, updates));
  EXPECT_EQ(read(w), 2.0f);  // written in place by the recording
  for (int i = 0; i < 3; ++i) {
    slots[1] = Tensor();
    ASSERT_TRUE(r.run(slots, {}, updates));
  }
  EXPECT_EQ(r.replays(), 3);
  EXPECT_EQ(read(w), 16.0f);
  EXPECT_EQ(w.raw_data(), address);
}

// w_new = 2 w computed in w's own buffer (a handover from the bound slot, as the linker makes
// for an update written in place): the output is the variable, not a result a caller holds,
// so the recording is replayed, writes nothing at its end, and w's buffer is not counted as
// the recording's memory.
TEST(CallReplay, AnUpdateComputedInItsVariablesBufferIsReplayed) {
  FakeDevice d;
  Program p;
  p.num_slots = 2;
  p.bound_slots = {0};
  p.output_slots = {1};
  Thunk t = scale_thunk(d, 2, 0, 1);
  t.inplace = {{0, 0}};
  t.run = [&d](const std::vector<Tensor>& i, std::vector<Tensor>& o) {
    ASSERT_TRUE(o[0].shares_buffer(i[0]));  // handed over
    float* x = static_cast<float*>(o[0].raw_data());
    const int64_t n = o[0].numel();
    d.enqueue([=] {
      for (int64_t k = 0; k < n; ++k) x[k] *= 2;
    });
  };
  p.thunks.push_back(std::move(t));
  CallReplay r(p, d, /*max_recorded_bytes=*/15);  // w alone is 16 bytes
  Tensor w = on(d, 1);
  const void* address = w.raw_data();
  auto updates = [&] { return ReplayUpdates{{1, &w}}; };
  std::vector<Tensor> slots(2);
  for (int call = 0; call < 5; ++call) {
    slots[0] = w;  // bound by the caller before each call
    if (!r.run(slots, {}, updates)) execute(p, slots, {}, nullptr);
    EXPECT_TRUE(slots[1].shares_buffer(w)) << "call " << call;
    slots = std::vector<Tensor>(2);
  }
  EXPECT_EQ(r.recordings(), 1);
  EXPECT_EQ(r.replays(), 3);
  EXPECT_FALSE(r.disabled());
  EXPECT_EQ(read(w), 32.0f);
  EXPECT_EQ(w.raw_data(), address);
}

// Under ASan a replay into a buffer the allocator took back is a use after free: the
// recording's intermediate must stay held while a call in between runs node by node.
TEST(CallReplay, IntermediatesOfARecordingStayHeldWhileOtherCallsRunNodeByNode) {
  FakeDevice d;
  Program p;  // slot 1 = 2 x (an intermediate), slot 2 = 3 * slot 1
  p.num_slots = 3;
  p.bound_slots = {0};
  p.output_slots = {2};
  p.thunks.push_back(scale_thunk(d, 2, 0, 1));
  p.thunks.push_back(scale_thunk(d, 3, 1, 2));
  p.thunks[1].frees = {1};
  CallReplay r(p, d, kCap);
  Tensor x = on(d, 1);
  std::vector<Tensor> slots(3);
  slots[0] = x;
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
  const ExecOptions keep_intermediates{/*allow_gc=*/false, /*sync=*/false};
  execute(p, slots, keep_intermediates, nullptr);
  slots[2] = Tensor();
  ASSERT_TRUE(r.run(slots, keep_intermediates, kNoUpdates));
  EXPECT_EQ(read(slots[2]), 6.0f);
  slots[2] = Tensor();
  // Another buffer for x: recorded anew, the caller runs it: its slots change hands.
  slots[0] = on(d, 2);
  execute(p, slots, keep_intermediates, nullptr);
  slots[1] = slots[2] = Tensor();
  slots[0] = x;
  write(x, 5);
  ASSERT_TRUE(r.run(slots, keep_intermediates, kNoUpdates));
  EXPECT_EQ(r.replays(), 1);
  EXPECT_EQ(read(slots[2]), 30.0f);
}

TEST(CallReplay, AnUpdatedVariableTheGraphDoesNotReadIsPartOfTheKey) {
  FakeDevice d;
  Program p = one_thunk(d);  // v_new = 2 x, v not read
  CallReplay r(p, d, kCap);
  Tensor x = on(d, 1), v = on(d, 0);
  auto updates = [&] { return ReplayUpdates{{1, &v}}; };
  std::vector<Tensor> slots(2);
  slots[0] = x;
  r.run(slots, {}, updates);
  ASSERT_TRUE(r.run(slots, {}, updates));
  EXPECT_EQ(read(v), 2.0f);
  slots[1] = Tensor();
  Tensor old_v = v;
  v = on(d, 0);  // set_value(): the variable has another buffer now
  write(x, 4);
  ASSERT_TRUE(r.run(slots, {}, updates));  // recorded anew for the new buffer
  EXPECT_EQ(r.replays(), 0);
  EXPECT_EQ(read(v), 8.0f);
  EXPECT_EQ(read(old_v), 2.0f) << "the recording wrote the variable's old buffer";
}

TEST(CallReplay, ARecordingKeepingTooMuchMemoryIsUsedOnceAndDropped) {
  FakeDevice d;
  Program p = one_thunk(d);
  CallReplay r(p, d, /*max_recorded_bytes=*/15);  // the output alone is 16 bytes
  std::vector<Tensor> slots(2);
  slots[0] = on(d, 1);
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
  ASSERT_TRUE(r.run(slots, {}, kNoUpdates));  // recorded and run: its result stands
  EXPECT_EQ(read(slots[1]), 2.0f);
  EXPECT_TRUE(r.disabled());
  EXPECT_NE(r.disabled_reason().find("would keep"), std::string::npos) << r.disabled_reason();
  slots[1] = Tensor();
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));  // node by node from now on
  EXPECT_EQ(r.replays(), 0);
}

TEST(CallReplay, ACallThatSynchronisesIsNotRecordedAndRecordingStops) {
  FakeDevice d;
  Program p = one_thunk(d, /*sync=*/true);
  CallReplay r(p, d, kCap);
  std::vector<Tensor> slots(2);
  slots[0] = on(d, 1);
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));
  EXPECT_FALSE(r.run(slots, {}, kNoUpdates));  // the recording failed: the caller runs it
  EXPECT_FALSE(slots[1].defined()) << "a result of the never-run recording was left behind";
  EXPECT_TRUE(r.disabled());
  // Function::cuda_graph_status() shows why: the thunk's own error (the fake device's is no
  // tgc error, so the executor reports it as one, naming the node).
  EXPECT_NE(r.disabled_reason().find("synchronize while capturing in y = scale(x)"), std::string::npos)
      << r.disabled_reason();
  execute(p, slots, {}, nullptr);  // and the normal run works
  EXPECT_EQ(read(slots[1]), 2.0f);
}

TEST(CallReplay, OnlyProgramsOfDeviceAndTransferThunksOnOneDeviceAreEligible) {
  FakeDevice d, other;
  Program p = one_thunk(d);
  EXPECT_TRUE(CallReplay::eligible(p, d));
  EXPECT_FALSE(CallReplay::eligible(p, other));
  p.thunks[0].kind = ThunkKind::Transfer;  // records as a copy
  EXPECT_TRUE(CallReplay::eligible(p, d));
  p.thunks[0].kind = ThunkKind::Cpu;
  EXPECT_FALSE(CallReplay::eligible(p, d));
  EXPECT_FALSE(CallReplay::eligible(Program{}, d));
}

}  // namespace
}  // namespace tgc
