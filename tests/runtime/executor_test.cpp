// Tests of the executor on hand-built Programs with lambda thunks: order, gc, buffer reuse
// with gc off, failure cleanup and error locations, sync, and the peak-memory numbers.
#include "runtime/executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "runtime/error.h"
#include "runtime/profiler.h"
#include "support/host_memory_device.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

Thunk make_thunk(std::string op, std::vector<int> in, std::vector<int> out, std::vector<int> frees,
                 ThunkFn run, ThunkKind kind = ThunkKind::Cpu) {
  Thunk t;
  t.op_name = op;
  t.op_class = op;
  t.label = op + "_node";
  t.kind = kind;
  t.inputs = std::move(in);
  t.outputs = std::move(out);
  t.frees = std::move(frees);
  t.run = std::move(run);
  return t;
}

// out = in * factor + offset, elementwise on float32 vectors (a fresh tensor each time).
ThunkFn affine(float factor, float offset) {
  return [=](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    std::vector<float> v = in[0].to_vector<float>();
    for (float& x : v) x = x * factor + offset;
    out[0] = Tensor::from_vector(v, in[0].shape());
  };
}

std::vector<Tensor> fresh_slots(const Program& p, const Tensor& x) {
  std::vector<Tensor> slots(p.num_slots);
  slots[p.bound_slots[0]] = x;
  for (const auto& [s, t] : p.constants) slots[s] = t;
  return slots;
}

// x (slot 0, bound) -> a = 2x (slot 1) -> b = a + 1 (slot 2) -> out = 10b (slot 3).
Program chain(std::vector<int>* order = nullptr) {
  Program p;
  p.num_slots = 4;
  p.bound_slots = {0};
  p.output_slots = {3};
  auto logged = [order](int i, ThunkFn f) -> ThunkFn {
    return [=](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
      if (order) order->push_back(i);
      f(in, out);
    };
  };
  p.thunks.push_back(make_thunk("double", {0}, {1}, {}, logged(0, affine(2, 0))));
  p.thunks.push_back(make_thunk("inc", {1}, {2}, {1}, logged(1, affine(1, 1))));
  p.thunks.push_back(make_thunk("scale", {2}, {3}, {2}, logged(2, affine(10, 0))));
  return p;
}

TEST(Executor, RunsThunksInOrder) {
  std::vector<int> order;
  Program p = chain(&order);
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1, 2, 3}));
  execute(p, slots, {}, nullptr);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(slots[3].to_vector<float>(), (std::vector<float>{30, 50, 70}));
  EXPECT_EQ(slots[0].to_vector<float>(), (std::vector<float>{1, 2, 3}));  // input untouched
}

TEST(Executor, GcDropsIntermediatesAtTheirLastUse) {
  for (bool gc : {true, false}) {
    std::weak_ptr<Buffer> a_buffer;
    bool a_alive_in_scale = false;
    Program p = chain();
    auto inner = p.thunks[0].run;
    p.thunks[0].run = [&](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
      inner(in, out);
      a_buffer = out[0].buffer();
    };
    auto scale = p.thunks[2].run;
    p.thunks[2].run = [&](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
      a_alive_in_scale = !a_buffer.expired();  // a's last reader ("inc") has run
      scale(in, out);
    };
    auto slots = fresh_slots(p, Tensor::from_vector<float>({1, 2}));
    execute(p, slots, {.allow_gc = gc}, nullptr);
    EXPECT_EQ(a_alive_in_scale, !gc) << "allow_gc=" << gc;
    EXPECT_EQ(slots[1].defined(), !gc);
    EXPECT_EQ(slots[2].defined(), !gc);
    EXPECT_EQ(slots[3].to_vector<float>(), (std::vector<float>{30, 50}));
    EXPECT_TRUE(slots[0].defined());
  }
}

