// The executor's lazy branches on hand-built Programs (Thunk::guard, Thunk::choice):
// skipped thunks record no call, leave their outputs unset, apply their frees and drop the
// buffers handed to them; conditions are read once; a test whose condition is not computed
// yet counts as holding; an ordinary thunk given a skipped value is an internal error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/error.h"
#include "runtime/executor.h"
#include "runtime/profiler.h"

namespace tgc {
namespace {

Thunk thunk(std::string op, std::vector<int> in, std::vector<int> out, std::vector<int> frees, ThunkFn run) {
  Thunk t;
  t.op_name = t.op_class = op;
  t.label = op + "_node";
  t.inputs = std::move(in);
  t.outputs = std::move(out);
  t.frees = std::move(frees);
  t.run = std::move(run);
  return t;
}

ThunkFn scaled(float factor, int* calls = nullptr) {
  return [=](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    if (calls) ++*calls;
    std::vector<float> v = in[0].to_vector<float>();
    for (float& x : v) x *= factor;
    out[0] = Tensor::from_vector(v, in[0].shape());
  };
}

// out = in[1] when the condition in[0] is nonzero, else in[2] (one of them may be undefined).
ThunkFn select() {
  return [](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    const bool c = in[0].at({}) != 0;
    const Tensor& v = in[c ? 1 : 2];
    if (!v.defined()) throw InternalError("select: the taken value is missing", "", "");
    out[0] = v;
  };
}

Tensor cond(int v) { return Tensor::from_vector(std::vector<int32_t>{v}).reshape({}); }

// Slots: 0 x, 1 c (bound); 2 t = 2x; 3 u = 2t (output; t dead, kept for a's reuse);
// 4 a = 3u (then, takes t's buffer); 5 e = 5x (else); 6 y = select(c, a, e) (output).
Program branches(int* then_calls, int* else_calls) {
  Program p;
  p.num_slots = 7;
  p.bound_slots = {0, 1};
  p.output_slots = {3, 6};
  p.thunks.push_back(thunk("t", {0}, {2}, {}, scaled(2)));
  p.thunks.push_back(thunk("u", {2}, {3}, {}, scaled(2)));
  p.thunks.push_back(thunk("a", {3}, {4}, {}, scaled(3, then_calls)));
  p.thunks[2].reuse = {{0, 2}};
  p.thunks[2].guard = {{{1, -1, true}}};
  p.thunks.push_back(thunk("e", {0}, {5}, {}, scaled(5, else_calls)));
  p.thunks[3].guard = {{{1, -1, false}}};
  p.thunks.push_back(thunk("select", {1, 4, 5}, {6}, {4, 5}, select()));
  p.thunks[4].choice = Thunk::Choice{0, {1}, {2}};
  return p;
}

TEST(ExecutorBranches, SkipsTheUntakenBranchWithGcOnAndOff) {
  for (bool gc : {true, false}) {
    int then_calls = 0, else_calls = 0;
    Program p = branches(&then_calls, &else_calls);
    Profiler prof("branches", p);
    std::vector<Tensor> slots(p.num_slots);
    slots[0] = Tensor::from_vector<float>({1, 2});
    for (int c : {0, 1, 0, 0}) {
      slots[1] = cond(c);
      execute(p, slots, {.allow_gc = gc}, &prof);
      EXPECT_EQ(slots[6].to_vector<float>(), c ? (std::vector<float>{12, 24}) : (std::vector<float>{5, 10}))
          << "allow_gc=" << gc;
      EXPECT_EQ(slots[3].to_vector<float>(), (std::vector<float>{4, 8}));
      // t's buffer was handed to a skipped thunk: dropped as gc would drop it.
      if (gc) {
        EXPECT_FALSE(slots[2].defined());
      }
    }
    EXPECT_EQ(then_calls, 1);
    EXPECT_EQ(else_calls, 3);
    EXPECT_EQ(prof.thunk_calls(2), 1);
    EXPECT_EQ(prof.thunk_calls(3), 3);
    EXPECT_EQ(prof.thunk_calls(4), 4);
  }
}

TEST(ExecutorBranches, AConditionNotComputedYetCountsAsHolding) {
  int calls = 0;
  Program p;
  p.num_slots = 4;
  p.bound_slots = {0};
  p.output_slots = {3};
  p.thunks.push_back(thunk("a", {0}, {1}, {}, scaled(2, &calls)));
  p.thunks[0].guard = {{{2, 1, false}}};  // slot 2 is made by thunk 1, after this one
  p.thunks.push_back(thunk("c", {0}, {2}, {}, [](auto&, auto& out) { out[0] = cond(1); }));
  p.thunks.push_back(thunk("select", {2, 0, 1}, {3}, {1, 2}, select()));
  p.thunks[2].choice = Thunk::Choice{0, {1}, {2}};
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = Tensor::from_vector<float>({1});
  execute(p, slots, {}, nullptr);
  EXPECT_EQ(calls, 1);  // ran, though its condition turned out false
  EXPECT_EQ(slots[3].to_vector<float>(), (std::vector<float>{1}));
}

TEST(ExecutorBranches, AnyTermOfAGuardHoldingRunsTheThunk) {
  int calls = 0;
  Program p;
  p.num_slots = 4;
  p.bound_slots = {0, 1, 2};
  p.output_slots = {3};
  p.thunks.push_back(thunk("a", {0}, {3}, {}, scaled(2, &calls)));
  // (c1 and not c2) or c2... as tests: [c1=true, c2=false] or [c2=true]
  p.thunks[0].guard = {{{1, -1, true}, {2, -1, false}}, {{2, -1, true}}};
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = Tensor::from_vector<float>({1});
  for (auto [c1, c2, runs] : {std::tuple{1, 0, true}, {0, 1, true}, {0, 0, false}}) {
    calls = 0;
    slots[3] = Tensor();  // the caller takes the results
    slots[1] = cond(c1);
    slots[2] = cond(c2);
    if (runs) {
      execute(p, slots, {}, nullptr);
      EXPECT_EQ(calls, 1);
    } else {
      // (A real program never guards a result; only the skip is checked here.)
      EXPECT_NO_THROW(execute(p, slots, {}, nullptr));
      EXPECT_EQ(calls, 0);
      EXPECT_FALSE(slots[3].defined());
    }
  }
}

TEST(ExecutorBranches, AnOrdinaryThunkGivenASkippedValueIsAnInternalError) {
  Program p;
  p.num_slots = 4;
  p.bound_slots = {0, 1};
  p.output_slots = {3};
  p.thunks.push_back(thunk("a", {0}, {2}, {}, scaled(2)));
  p.thunks[0].guard = {{{1, -1, true}}};
  p.thunks.push_back(thunk("b", {2}, {3}, {2}, scaled(2)));  // unguarded: an inconsistent program
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = Tensor::from_vector<float>({1});
  slots[1] = cond(0);
  try {
    execute(p, slots, {.allow_gc = false}, nullptr);
    FAIL();
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("input 0 of 'b'"));
  }
}

}  // namespace
}  // namespace tgc
