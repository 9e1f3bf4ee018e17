// Laziness of ifelse through compiled functions: the untaken branch's nodes run 0 times (the
// profile's call counts, Theano's test), an untaken branch that would raise does not, nested
// ifelse, work shared with the other branch or with results always runs, and skipped thunks
// keep gc, the memory plan and allow_gc=false correct over calls that alternate branches.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/profiler.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

Tensor f64(std::vector<double> v) { return Tensor::from_vector(v); }
Tensor flag(int64_t v) { return Tensor::from_vector(std::vector<int64_t>{v}).reshape({}); }

// The profile's call count of the one node whose toposort line contains `what` (IfElse
// lines, which name their branches' nodes, only when `what` is "IfElse").
int64_t calls_of(const Function& f, const std::string& what) {
  const std::vector<std::string> order = f.toposort();
  int found = -1;
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i].find(what) != std::string::npos && (what == "IfElse" || order[i].rfind("IfElse", 0) != 0)) {
      EXPECT_EQ(found, -1) << "two nodes match " << what;
      found = static_cast<int>(i);
    }
  EXPECT_GE(found, 0) << "no node matches " << what << " in:\n" << ::testing::PrintToString(order);
  return found < 0 ? -1 : f.profiler()->thunk_calls(found);
}

FunctionOptions profiled(bool allow_gc = true) {
  return {.config = {{"profile", "true"}, {"allow_gc", allow_gc ? "true" : "false"}}};
}

TEST(IfElseLazy, UntakenBranchRunsZeroTimes) {
  Var c = scalar("c", DType::Int64);
  Var x = vector("x", DType::Float64);
  Function f = function({c, x}, {ifelse(c, exp(x).sum(), dot(x, x))}, {}, profiled());
  f(flag(1), f64({1, 2}));
  f(flag(1), f64({1, 2}));
  EXPECT_EQ(calls_of(f, "exp"), 2);
  EXPECT_EQ(calls_of(f, "Dot("), 0);
  EXPECT_EQ(calls_of(f, "IfElse"), 2);
  Tensor r = f(flag(0), f64({1, 2}))[0];
  EXPECT_DOUBLE_EQ(r.item<double>(), 5.0);
  EXPECT_EQ(calls_of(f, "exp"), 2);
  EXPECT_EQ(calls_of(f, "Dot("), 1);
}

TEST(IfElseLazy, UntakenBranchThatWouldRaiseDoesNotRaise) {
  Var c = scalar("c", DType::Int64);
  Var x = vector("x", DType::Float64);
  Var i = scalar("i", DType::Int64);
  Function f = function({c, x, i}, {ifelse(c, take(x, i), x.sum())});
  const Tensor bad = flag(10);  // out of range for x of length 2
  EXPECT_DOUBLE_EQ(f(flag(0), f64({1, 2}), bad)[0].item<double>(), 3.0);
  EXPECT_THROW(f(flag(1), f64({1, 2}), bad), Error);
  EXPECT_DOUBLE_EQ(f(flag(1), f64({1, 2}), flag(1))[0].item<double>(), 2.0);
}

TEST(IfElseLazy, NestedIfElseRunsOnlyThePathTaken) {
  Var c1 = scalar("c1", DType::Int64);
  Var k = scalar("k", DType::Float64);
  Var x = vector("x", DType::Float64);
  // The inner condition is computed inside the outer then branch.
  Var inner = ifelse((x * k).max() > 0.0, tanh(x), cosh(x));
  Function f = function({c1, k, x}, {ifelse(c1, inner, sinh(x))}, {}, profiled());
  Tensor r = f(flag(0), Tensor::from_vector(std::vector<double>{1}).reshape({}), f64({0.5}))[0];
  EXPECT_DOUBLE_EQ(r.at({0}), std::sinh(0.5));
  EXPECT_EQ(calls_of(f, "tanh"), 0);
  EXPECT_EQ(calls_of(f, "cosh"), 0);
  EXPECT_EQ(calls_of(f, "max"), 0);  // the inner condition's work too
  EXPECT_EQ(calls_of(f, "sinh"), 1);
  r = f(flag(1), Tensor::from_vector(std::vector<double>{-1}).reshape({}), f64({0.5}))[0];
  EXPECT_DOUBLE_EQ(r.at({0}), std::cosh(0.5));
  EXPECT_EQ(calls_of(f, "tanh"), 0);
  EXPECT_EQ(calls_of(f, "cosh"), 1);
  EXPECT_EQ(calls_of(f, "max"), 1);
  EXPECT_EQ(calls_of(f, "sinh"), 1);
}