TEST(Executor, GcOffHandsLastCallsTensorsBackForReuse) {
  for (bool gc : {true, false}) {
    Program p;
    p.num_slots = 3;
    p.bound_slots = {0};
    p.output_slots = {2};
    std::vector<bool> got_previous;
    std::vector<const void*> buffers;
    auto reusing = [&](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
      got_previous.push_back(out[0].defined());
      if (!out[0].defined() || out[0].shape() != in[0].shape())
        out[0] = Tensor::empty(DType::Float32, in[0].shape());
      float* o = out[0].data<float>();
      const float* x = in[0].data<float>();
      for (int64_t k = 0; k < in[0].numel(); ++k) o[k] = x[k] + 1;
      buffers.push_back(out[0].raw_data());
    };
    p.thunks.push_back(make_thunk("inc1", {0}, {1}, {}, reusing));
    p.thunks.push_back(make_thunk("inc2", {1}, {2}, {1}, reusing));
    auto slots = fresh_slots(p, Tensor::from_vector<float>({1, 2}));
    execute(p, slots, {.allow_gc = gc}, nullptr);
    slots[0] = Tensor::from_vector<float>({5, 6});
    execute(p, slots, {.allow_gc = gc}, nullptr);
    EXPECT_EQ(slots[2].to_vector<float>(), (std::vector<float>{7, 8}));
    ASSERT_EQ(got_previous.size(), 4u);
    // First call: nothing to reuse. Second call: last call's tensors only when gc is off.
    EXPECT_EQ(got_previous, (std::vector<bool>{false, false, !gc, !gc})) << "allow_gc=" << gc;
    if (!gc) {
      EXPECT_EQ(buffers[2], buffers[0]);
      EXPECT_EQ(buffers[3], buffers[1]);
    }
  }
}

// x (bound, slot 0), c (constant, slot 4) -> a (slot 1) -> out1 (slot 2) -> fails (slot 3).
Program failing(ThunkFn thrower) {
  Program p;
  p.num_slots = 5;
  p.bound_slots = {0};
  p.constants = {{4, Tensor::from_vector<float>({100})}};
  p.output_slots = {2, 3, 0};  // an output may also be a bound slot
  p.thunks.push_back(make_thunk("double", {0}, {1}, {}, affine(2, 0)));
  p.thunks.push_back(make_thunk("inc", {1, 4}, {2}, {}, affine(1, 1)));
  p.thunks.push_back(make_thunk("Fail", {2}, {3}, {1}, std::move(thrower)));
  p.thunks.back().label = "y = fail(out1)";
  return p;
}

TEST(Executor, TgcErrorGetsTheLabelAndClearsResults) {
  for (bool gc : {true, false}) {
    Program p = failing([](const std::vector<Tensor>&, std::vector<Tensor>&) {
      throw ValueError("fail: index 7 is out of bounds for axis 0 with size 2", "", "check it");
    });
    Tensor x = Tensor::from_vector<float>({1, 2});
    auto slots = fresh_slots(p, x);
    try {
      execute(p, slots, {.allow_gc = gc}, nullptr);
      FAIL() << "expected a ValueError";
    } catch (const ValueError& e) {  // the thrown type survives
      EXPECT_EQ(e.where(), "y = fail(out1)");
      EXPECT_THAT(e.what(), HasSubstr("out of bounds for axis 0 with size 2 in y = fail(out1)"));
      EXPECT_EQ(e.hint(), "check it");
    }
    EXPECT_FALSE(slots[1].defined()) << "intermediate kept, allow_gc=" << gc;
    EXPECT_FALSE(slots[2].defined()) << "output kept, allow_gc=" << gc;
    EXPECT_FALSE(slots[3].defined());
    EXPECT_TRUE(slots[0].shares_buffer(x));  // bound slot untouched
    EXPECT_EQ(slots[4].to_vector<float>(), (std::vector<float>{100}));  // constant untouched
  }
}

TEST(Executor, ExistingErrorLocationIsKept) {
  Program p = failing([](const std::vector<Tensor>&, std::vector<Tensor>&) {
    throw ShapeError("fail: bad shape", "z = inner(q)");
  });
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1}));
  try {
    execute(p, slots, {}, nullptr);
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.where(), "z = inner(q)");
  }
}

