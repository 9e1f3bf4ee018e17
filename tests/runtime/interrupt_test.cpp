// Tests of runtime/interrupt.h: which work a request stops (scopes begun before it, not after
// it, not while held), and the executor stopping between thunks up to the first write into a
// shared variable, after which the call runs to its end.
#include "runtime/interrupt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "runtime/executor.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

TEST(Interrupt, StopsOnlyWorkBegunBeforeTheRequest) {
  EXPECT_FALSE(interrupt_pending()) << "no scope open: nothing to stop";
  request_interrupt();
  EXPECT_FALSE(interrupt_pending()) << "a request with no scope open is for nobody on this thread";
  {
    InterruptScope call;
    EXPECT_FALSE(interrupt_pending()) << "work begun after a request is not stopped by it";
    request_interrupt();
    EXPECT_TRUE(interrupt_pending());
    {
      InterruptScope nested;  // a compile inside a call: the call's start counts
      EXPECT_TRUE(interrupt_pending());
      InterruptsHeld writing;
      EXPECT_FALSE(interrupt_pending()) << "held: the work must finish";
      EXPECT_NO_THROW(check_interrupt("writing"));
    }
    EXPECT_TRUE(interrupt_pending());
    try {
      check_interrupt("running a test");
      FAIL() << "no InterruptedError";
    } catch (const InterruptedError& e) {
      EXPECT_THAT(e.what(), HasSubstr("interrupted (Ctrl-C) while running a test"));
      EXPECT_THAT(e.what(), HasSubstr("shared variables keep their values"));
    }
  }
  EXPECT_FALSE(interrupt_pending());
}

TEST(Interrupt, ARequestFromAnotherThreadReachesEveryScopeOpenThen) {
  InterruptScope call;
  std::thread other([] { request_interrupt(); });
  other.join();
  EXPECT_TRUE(interrupt_pending());
}

Thunk counting_thunk(const std::string& name, int in, int out, int* runs, bool interrupts) {
  Thunk t;
  t.op_name = t.op_class = name;
  t.label = name + "_node";
  t.inputs = {in};
  t.outputs = {out};
  t.run = [=](const std::vector<Tensor>& i, std::vector<Tensor>& o) {
    ++*runs;
    if (interrupts) request_interrupt();  // a Ctrl-C while this node runs
    o[0] = i[0];
  };
  return t;
}

// slot 0 (bound) -> 1 -> 2 -> 3 (output); the second thunk is where the Ctrl-C comes.
Program three_thunks(int* runs, size_t first_variable_write) {
  Program p;
  p.num_slots = 4;
  p.bound_slots = {0};
  p.output_slots = {3};
  p.thunks.push_back(counting_thunk("a", 0, 1, runs, false));
  p.thunks.push_back(counting_thunk("b", 1, 2, runs, true));
  p.thunks.push_back(counting_thunk("c", 2, 3, runs, false));
  p.first_variable_write = first_variable_write;
  return p;
}

TEST(Interrupt, TheExecutorStopsAtTheNextThunk) {
  int runs = 0;
  Program p = three_thunks(&runs, SIZE_MAX);
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = Tensor::scalar(1.0f);
  InterruptScope call;
  EXPECT_THROW(execute(p, slots, {}, nullptr), InterruptedError);
  EXPECT_EQ(runs, 2) << "the thunk after the Ctrl-C did not run";
}

TEST(Interrupt, ACallWritingVariablesRunsToItsEnd) {
  int runs = 0;
  Program p = three_thunks(&runs, 1);  // "b" and "c" write shared variables in place
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = Tensor::scalar(1.0f);
  InterruptScope call;
  EXPECT_NO_THROW(execute(p, slots, {}, nullptr));
  EXPECT_EQ(runs, 3);
  EXPECT_TRUE(slots[3].defined());
}

TEST(Interrupt, NoScopeNoStop) {
  int runs = 0;
  Program p = three_thunks(&runs, SIZE_MAX);
  std::vector<Tensor> slots(p.num_slots);
  slots[0] = Tensor::scalar(1.0f);
  EXPECT_NO_THROW(execute(p, slots, {}, nullptr));
  EXPECT_EQ(runs, 3);
}

}  // namespace
}  // namespace tgc