TEST(IfElseLazy, WorkSharedWithAResultOrBothBranchesAlwaysRuns) {
  Var c = scalar("c", DType::Int64);
  Var x = vector("x", DType::Float64);
  Var e = dot(x, x);  // read by both branches and by a result
  std::vector<Var> out = ifelse(c, {e + 1.0, sqrt(x)}, {e * 2.0, sqrt(x)});
  Function f = function({c, x}, {out[0], out[1], e}, {}, profiled());
  std::vector<Tensor> r = f(flag(0), f64({1, 2}));
  EXPECT_DOUBLE_EQ(r[0].item<double>(), 10.0);
  EXPECT_DOUBLE_EQ(r[1].at({1}), std::sqrt(2.0));  // ifelse(c, a, a) is a: no ifelse left for it
  EXPECT_EQ(calls_of(f, "Dot("), 1);
  r = f(flag(1), f64({1, 2}));
  EXPECT_DOUBLE_EQ(r[0].item<double>(), 6.0);
  EXPECT_EQ(calls_of(f, "Dot("), 2);
}

// Calls alternating between the branches, each branch a chain of non-fusable nodes whose
// buffers the memory plan hands on, with gc on and off: every result right, every time.
void alternate(bool allow_gc) {
  Var c = scalar("c", DType::Int64);
  Var x = vector("x", DType::Float64);
  Var a = concatenate({exp(x), x});
  Var a2 = concatenate({a * 2.0, a});
  Var b = concatenate({x, log(x)});
  Var b2 = concatenate({b, b + 1.0});
  Var shared_work = concatenate({x, x});
  Function f = function({c, x}, {ifelse(c, a2 + shared_work.sum(), b2 - shared_work.sum()), shared_work},
                        {}, profiled(allow_gc));
  const Tensor xv = f64({1.5, 2.5});
  const double s = 8.0;
  for (int call = 0; call < 6; ++call) {
    const bool take = call % 3 != 1;
    std::vector<Tensor> r = f(flag(take ? 1 : 0), xv);
    ASSERT_EQ(r[0].shape(), (Shape{8}));
    if (take) {
      EXPECT_DOUBLE_EQ(r[0].at({0}), 2 * std::exp(1.5) + s);
      EXPECT_DOUBLE_EQ(r[0].at({7}), 2.5 + s);
    } else {
      EXPECT_DOUBLE_EQ(r[0].at({0}), 1.5 - s);
      EXPECT_DOUBLE_EQ(r[0].at({7}), std::log(2.5) + 1 - s);
    }
    EXPECT_DOUBLE_EQ(r[1].at({3}), 2.5);
  }
  EXPECT_EQ(calls_of(f, "log"), 2);
}

TEST(IfElseLazy, AlternatingBranchesWithGc) { alternate(true); }
TEST(IfElseLazy, AlternatingBranchesWithoutGc) { alternate(false); }

TEST(IfElseLazy, SharedVariableUpdateReadThroughAnIfElseIsNotOverwritten) {
  // w's update is written into w's buffer; the result that may be w itself must keep the old value.
  auto w = shared(f64({1, 2}), "w");
  Var c = scalar("c", DType::Int64);
  Var x = vector("x", DType::Float64);
  Function f = function({c, x}, {ifelse(c, x, w)}, {{w, w * 3.0}});
  Tensor r = f(flag(0), f64({7, 8}))[0];
  EXPECT_DOUBLE_EQ(r.at({1}), 2.0);
  EXPECT_DOUBLE_EQ(w.get_value().at({1}), 6.0);
  r = f(flag(1), f64({7, 8}))[0];
  EXPECT_DOUBLE_EQ(r.at({1}), 8.0);
  EXPECT_DOUBLE_EQ(w.get_value().at({1}), 18.0);
}

TEST(IfElseLazy, HostFunctionsHaveNoRecordingStatus) {
  // On the host there is no recording: the status is empty. GPU runs: tests/conformance (gpu).
  Var c = scalar("c", DType::Int64);
  Var x = vector("x", DType::Float64);
  Function f = function({c, x}, {ifelse(c, x, x * 2.0)});
  EXPECT_EQ(f.cuda_graph_status(), "");
}

}  // namespace
}  // namespace tgc