TEST(Executor, FailureAfterASuccessfulGcOffCallClearsKeptBuffers) {
  bool fail = false;
  Program p = failing([&](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    if (fail) throw ValueError("fail: now");
    out[0] = in[0].copy();
  });
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1}));
  execute(p, slots, {.allow_gc = false}, nullptr);
  EXPECT_TRUE(slots[1].defined());  // kept for reuse
  EXPECT_EQ(slots[3].to_vector<float>(), (std::vector<float>{3}));
  fail = true;
  EXPECT_THROW(execute(p, slots, {.allow_gc = false}, nullptr), ValueError);
  for (int s : {1, 2, 3}) EXPECT_FALSE(slots[s].defined()) << "slot " << s;
}

TEST(Executor, ForeignExceptionsBecomeInternalErrors) {
  Program p = failing([](const std::vector<Tensor>&, std::vector<Tensor>&) {
    throw std::out_of_range("vector::at");
  });
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1}));
  try {
    execute(p, slots, {}, nullptr);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("'Fail' failed with an unexpected exception: vector::at"));
    EXPECT_EQ(e.where(), "y = fail(out1)");
  }
  EXPECT_FALSE(slots[2].defined());

  Program q = failing([](const std::vector<Tensor>&, std::vector<Tensor>&) { throw 42; });
  auto more = fresh_slots(q, Tensor::from_vector<float>({1}));
  EXPECT_THROW(execute(q, more, {}, nullptr), InternalError);
}

TEST(Executor, UndefinedOutputIsAnInternalErrorNamingTheOp) {
  Program p = failing([](const std::vector<Tensor>&, std::vector<Tensor>&) {});
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1}));
  try {
    execute(p, slots, {}, nullptr);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("output 0 of 'Fail' (slot 3) is undefined after the thunk ran"));
    EXPECT_EQ(e.where(), "y = fail(out1)");
  }
  EXPECT_FALSE(slots[1].defined());
  EXPECT_FALSE(slots[2].defined());
}

TEST(Executor, ThunkChangingItsOutputCountIsAnInternalError) {
  Program p = failing([](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    out.push_back(in[0]);
  });
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1}));
  try {
    execute(p, slots, {}, nullptr);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("'Fail' returned 2 outputs, expected 1"));
  }
}

TEST(Executor, UnfilledBoundSlotIsAnInternalErrorNamingTheOp) {
  Program p = chain();
  std::vector<Tensor> slots(p.num_slots);  // slot 0 never bound
  try {
    execute(p, slots, {}, nullptr);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("input 0 of 'double' (slot 0) is undefined before"));
    EXPECT_EQ(e.where(), "double_node");
  }
  std::vector<Tensor> wrong(2);
  EXPECT_THROW(execute(p, wrong, {}, nullptr), InternalError);
}

TEST(Executor, SyncWaitsForGpuAndTransferThunksOnly) {
  for (bool sync : {false, true}) {
    test::HostMemoryDevice dev;  // counts how often it was waited for
    auto on_dev = [&](const std::vector<Tensor>&, std::vector<Tensor>& out) {
      for (Tensor& o : out) o = Tensor::empty(DType::Float32, {2}, dev);
    };
    Program p;
    p.num_slots = 6;
    p.bound_slots = {0};
    p.output_slots = {5};
    p.thunks.push_back(make_thunk("HostToDevice", {0}, {1}, {}, on_dev, ThunkKind::Transfer));
    p.thunks.push_back(make_thunk("GpuSplit", {1}, {2, 3}, {1}, on_dev, ThunkKind::Gpu));
    p.thunks.push_back(make_thunk("HostOp", {2}, {4}, {2}, on_dev, ThunkKind::Cpu));
    p.thunks.push_back(make_thunk("DeviceToHost", {3, 4}, {5}, {3, 4}, on_dev, ThunkKind::Transfer));
    auto slots = fresh_slots(p, Tensor::from_vector<float>({1, 2}));
    execute(p, slots, {.allow_gc = true, .sync = sync}, nullptr);
    // One wait per output of a gpu or transfer thunk: 1 + 2 + 1; none for the cpu thunk.
    EXPECT_EQ(dev.stream.syncs.load(), sync ? 4 : 0);
  }
}

