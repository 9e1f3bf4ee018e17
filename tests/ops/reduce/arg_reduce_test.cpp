// Argmax / Argmin: indices against NumPy along each axis and flattened, first occurrence
// on ties, NaN like NumPy, keepdims, every dtype, non-contiguous and empty inputs.
#include "ops/reduce/arg_reduce.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace test;

TEST(ArgReduce, MatchesNumPyAlongEachAxisAndFlattened) {
  const std::pair<const char*, std::optional<int>> cases[] = {{"all", std::nullopt}, {"0", 0}, {"1", 1}, {"2", 2}};
  for (const char* prefix : {"f64", "i32"}) {
    Tensor x = load_npy("reduce", std::string("x_") + prefix);
    for (auto [kind, kname] : {std::pair{ArgKind::Argmax, "argmax"}, std::pair{ArgKind::Argmin, "argmin"}}) {
      for (auto [aname, axis] : cases) {
        SCOPED_TRACE(std::string(prefix) + " " + kname + " " + aname);
        Tensor want = load_npy("reduce", std::string(prefix) + "_" + kname + "_" + aname);
        ArgReduce op(kind, axis, false);
        for (const Tensor& in : {x, fortran_layout(x), reversed_layout(x, 1), reversed_layout(x, 2)})
          expect_same(run_op(op, {in}), want);
        Tensor kept = run_op(ArgReduce(kind, axis, true), {x});
        EXPECT_EQ(kept.ndim(), 3);
        expect_same(kept.reshape(want.shape()), want);
      }
    }
  }
}

TEST(ArgReduce, FirstOccurrenceWinsTies) {
  Tensor x = Tensor::from_vector(std::vector<int32_t>{3, 1, 3, 1, 2, 2}, {2, 3});
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmax, std::nullopt, false), {x}).item<int64_t>(), 0);
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmin, std::nullopt, false), {x}).item<int64_t>(), 1);
  EXPECT_THAT(run_op(ArgReduce(ArgKind::Argmax, 1, false), {x}).to_vector<int64_t>(), ElementsAre(0, 1));
  EXPECT_THAT(run_op(ArgReduce(ArgKind::Argmin, 0, false), {x}).to_vector<int64_t>(), ElementsAre(1, 0, 1));
  // Reversed view [2, 2, 1, 3, 1, 3]: ties resolve in the view's order, not memory order.
  Tensor rev = x.view({6}, {-1}, 5);
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmax, std::nullopt, false), {rev}).item<int64_t>(), 3);
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmin, 0, false), {rev}).item<int64_t>(), 2);
}

TEST(ArgReduce, NaNWinsLikeNumPy) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = Tensor::from_vector(std::vector<double>{1, nan, nan, inf});
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmax, std::nullopt, false), {x}).item<int64_t>(), 1);
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmin, std::nullopt, false), {x}).item<int64_t>(), 1);
  Tensor y = Tensor::from_vector(std::vector<float>{-std::numeric_limits<float>::infinity(), 2, std::nanf("")});
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmin, std::nullopt, false), {y}).item<int64_t>(), 2);
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmax, std::nullopt, false), {Tensor::from_vector(std::vector<float>{std::nanf(""), 5})})
                .item<int64_t>(), 0);
}

TEST(ArgReduce, EveryDtype) {
  const std::vector<int64_t> values = {4, -2, 9, 9, -2, 0};
  for (DType t : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    Tensor x = Tensor::from_vector(values, {6}).astype(t);
    Tensor amax = run_op(ArgReduce(ArgKind::Argmax, 0, false), {x});
    Tensor amin = run_op(ArgReduce(ArgKind::Argmin, 0, false), {x});
    EXPECT_EQ(amax.dtype(), DType::Int64);
    if (t == DType::Bool) {  // [T, T, T, T, T, F]
      EXPECT_EQ(amax.item<int64_t>(), 0);
      EXPECT_EQ(amin.item<int64_t>(), 5);
    } else if (t == DType::UInt8) {  // -2 wraps to 254
      EXPECT_EQ(amax.item<int64_t>(), 1);
      EXPECT_EQ(amin.item<int64_t>(), 5);
    } else {
      EXPECT_EQ(amax.item<int64_t>(), 2);
      EXPECT_EQ(amin.item<int64_t>(), 1);
    }
  }
}

TEST(ArgReduce, KeepdimsZeroDimAndEmpty) {
  Tensor x = Tensor::from_vector(std::vector<double>{1, 5, 2, 7, 0, 3}, {2, 3});
  Tensor k = run_op(ArgReduce(ArgKind::Argmax, std::nullopt, true), {x});
  EXPECT_EQ(k.shape(), (Shape{1, 1}));
  EXPECT_EQ(k.item<int64_t>(), 3);
  Tensor k1 = run_op(ArgReduce(ArgKind::Argmin, 1, true), {x});
  EXPECT_EQ(k1.shape(), (Shape{2, 1}));
  EXPECT_THAT(k1.to_vector<int64_t>(), ElementsAre(0, 1));
  // 0-d: axis None and axis 0 both give 0, as in NumPy.
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmax, std::nullopt, false), {Tensor::scalar(4.0)}).item<int64_t>(), 0);
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmax, 0, false), {Tensor::scalar(4.0)}).shape(), Shape{});
  // An empty non-reduced axis: an empty result.
  EXPECT_EQ(run_op(ArgReduce(ArgKind::Argmax, 1, false), {Tensor::zeros(DType::Int32, {0, 3})}).shape(), (Shape{0}));
  try {
    run_op(ArgReduce(ArgKind::Argmax, 1, false), {Tensor::zeros(DType::Int32, {3, 0})});
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("argmax: attempt to get argmax of an empty sequence"));
  }
  EXPECT_THROW(run_op(ArgReduce(ArgKind::Argmin, std::nullopt, false), {Tensor::zeros(DType::Float32, {0})}), ValueError);
  EXPECT_THROW(ArgReduce(ArgKind::Argmin, 0, false).infer_types({Type(DType::Float32, {0, 2})}), ValueError);
}

TEST(ArgReduce, NamesAndStaticTypes) {
  EXPECT_EQ(ArgReduce(ArgKind::Argmax, 1, false).name(), "Argmax{axis=1}");
  EXPECT_EQ(ArgReduce(ArgKind::Argmin, std::nullopt, false).name(), "Argmin");
  EXPECT_EQ(ArgReduce(ArgKind::Argmax, 0, true).name(), "Argmax{axis=0, keepdims=True}");
  EXPECT_EQ(ArgReduce(ArgKind::Argmax, 0, true).user_name(), "argmax");
  ArgReduce a1(ArgKind::Argmax, 1, false);
  EXPECT_EQ(a1.infer_types({Type(DType::Float32, {kUnknownDim, 10})})[0], Type(DType::Int64, {kUnknownDim}));
  EXPECT_EQ(ArgReduce(ArgKind::Argmin, std::nullopt, true).infer_types({Type(DType::UInt8, {2, kUnknownDim})})[0],
            Type(DType::Int64, {1, 1}));
  EXPECT_EQ(a1.infer_shapes({{4, 10}})[0], (Shape{4}));
  try {
    ArgReduce(ArgKind::Argmax, 2, false).infer_types({Type(DType::Float32, {2, 3})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("argmax: axis 2 is out of bounds for a 2-d tensor"));
  }
}

}  // namespace
}  // namespace tgc
