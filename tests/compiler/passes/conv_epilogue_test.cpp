// conv_epilogue's rules: conv2d + bias (+ relu) becomes one FusedConv2d in both layouts and
// operand orders, with the same values as the graph as built (float64: the reference loops;
// float32: oneDNN's bias and post-op); left alone where the convolution or the biased result
// has another reader, where the added tensor is not a channel vector, and for maximum(., 1).
#include "compiler/passes/conv_epilogue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canon_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::op_names;

test::PassRun run(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(conv_epilogue, inputs, outputs);
}

TEST(ConvEpilogue, BiasAndReluFuseInBothLayouts) {
  for (DType t : {DType::Float64, DType::Float32}) {
    Var x = tensor4("x", t), w = tensor4("w", t), b = vector("b", t);
    Conv2dOptions o;
    o.padding = ConvPadding(1);
    auto r = run({x, w, b}, {maximum(conv2d(x, w, o) + dimshuffle(b, {-1, 0, -1, -1}), 0.0)});
    ASSERT_TRUE(r.changed);
    EXPECT_THAT(op_names(r.after), ElementsAre(HasSubstr("FusedConv2d{layout=NCHW,")));
    EXPECT_THAT(op_names(r.after)[0], HasSubstr("epilogue=bias+relu"));
    RandomState rng(1);
    test::expect_same_on(r, {rng.randn({2, 3, 5, 4}).astype(t), rng.randn({4, 3, 3, 3}).astype(t), rng.randn({4}).astype(t)},
                t == DType::Float32 ? 1e-5 : 1e-12, t == DType::Float32 ? 1e-5 : 1e-12);
    o.layout = ConvLayout::NHWC;
    auto h = run({x, w, b}, {maximum(0.0, b + conv2d(x, w, o))});  // operands the other way round
    EXPECT_THAT(op_names(h.after), ElementsAre(HasSubstr("FusedConv2d{layout=NHWC,")));
    test::expect_same_on(h, {rng.randn({2, 5, 4, 3}).astype(t), rng.randn({4, 3, 3, 3}).astype(t), rng.randn({4}).astype(t)},
                t == DType::Float32 ? 1e-5 : 1e-12, t == DType::Float32 ? 1e-5 : 1e-12);
  }
}

TEST(ConvEpilogue, OnlyTheBiasWhereTheBiasedResultHasAnotherReader) {
  Var x = tensor4("x", DType::Float64), w = tensor4("w", DType::Float64), b = vector("b", DType::Float64);
  Var z = conv2d(x, w) + dimshuffle(b, {-1, 0, -1, -1});
  auto r = run({x, w, b}, {maximum(z, 0.0), z * 2.0});
  EXPECT_THAT(op_names(r.after), ::testing::Contains(HasSubstr("epilogue=bias}")));
  for (const std::string& n : op_names(r.after)) EXPECT_THAT(n, ::testing::Not(HasSubstr("bias+relu")));
}

TEST(ConvEpilogue, LeavesAloneWhatItMustNot) {
  Var x = tensor4("x", DType::Float64), w = tensor4("w", DType::Float64), b = vector("b", DType::Float64);
  Var y = conv2d(x, w);
  // The convolution is read twice; the addend is a whole tensor; the addend lies along W (NCHW).
  EXPECT_FALSE(run({x, w, b}, {y + dimshuffle(b, {-1, 0, -1, -1}), y}).changed);
  EXPECT_FALSE(run({x, w}, {y + x}).changed);
  EXPECT_FALSE(run({x, w, b}, {y + b}).changed);
  // maximum with 1 is no relu: the bias fuses, the max stays.
  auto r = run({x, w, b}, {maximum(y + dimshuffle(b, {-1, 0, -1, -1}), 1.0)});
  EXPECT_THAT(op_names(r.after), ElementsAre(HasSubstr("epilogue=bias}"), HasSubstr("maximum")));
}

}  // namespace
}  // namespace tgc
