// Split: one view per piece, size checks at build and run time, the split function.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/join.h>

#include "ops/join/split.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;

TEST(Split, PiecesAreViews) {
  Split op(1, {1, 0, 2});
  EXPECT_EQ(op.num_outputs(), 3);
  EXPECT_EQ(op.name(), "Split{axis=1, sizes=[1, 0, 2]}");
  Tensor x = iota({2, 3}, DType::Int16);
  std::vector<Tensor> p = run_op_all(op, {x});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].to_vector<int>(), (std::vector<int>{0, 3}));
  EXPECT_EQ(p[1].shape(), (Shape{2, 0}));
  EXPECT_EQ(p[2].to_vector<int>(), (std::vector<int>{1, 2, 4, 5}));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(p[i].shares_buffer(x));
    EXPECT_EQ(op.view_of_input(i), 0);
  }
  // Non-contiguous input.
  std::vector<Tensor> q = run_op_all(Split(0, {2, 1}), {reversed_layout(iota({3, 2}), 0)});
  EXPECT_EQ(q[0].to_vector<double>(), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(q[1].to_vector<double>(), (std::vector<double>{4, 5}));
}

TEST(Split, StaticTypes) {
  Split op(-1, {2, 3});
  std::vector<Type> t = op.infer_types({Type(DType::Float32, {kUnknownDim, kUnknownDim})});
  EXPECT_EQ(t[0], Type(DType::Float32, {kUnknownDim, 2}));
  EXPECT_EQ(t[1], Type(DType::Float32, {kUnknownDim, 3}));
}

TEST(Split, SizesMustSumToTheAxis) {
  Split op(0, {2, 3});
  EXPECT_THAT([&] { op.infer_types({Type(DType::Float32, {6})}); },
              ::testing::ThrowsMessage<ShapeError>(HasSubstr("split: sizes [2, 3] sum to 5 but axis 0 has size 6")));
  EXPECT_THAT([&] { run_op_all(op, {iota({4})}); },
              ::testing::ThrowsMessage<ShapeError>(HasSubstr("sum to 5 but axis 0 has size 4")));
  EXPECT_THROW(Split(0, {-1, 3}).infer_types({Type(DType::Float32, {2})}), ValueError);
  EXPECT_THROW(Split(0, {}).infer_types({Type(DType::Float32, {2})}), ValueError);
  EXPECT_THROW(Split(0, {1}).infer_types({Type(DType::Float32, {})}), TypeError);
  EXPECT_THROW(Split(2, {1}).infer_types({Type(DType::Float32, {1, 1})}), ShapeError);
  // Found by fuzzing the .tg language: the sum must not overflow (UB) but be an error.
  const int64_t huge = int64_t(1) << 62;
  EXPECT_THAT([&] { Split(0, {huge, huge, huge}).infer_types({Type(DType::Float32, {-1})}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("sum past 2**63")));
}

TEST(JoinApi, SplitReturnsOneVarPerPiece) {
  Var x = matrix("x", DType::Float64);
  std::vector<Var> parts = split(x, {1, 2}, -1);
  ASSERT_EQ(parts.size(), 2u);
  Tensor xv = iota({2, 3});
  EXPECT_EQ(eval(parts[0], {{x, xv}}).to_vector<double>(), (std::vector<double>{0, 3}));
  EXPECT_EQ(eval(parts[1], {{x, xv}}).to_vector<double>(), (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(parts[1].ptr()->index(), 1);
  EXPECT_THROW(eval(parts[0], {{x, iota({2, 4})}}), ShapeError);
}

}  // namespace
}  // namespace tgc