TEST(Executor, ProfilerGetsEveryThunkAndEveryCall) {
  Program p = chain();
  Profiler prof("f", p);
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1, 2, 3}));
  for (int call = 0; call < 3; ++call) {
    prof.begin_call();
    execute(p, slots, {}, &prof);
    prof.end_call();
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(prof.thunk_calls(i), 3);
  EXPECT_EQ(prof.calls(), 3);
  EXPECT_EQ(prof.trace_events(), 9u);
  EXPECT_GT(prof.execute_seconds(), 0.0);
  EXPECT_LE(prof.total_thunk_seconds(), prof.execute_seconds());
  EXPECT_LE(prof.execute_seconds(), prof.total_call_seconds());
  // Three float32 vectors of 3 elements (12 bytes each), at most two alive with gc.
  EXPECT_EQ(prof.peak_bytes_with_gc(), 24);
  EXPECT_EQ(prof.peak_bytes_without_gc(), 36);
}

// x (bound, 40 bytes) -> a (400 B) -> v = view of a, b (200 B) -> c (800 B) -> out (1000 B),
// plus xv, an output that is a view of the bound input x (not the function's memory).
Program memory_program() {
  auto make = [](int64_t bytes) { return Tensor::empty(DType::Float32, {bytes / 4}); };
  Program p;
  p.num_slots = 7;
  p.bound_slots = {0};
  p.output_slots = {5, 6};
  p.thunks.push_back(make_thunk("A", {0}, {1}, {}, [=](auto&, auto& out) { out[0] = make(400); }));
  p.thunks.push_back(make_thunk("VB", {1}, {2, 3}, {1}, [=](auto& in, auto& out) {
    out[0] = in[0].reshape({10, 10});  // a view: same buffer as a
    out[1] = make(200);
  }));
  p.thunks.push_back(make_thunk("C", {2, 3}, {4}, {2, 3}, [=](auto&, auto& out) { out[0] = make(800); }));
  p.thunks.push_back(make_thunk("Out", {4, 0}, {5, 6}, {4}, [=](auto& in, auto& out) {
    out[0] = make(1000);
    out[1] = in[1].reshape({2, 5});
  }));
  return p;
}

TEST(Executor, PeakMemoryWithAndWithoutGc) {
  // With gc, after each thunk stores its outputs (before its frees):
  //   A: a 400 | VB: a(=v) 400 + b 200 = 600, then a's slot dies but v keeps the buffer
  //   C: 400 + 200 + c 800 = 1400, then v, b die -> 800 | Out: 800 + 1000 = 1800.
  // Without gc everything stays: 400 + 200 + 800 + 1000 = 2400 (the view counted once).
  for (bool gc : {true, false}) {
    Program p = memory_program();
    Profiler prof("mem", p);
    auto slots = fresh_slots(p, Tensor::zeros(DType::Float32, {10}));
    execute(p, slots, {.allow_gc = gc}, &prof);
    execute(p, slots, {.allow_gc = gc}, &prof);
    EXPECT_EQ(prof.peak_bytes_with_gc(), 1800) << "allow_gc=" << gc;
    EXPECT_EQ(prof.peak_bytes_without_gc(), 2400) << "allow_gc=" << gc;
    std::string report = prof.report();
    EXPECT_THAT(report, HasSubstr(gc ? "current setting (allow_gc=true): 1.8KB (1800B)"
                                     : "current setting (allow_gc=false): 2.3KB (2400B)"));
    EXPECT_THAT(report, HasSubstr(gc ? "if allow_gc=false: 2.3KB (2400B)"
                                     : "if allow_gc=true: 1.8KB (1800B)"));
  }
}

