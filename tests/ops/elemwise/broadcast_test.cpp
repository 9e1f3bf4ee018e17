// NumPy broadcasting of static and concrete shapes, broadcast strides and loop collapsing.
#include "ops/elemwise/broadcast.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
constexpr int64_t U = kUnknownDim;

TEST(BroadcastStatic, KnownDims) {
  EXPECT_EQ(broadcast_static_shapes({{3, 4}, {4}}, "add"), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(broadcast_static_shapes({{3, 1}, {1, 4}}, "add"), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(broadcast_static_shapes({{2, 1, 5}, {7, 1}}, "add"), (std::vector<int64_t>{2, 7, 5}));
  EXPECT_EQ(broadcast_static_shapes({{}, {3}}, "add"), (std::vector<int64_t>{3}));
  EXPECT_EQ(broadcast_static_shapes({{}, {}}, "add"), (std::vector<int64_t>{}));
  EXPECT_EQ(broadcast_static_shapes({{0, 1}, {1, 5}}, "add"), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(broadcast_static_shapes({{1, 1}, {1}}, "add"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(broadcast_static_shapes({{3}, {1}, {3}}, "clip"), (std::vector<int64_t>{3}));
}

TEST(BroadcastStatic, UnknownDims) {
  // An unknown dim against a known size other than 1 must be that size (or 1).
  EXPECT_EQ(broadcast_static_shapes({{U, 784}, {784}}, "add"), (std::vector<int64_t>{U, 784}));
  EXPECT_EQ(broadcast_static_shapes({{U}, {5}}, "add"), (std::vector<int64_t>{5}));
  EXPECT_EQ(broadcast_static_shapes({{U}, {1}}, "add"), (std::vector<int64_t>{U}));
  EXPECT_EQ(broadcast_static_shapes({{U}, {U}}, "add"), (std::vector<int64_t>{U}));
  EXPECT_EQ(broadcast_static_shapes({{1, U}, {U, 1}}, "add"), (std::vector<int64_t>{U, U}));
  EXPECT_EQ(broadcast_static_shapes({{U, 3}, {2, 1, 1}}, "add"), (std::vector<int64_t>{2, U, 3}));
}

TEST(BroadcastStatic, KnownMismatchIsAShapeErrorNamingBothShapes) {
  try {
    broadcast_static_shapes({{3, 4}, {5}}, "add");
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what_part(),
                HasSubstr("add: operands could not be broadcast together with shapes (3, 4) (5,)"));
    EXPECT_THAT(e.hint(), HasSubstr("equal or one of them 1"));
  }
  try {
    broadcast_static_shapes({{U, 3}, {4}}, "mul");
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("shapes (?, 3) (4,)"));
  }
}

TEST(BroadcastConcrete, Shapes) {
  EXPECT_EQ(broadcast_shapes({{3, 4}, {4}}, ""), (Shape{3, 4}));
  EXPECT_EQ(broadcast_shapes({{8, 1, 6, 1}, {7, 1, 5}}, ""), (Shape{8, 7, 6, 5}));
  EXPECT_EQ(broadcast_shapes({{}, {2, 3}}, ""), (Shape{2, 3}));
  EXPECT_EQ(broadcast_shapes({{0}, {1}}, ""), (Shape{0}));
  EXPECT_EQ(broadcast_shapes({{2, 0}, {2, 1}}, ""), (Shape{2, 0}));
  EXPECT_EQ(broadcast_shapes({{5}}, ""), (Shape{5}));
}

TEST(BroadcastConcrete, MismatchMessageIsNumPys) {
  try {
    broadcast_shapes({{3, 4}, {5}}, "");
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(), "operands could not be broadcast together with shapes (3, 4) (5,)");
  }
  try {
    broadcast_shapes({{2}, {3}, {2}}, "where");
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(),
              "where: operands could not be broadcast together with shapes (2,) (3,) (2,)");
  }
  EXPECT_THROW(broadcast_shapes({{0}, {2}}, ""), ShapeError);  // 0 does not stretch
}

TEST(BroadcastStrides, StretchedAndMissingDimsGetStrideZero) {
  EXPECT_EQ(broadcast_strides({4}, {1}, {3, 4}), (Strides{0, 1}));
  EXPECT_EQ(broadcast_strides({3, 1}, {1, 1}, {3, 4}), (Strides{1, 0}));
  EXPECT_EQ(broadcast_strides({3, 4}, {4, 1}, {3, 4}), (Strides{4, 1}));
  EXPECT_EQ(broadcast_strides({3, 4}, {1, 3}, {2, 3, 4}), (Strides{0, 1, 3}));  // transposed input
  EXPECT_EQ(broadcast_strides({3}, {-1}, {2, 3}), (Strides{0, -1}));            // reversed input
  EXPECT_EQ(broadcast_strides({}, {}, {2, 2}), (Strides{0, 0}));
  EXPECT_EQ(broadcast_strides({1}, {7}, {1}), (Strides{0}));
  EXPECT_THROW(broadcast_strides({3}, {1}, {4}), ShapeError);
  EXPECT_THROW(broadcast_strides({2, 3}, {3, 1}, {3}), ShapeError);
}

TEST(CollapseDims, MergesContiguousRunsAndDropsUnitDims) {
  Shape shape{2, 3, 4};
  std::vector<Strides> strides{{12, 4, 1}, {0, 4, 1}};
  collapse_dims(shape, strides);
  EXPECT_EQ(shape, (Shape{2, 12}));
  EXPECT_EQ(strides, (std::vector<Strides>{{12, 1}, {0, 1}}));

  shape = {2, 3, 4};
  strides = {{12, 4, 1}, {12, 4, 1}};
  collapse_dims(shape, strides);
  EXPECT_EQ(shape, (Shape{24}));
  EXPECT_EQ(strides, (std::vector<Strides>{{1}, {1}}));

  shape = {3, 1, 4};
  strides = {{4, 4, 1}, {1, 99, 3}};  // a transposed operand blocks merging
  collapse_dims(shape, strides);
  EXPECT_EQ(shape, (Shape{3, 4}));
  EXPECT_EQ(strides, (std::vector<Strides>{{4, 1}, {1, 3}}));

  shape = {4, 2};
  strides = {{2, 1}, {-2, -1}};  // a reversed operand walks backwards as one run
  collapse_dims(shape, strides);
  EXPECT_EQ(shape, (Shape{8}));
  EXPECT_EQ(strides, (std::vector<Strides>{{1}, {-1}}));

  shape = {1, 1};
  strides = {{1, 1}};
  collapse_dims(shape, strides);
  EXPECT_EQ(shape, (Shape{1}));

  shape = {3, 0, 2};
  strides = {{0, 2, 1}};
  collapse_dims(shape, strides);
  EXPECT_EQ(shape, (Shape{0}));

  shape = {};
  strides = {{}, {}};
  collapse_dims(shape, strides);
  EXPECT_TRUE(shape.empty());
}

}  // namespace
}  // namespace tgc
