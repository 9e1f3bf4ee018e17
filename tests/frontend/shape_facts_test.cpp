// Shape facts taken from shared values, and their guard: function() compiles with the shapes
// the shared variables' values have (so their gradients need no run-time shape ops), a call
// after a shared value changed shape runs a program compiled for the new shapes (once, kept,
// logged), and inputs still change shape freely without a compile.
#include <tgc/tgc.h>

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/core/graph.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Tensor uniform(const Shape& shape, uint64_t seed, DType dtype = DType::Float64) {
  return RandomState(seed).uniform(-1.0, 1.0, shape).astype(dtype);
}

// How many nodes of `f`'s compiled graph have an op name containing `part`.
int nodes_named(const Function& f, const std::string& part) {
  std::vector<std::string> names = f.toposort();
  return static_cast<int>(std::count_if(names.begin(), names.end(),
                                        [&](const std::string& n) { return n.find(part) != std::string::npos; }));
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The MLP step of examples/mlp.tg, small: shared data and parameters, softmax cross-entropy,
// SGD updates. Returns the step and its parameters.
struct Mlp {
  std::vector<Shared> params;
  Function step;
};
Mlp make_mlp(const std::map<std::string, std::string>& config) {
  Shared x = shared(uniform({8, 6}, 1, DType::Float32), "x");
  Tensor labels = Tensor::zeros(DType::Float32, {8, 3});
  for (int64_t i = 0; i < 8; ++i) labels.data<float>()[i * 3 + i % 3] = 1.0f;
  Shared y1h = shared(labels, "y1h");
  Shared w1 = shared(uniform({6, 5}, 2, DType::Float32), "w1"), b1 = shared(uniform({5}, 3, DType::Float32), "b1");
  Shared w2 = shared(uniform({5, 3}, 4, DType::Float32), "w2"), b2 = shared(uniform({3}, 5, DType::Float32), "b2");
  Var h = maximum(dot(x, w1) + b1, 0.0f);
  Var logits = dot(h, w2) + b2;
  Var loss = -mean(sum(y1h * log_softmax(logits), 1));
  Var accuracy = mean(eq(argmax(logits, 1), argmax(y1h, 1)));
  std::vector<Var> g = grad(loss, {w1, b1, w2, b2});
  Updates updates{{w1, w1 - 0.1f * g[0]}, {b1, b1 - 0.1f * g[1]}, {w2, w2 - 0.1f * g[2]}, {b2, b2 - 0.1f * g[3]}};
  return {{w1, b1, w2, b2}, function({}, {loss, accuracy}, updates, {.name = "mlp", .config = config})};
}

TEST(SharedShapeFacts, MlpStepHasNoRunTimeShapeOps) {
  Mlp fast = make_mlp({});
  Mlp none = make_mlp({{"optimizer", "none"}});
  EXPECT_EQ(nodes_named(fast.step, "SumToLike"), 0) << fast.step.graph().str();
  EXPECT_EQ(nodes_named(fast.step, "ReduceCount"), 0) << fast.step.graph().str();
  // The same step as built (no rewrite) has them: the facts removed them.
  EXPECT_GT(nodes_named(none.step, "SumToLike"), 0);
  EXPECT_GT(nodes_named(none.step, "ReduceCount"), 0);
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> got = fast.step(), want = none.step();
    test::expect_same(got[0], want[0], 1e-5, 1e-6);
    test::expect_same(got[1], want[1]);
  }
  for (size_t p = 0; p < fast.params.size(); ++p)
    test::expect_same(fast.params[p].get_value(), none.params[p].get_value(), 1e-5, 1e-6);
  EXPECT_EQ(fast.step.compiled_programs(), 1);
}