TEST(Executor, MemoryOfOneCallIsNotAddedToTheNext) {
  Program p = memory_program();
  Profiler prof("mem", p);
  auto slots = fresh_slots(p, Tensor::zeros(DType::Float32, {10}));
  for (int i = 0; i < 4; ++i) execute(p, slots, {.allow_gc = false}, &prof);
  EXPECT_EQ(prof.peak_bytes_without_gc(), 2400);
  EXPECT_EQ(prof.peak_bytes_with_gc(), 1800);
}


// --- buffer handovers (Thunk::inplace, Thunk::reuse) ---

// The ops' side of a handover (ops/core/op.h's ensure_output and ensure_output_inplace),
// restated here without the ops layer: keep the handed tensor when nothing beyond `allowed`
// other references holds its buffer and its size fits, else allocate.
Tensor& take_or_allocate(Tensor& slot, const Shape& shape, long allowed) {
  const bool fits = slot.defined() && slot.buffer_use_count() == 1 + allowed &&
                    slot.buffer()->bytes() == static_cast<size_t>(shape_numel(shape)) * 4;
  if (!fits) slot = Tensor::empty(DType::Float32, shape);
  else if (slot.shape() != shape) slot = Tensor::view_of(slot.buffer(), DType::Float32, shape, contiguous_strides(shape), 0);
  return slot;
}

// out = in + 1 on float32, computed in the handed-over input (read through `in` too);
// records the output's buffer.
ThunkFn inc_inplace(std::vector<const void*>* buffers) {
  return [=](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    Tensor& o = take_or_allocate(out[0], in[0].shape(), out[0].shares_buffer(in[0]) ? 1 : 0);
    const float* x = in[0].data<float>();
    float* y = o.data<float>();
    for (int64_t k = 0; k < o.numel(); ++k) y[k] = x[k] + 1;
    if (buffers) buffers->push_back(o.raw_data());
  };
}

// out = in * 2, reusing a handed-over buffer of the right size.
ThunkFn twice(std::vector<const void*>* buffers) {
  return [=](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    Tensor& o = take_or_allocate(out[0], in[0].shape(), 0);
    const float* x = in[0].data<float>();
    float* y = o.data<float>();
    for (int64_t k = 0; k < o.numel(); ++k) y[k] = x[k] * 2;
    if (buffers) buffers->push_back(o.raw_data());
  };
}

TEST(ExecutorHandover, InplaceMovesTheDyingInputIntoTheOutput) {
  for (bool gc : {true, false}) {
    std::vector<const void*> buffers;
    // x (bound 0) -> a = 2x (1) -> b = a + 1 in a's buffer (2, output).
    Program p;
    p.num_slots = 3;
    p.bound_slots = {0};
    p.output_slots = {2};
    p.thunks.push_back(make_thunk("twice", {0}, {1}, {}, twice(&buffers)));
    p.thunks.push_back(make_thunk("inc", {1}, {2}, {1}, inc_inplace(&buffers)));
    p.thunks[1].inplace = {{0, 1}};
    Profiler prof("inplace", p);
    auto slots = fresh_slots(p, Tensor::from_vector<float>({1, 2, 3}));
    execute(p, slots, {.allow_gc = gc}, &prof);
    EXPECT_EQ(slots[2].to_vector<float>(), (std::vector<float>{3, 5, 7}));
    EXPECT_EQ(slots[0].to_vector<float>(), (std::vector<float>{1, 2, 3}));
    ASSERT_EQ(buffers.size(), 2u);
    EXPECT_EQ(buffers[1], buffers[0]) << "allow_gc=" << gc;
    EXPECT_FALSE(slots[1].defined());  // moved out, whatever gc says
    // One buffer of 12 bytes at any time, and no second one allocated.
    EXPECT_EQ(prof.peak_bytes_with_gc(), 12);
    EXPECT_EQ(prof.peak_bytes_without_gc(), 12);
  }
}

