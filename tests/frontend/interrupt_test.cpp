// Ctrl-C through the C++ API (runtime/interrupt.h, frontend/api/function.cpp): a compile or a
// call asked to stop throws InterruptedError, changes no shared variable, and the function
// works as before afterwards; a request from another thread stops a long call between nodes.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(InterruptFunction, ACompileAskedToStopThrowsAndAFreshOneWorks) {
  Var x = vector("x", DType::Float64);
  {
    InterruptScope caller;  // the request lands while this caller's work is under way
    request_interrupt();
    try {
      function({x}, {exp(x) + 1});
      FAIL() << "the compile was not stopped";
    } catch (const InterruptedError& e) {
      EXPECT_THAT(e.what(), HasSubstr("interrupted (Ctrl-C) while compiling"));
    }
  }
  Function f = function({x}, {exp(x) * 0 + 1});
  EXPECT_THAT(f({Tensor::from_vector<double>({0, 1})})[0].to_vector<double>(), ElementsAre(1, 1));
}

TEST(InterruptFunction, ACallAskedToStopChangesNoVariable) {
  Shared w = shared(Tensor::from_vector<double>({1, 2}), "w");
  Shared steps = shared(Tensor::scalar<double>(0), "steps");
  Var x = vector("x", DType::Float64);
  Function f = function({x}, {sum(w * x)}, {{w, w - 0.5 * x}, {steps, steps + 1}});
  {
    InterruptScope caller;
    request_interrupt();
    EXPECT_THROW(f({Tensor::from_vector<double>({1, 1})}), InterruptedError);
  }
  EXPECT_THAT(w.get_value().to_vector<double>(), ElementsAre(1, 2));
  EXPECT_THAT(steps.get_value().to_vector<double>(), ElementsAre(0));
  EXPECT_THAT(f({Tensor::from_vector<double>({1, 1})})[0].to_vector<double>(), ElementsAre(3));
  EXPECT_THAT(w.get_value().to_vector<double>(), ElementsAre(0.5, 1.5));
  EXPECT_THAT(steps.get_value().to_vector<double>(), ElementsAre(1));
}

TEST(InterruptFunction, ARequestFromAnotherThreadStopsALongCall) {
  // 1000 products of 300x300 matrices, one after the other (about a second of work), stopped
  // between two of them. The update is the last product's sum: it is written at the very end.
  Var a = matrix("a", DType::Float64);
  Var y = a;
  for (int i = 0; i < 1000; ++i) y = dot(y, a) * (1.0 / 300);
  Shared done = shared(Tensor::scalar<double>(0), "done");
  Function f = function({a}, {}, {{done, sum(y)}});
  Tensor ones = Tensor::full(DType::Float64, {300, 300}, 1.0);
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    request_interrupt();
  });
  EXPECT_THROW(f({ones}), InterruptedError);
  ctrl_c.join();
  EXPECT_THAT(done.get_value().to_vector<double>(), ElementsAre(0));
}

}  // namespace
}  // namespace tgc
