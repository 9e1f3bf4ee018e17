// Shape helpers: element counts, C/Fortran strides, printing and axis normalization.
#include "runtime/shape.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

TEST(Shape, NumelCountsElementsAndEmptyDims) {
  EXPECT_EQ(shape_numel({}), 1);
  EXPECT_EQ(shape_numel({400, 784}), 313600);
  EXPECT_EQ(shape_numel({3, 0, 5}), 0);
}

TEST(Shape, ContiguousAndFortranStrides) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(fortran_strides({2, 3, 4}), (Strides{1, 2, 6}));
  EXPECT_EQ(contiguous_strides({}), Strides{});
}

TEST(Shape, PrintsLikeNumPyTuples) {
  EXPECT_EQ(shape_str({400, 784}), "(400, 784)");
  EXPECT_EQ(shape_str({3}), "(3,)");
  EXPECT_EQ(shape_str({}), "()");
}

TEST(NormalizeAxis, MapsNegativeAxesFromTheEnd) {
  EXPECT_EQ(normalize_axis(0, 3, "f"), 0);
  EXPECT_EQ(normalize_axis(2, 3, "f"), 2);
  EXPECT_EQ(normalize_axis(-1, 3, "f"), 2);
  EXPECT_EQ(normalize_axis(-3, 3, "f"), 0);
}

TEST(NormalizeAxis, OutOfRangeIsAShapeErrorNamingTheCaller) {
  for (int64_t axis : {3, -4}) {
    try {
      normalize_axis(axis, 3, "concatenate");
      FAIL() << "expected ShapeError for axis " << axis;
    } catch (const ShapeError& e) {
      EXPECT_EQ(e.what_part(),
                "concatenate: axis " + std::to_string(axis) + " is out of bounds for a 3-d tensor");
      EXPECT_EQ(e.hint(), "valid axes are -3 .. 2");
    }
  }
}

// Only reductions take axis 0/-1 of a 0-d tensor (normalize_reduce_axis); a plain axis
// of a 0-d tensor does not exist, as in NumPy's normalize_axis_index.
TEST(NormalizeAxis, ZeroDimTensorHasNoAxes) {
  for (int64_t axis : {0, -1, 1}) {
    try {
      normalize_axis(axis, 0, "take");
      FAIL() << "expected ShapeError for axis " << axis;
    } catch (const ShapeError& e) {
      EXPECT_THAT(e.what_part(), HasSubstr("take: axis " + std::to_string(axis) + " is out of bounds for a 0-d"));
      EXPECT_EQ(e.hint(), "a 0-d tensor has no axes");
    }
  }
}

}  // namespace
}  // namespace tgc
