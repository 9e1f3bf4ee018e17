// The executor and side work (Device::side_work_pending: a collective left running on a stream
// beside the default one): joined before a thunk reads one of its buffers and not before
// independent work, joined at the end of a call and after a failure, and a buffer it still
// uses is never handed to another thunk's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "runtime/error.h"
#include "runtime/executor.h"
#include "support/host_memory_device.h"

namespace tgc {
namespace {

// Host memory; "side work" is a list of tensors a thunk left, joined all at once.
class SideDevice final : public test::HostMemoryDevice {
 public:
  SideDevice() : HostMemoryDevice(DeviceKind::Cuda, "side") {}

  void leave(const Tensor& t) { held.push_back(t); }
  bool side_work_pending() const override { return !held.empty(); }
  bool side_work_holds(const Buffer* b) const override {
    return std::any_of(held.begin(), held.end(), [&](const Tensor& t) { return t.buffer().get() == b; });
  }
  void join_side_work(const Buffer* b) override {
    if (held.empty() || (b && !side_work_holds(b))) return;
    ++joins;
    held.clear();
  }

  std::vector<Tensor> held;
  int joins = 0;
};

Thunk on(SideDevice& dev, std::string op, std::vector<int> in, std::vector<int> out, ThunkFn run) {
  Thunk t;
  t.op_name = t.op_class = op;
  t.label = op + "_node";
  t.kind = ThunkKind::Gpu;
  t.device = &dev;
  t.inputs = std::move(in);
  t.outputs = std::move(out);
  t.run = std::move(run);
  return t;
}

Tensor fresh(SideDevice& dev) { return Tensor::empty(DType::Float32, {4}, dev); }

std::vector<Tensor> slots_of(const Program& p) {
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = Tensor::from_vector<float>({1, 2, 3, 4});
  return slots;
}

TEST(ExecutorSideWork, JoinsBeforeAReaderOfItsBufferNotBeforeIndependentWork) {
  SideDevice dev;
  int joins_seen_by_other = -1, joins_seen_by_reader = -1;
  Program p;
  p.num_slots = 4;
  p.bound_slots = {0};
  p.output_slots = {2, 3};
  // slot 1: a collective's result, still being written beside the default stream.
  p.thunks.push_back(on(dev, "collective", {0}, {1}, [&](auto&, auto& out) {
    out[0] = fresh(dev);
    dev.leave(out[0]);
  }));
  p.thunks.push_back(on(dev, "other", {0}, {2}, [&](auto&, auto& out) {
    joins_seen_by_other = dev.joins;
    out[0] = fresh(dev);
  }));
  p.thunks.push_back(on(dev, "reader", {1}, {3}, [&](auto&, auto& out) {
    joins_seen_by_reader = dev.joins;
    out[0] = fresh(dev);
  }));
  p.thunks.back().frees = {1};
  auto slots = slots_of(p);
  execute(p, slots, {}, nullptr);
  EXPECT_EQ(joins_seen_by_other, 0);
  EXPECT_EQ(joins_seen_by_reader, 1);
  EXPECT_EQ(dev.joins, 1);
  EXPECT_FALSE(dev.side_work_pending());
}

TEST(ExecutorSideWork, JoinsWhatNoThunkReadAtTheEndOfTheCall) {
  SideDevice dev;
  Program p;
  p.num_slots = 2;
  p.bound_slots = {0};
  p.output_slots = {1};  // a collective's result returned as it is (a data-parallel loss)
  p.thunks.push_back(on(dev, "collective", {0}, {1}, [&](auto&, auto& out) {
    out[0] = fresh(dev);
    dev.leave(out[0]);
  }));
  for (int call = 1; call <= 2; ++call) {
    auto slots = slots_of(p);
    execute(p, slots, {}, nullptr);
    EXPECT_EQ(dev.joins, call);
    EXPECT_FALSE(dev.side_work_pending());
  }
}

TEST(ExecutorSideWork, ABufferStillUsedBesideIsNotHandedToAnotherOutput) {
  SideDevice dev;
  bool handed = true;
  int joins_seen = -1;
  Program p;
  p.num_slots = 4;
  p.bound_slots = {0};
  p.output_slots = {2, 3};
  p.thunks.push_back(on(dev, "gradient", {0}, {1}, [&](auto&, auto& out) { out[0] = fresh(dev); }));
  // The collective reads slot 1 beside the default stream; slot 1 is dead to the program after it.
  p.thunks.push_back(on(dev, "collective", {1}, {2}, [&](auto& in, auto& out) {
    out[0] = fresh(dev);
    dev.leave(in[0]);
    dev.leave(out[0]);
  }));
  p.thunks.back().frees = {1};
  // The memory plan offers slot 1's buffer to the next product's output.
  p.thunks.push_back(on(dev, "product", {0}, {3}, [&](auto&, auto& out) {
    handed = out[0].defined();
    joins_seen = dev.joins;
    out[0] = fresh(dev);
  }));
  p.thunks.back().reuse = {{0, 1}};
  auto slots = slots_of(p);
  execute(p, slots, {}, nullptr);
  EXPECT_FALSE(handed);
  EXPECT_EQ(joins_seen, 0);  // no wait: the product writes a buffer of its own
  EXPECT_EQ(dev.joins, 1);
}

TEST(ExecutorSideWork, AFailedCallStillJoinsAndLetsGoOfTheBuffers) {
  SideDevice dev;
  Program p;
  p.num_slots = 3;
  p.bound_slots = {0};
  p.output_slots = {2};
  p.thunks.push_back(on(dev, "collective", {0}, {1}, [&](auto&, auto& out) {
    out[0] = fresh(dev);
    dev.leave(out[0]);
  }));
  p.thunks.push_back(on(dev, "failing", {0}, {2}, [](auto&, auto&) { throw ValueError("boom", "", ""); }));
  auto slots = slots_of(p);
  EXPECT_THROW(execute(p, slots, {}, nullptr), ValueError);
  EXPECT_FALSE(dev.side_work_pending());
  EXPECT_EQ(dev.joins, 1);
}

}  // namespace
}  // namespace tgc