TEST(ExecutorHandover, ABufferAnotherSlotStillHoldsIsNeverOverwritten) {
  // a (1) and its view v (2); inc overwrites v's buffer while a is read later (bad plan):
  // the op sees the extra holder and allocates.
  std::vector<const void*> buffers;
  Program p;
  p.num_slots = 5;
  p.bound_slots = {0};
  p.output_slots = {3, 4};
  p.thunks.push_back(make_thunk("twice", {0}, {1}, {}, twice(&buffers)));
  p.thunks.push_back(make_thunk("view", {1}, {2}, {}, [](auto& in, auto& out) { out[0] = in[0]; }));
  p.thunks.push_back(make_thunk("inc", {2}, {3}, {2}, inc_inplace(&buffers)));
  p.thunks[2].inplace = {{0, 2}};
  p.thunks.push_back(make_thunk("twice", {1}, {4}, {1}, twice(nullptr)));
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1, 2}));
  execute(p, slots, {}, nullptr);
  EXPECT_NE(buffers[1], buffers[0]);
  EXPECT_EQ(slots[3].to_vector<float>(), (std::vector<float>{3, 5}));
  EXPECT_EQ(slots[4].to_vector<float>(), (std::vector<float>{4, 8}));  // a was not overwritten
}

TEST(ExecutorHandover, ReuseHandsADeadBufferToALaterOutput) {
  // x -> a (1) -> b (2) -> c (3, output) with c taking a's buffer (dead since b).
  std::vector<const void*> buffers;
  Program p;
  p.num_slots = 4;
  p.bound_slots = {0};
  p.output_slots = {3};
  p.thunks.push_back(make_thunk("twice", {0}, {1}, {}, twice(&buffers)));
  p.thunks.push_back(make_thunk("twice", {1}, {2}, {}, twice(&buffers)));  // a kept for c
  p.thunks.push_back(make_thunk("twice", {2}, {3}, {2}, twice(&buffers)));
  p.thunks[2].reuse = {{0, 1}};
  Profiler prof("reuse", p);
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1, 2}));
  execute(p, slots, {}, &prof);
  EXPECT_EQ(slots[3].to_vector<float>(), (std::vector<float>{8, 16}));
  EXPECT_EQ(buffers[2], buffers[0]);
  EXPECT_FALSE(slots[1].defined());
  // Two buffers exist in all: a's (then c's) and b's.
  EXPECT_EQ(prof.peak_bytes_with_gc(), 16);
  EXPECT_EQ(prof.peak_bytes_without_gc(), 16);
}

TEST(ExecutorHandover, AnEmptySourceSlotOrAWrongSizeFallsBackToAllocation) {
  std::vector<const void*> buffers;
  Program p;
  p.num_slots = 4;
  p.bound_slots = {0};
  p.output_slots = {2, 3};
  p.thunks.push_back(make_thunk("twice", {0}, {1}, {}, twice(&buffers)));
  p.thunks[0].reuse = {{0, 2}};  // slot 2 is empty on the first call
  p.thunks.push_back(make_thunk("sum", {1}, {2}, {1}, [&](auto& in, auto& out) {
    Tensor& o = take_or_allocate(out[0], {}, 0);
    o.template data<float>()[0] = in[0].template data<float>()[0] + in[0].template data<float>()[1];
    buffers.push_back(o.raw_data());
  }));
  p.thunks.push_back(make_thunk("twice", {0}, {3}, {}, twice(&buffers)));
  p.thunks[1].reuse = {{0, 1}};  // 8 bytes offered for a 4-byte result: not taken
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1, 2}));
  execute(p, slots, {}, nullptr);
  EXPECT_EQ(slots[2].to_vector<float>(), (std::vector<float>{6}));
  EXPECT_EQ(slots[3].to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_NE(buffers[1], buffers[0]);
}

TEST(ExecutorHandover, AHandoverNamingNoSlotIsAnInternalError) {
  Program p = chain();
  p.thunks[1].reuse = {{0, 17}};
  auto slots = fresh_slots(p, Tensor::from_vector<float>({1}));
  EXPECT_THROW(execute(p, slots, {}, nullptr), InternalError);
}
}  // namespace
}  // namespace tgc