// The gradient of sum(x * b) to b is x while b is (3, 3), and x's column sums when b is a
// (1, 3) row broadcast over x: the program compiled for (3, 3) returns x, which would be wrong.
TEST(SharedShapeFacts, ACallAfterASharedValueChangedShapeUsesAProgramForTheNewShape) {
  Var x = matrix("x", DType::Float64);
  Shared b = shared(uniform({3, 3}, 10), "b");
  Var gb = grad(sum(x * b), b);
  Function f = function({x}, {gb, sum(x * b)}, {}, {.name = "grad_b"});
  Function reference = function({x}, {gb, sum(x * b)}, {}, {.config = {{"optimizer", "none"}}});
  EXPECT_EQ(nodes_named(f, "SumToLike"), 0) << f.graph().str();
  const Tensor xv = uniform({3, 3}, 11), square = b.get_value(), row = uniform({1, 3}, 12);
  auto expect_right = [&](const Shape& b_shape) {
    std::vector<Tensor> got = f(xv), want = reference(xv);
    ASSERT_EQ(got[0].shape(), b_shape);
    test::expect_same(got[0], want[0], 1e-12);
    test::expect_same(got[1], want[1], 1e-12);
  };
  expect_right({3, 3});

  ::testing::internal::CaptureStderr();
  b.set_value(row);
  expect_right({1, 3});
  std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, HasSubstr("tgc: grad_b: shared variable 'b' is (1, 3), compiled for (3, 3); compiling program 2"));
  EXPECT_EQ(f.compiled_programs(), 2);
  // The new program sums the row's axis, decided at compile time.
  EXPECT_EQ(nodes_named(f, "SumToLike"), 0) << f.graph().str();

  // Back and forth: each shape finds its program; nothing is compiled or logged again.
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    b.set_value(square);
    expect_right({3, 3});
    b.set_value(row);
    expect_right({1, 3});
  }
  log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(log, "");
  EXPECT_EQ(f.compiled_programs(), 2);
}

TEST(SharedShapeFacts, InputsChangeShapeWithoutACompile) {
  Var x = matrix("x", DType::Float64);
  Shared w = shared(uniform({4, 2}, 20), "w");
  Var cost = sum(dot(x, w));
  Function f = function({x}, {cost, grad(cost, w), grad(cost, x)});
  Function reference = function({x}, {cost, grad(cost, w), grad(cost, x)}, {}, {.config = {{"optimizer", "none"}}});
  ::testing::internal::CaptureStderr();
  for (int64_t rows : {3, 7, 1, 0, 5}) {
    const Tensor xv = uniform({rows, 4}, 21 + static_cast<uint64_t>(rows));
    std::vector<Tensor> got = f(xv), want = reference(xv);
    for (size_t i = 0; i < got.size(); ++i) test::expect_same(got[i], want[i], 1e-12, 1e-12);
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(f.compiled_programs(), 1);
}

// An update that shrinks its shared variable: every call sees a new shape. The gradient of
// mean(s) is 1/n everywhere (a constant n under the facts). After kShapesAssumed shapes, the
// variable's shape is no longer assumed: one more program, which serves every later shape.
TEST(SharedShapeFacts, AValueWhoseShapeKeepsChangingIsNoLongerAssumed) {
  Shared s = shared(Tensor::from_vector(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}), "s");
  Var gs = grad(mean(s), s);
  Function f = function({}, {gs, mean(s)}, {{s, s[{slice(1, {})}]}}, {.name = "shrink"});
  EXPECT_EQ(nodes_named(f, "ReduceCount"), 0) << f.graph().str();
  ::testing::internal::CaptureStderr();
  for (int64_t n = 8; n >= 1; --n) {
    std::vector<Tensor> got = f();
    test::expect_same(got[0], Tensor::full(DType::Float64, {n}, 1.0 / static_cast<double>(n)), 1e-15);
    test::expect_same(got[1], Tensor::scalar<double>(static_cast<double>(8 + (9 - n)) / 2.0), 1e-15);
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  // Shapes 8 (function()), 7, 6, 5 are assumed; 4 is the fifth: no longer assumed.
  EXPECT_EQ(f.compiled_programs(), 5);
  EXPECT_EQ(occurrences(log, "compiling program"), 4u) << log;
  EXPECT_THAT(log, HasSubstr("tgc: shrink: shared variable 's' has had 5 shapes: its shape is no longer assumed"));
  EXPECT_THAT(log, Not(HasSubstr("compiling program 6")));
}

TEST(SharedShapeFacts, EachProgramIsProfiled) {
  Var x = vector("x", DType::Float64);
  Shared b = shared(uniform({4}, 30), "b");
  Function f = function({x}, {grad(sum(x * b), b)}, {}, {.name = "prof", .config = {{"profile", "true"}}});
  f(uniform({4}, 31));
  ::testing::internal::CaptureStderr();
  b.set_value(uniform({1}, 32));
  EXPECT_EQ(f(uniform({4}, 33))[0].shape(), (Shape{1}));
  ::testing::internal::GetCapturedStderr();
  const std::string report = f.profile_report();
  EXPECT_THAT(report, HasSubstr("prof (program 2: b (1,))")) << report;
  ::testing::internal::CaptureStderr();
  { Function gone = std::move(f); }
  const std::string at_exit = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(at_exit, HasSubstr("prof (program 2: b (1,))"));
}

}  // namespace
}  // namespace tgc
