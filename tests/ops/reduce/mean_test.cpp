// Mean: values against NumPy, the floatX result dtype of integer inputs, non-contiguous
// and empty inputs, names and static types.
#include "ops/reduce/mean.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using namespace test;

// Float sums may differ from NumPy's in the last bits (NumPy sums pairwise): compared within 1e-12.
constexpr double kTol = 1e-12;

struct AxesCase {
  const char* name;
  ReduceAxes axes;
};
const AxesCase kAxesCases[] = {
    {"all", std::nullopt}, {"0", std::vector<int>{0}}, {"1", std::vector<int>{1}}, {"2", std::vector<int>{2}},
    {"0_2", std::vector<int>{0, 2}}, {"1_2", std::vector<int>{1, 2}}, {"0_1", std::vector<int>{0, 1}},
};

TEST(Mean, MatchesNumPyOverEveryAxisSetAndLayout) {
  for (const char* prefix : {"f64", "i32"}) {
    Tensor x = load_npy("reduce", std::string("x_") + prefix);
    for (const AxesCase& a : kAxesCases) {
      SCOPED_TRACE(std::string(prefix) + " axes " + a.name);
      Tensor want = load_npy("reduce", std::string(prefix) + "_mean_" + a.name);  // NumPy: float64 for both
      // floatX float64 so that integer means are float64 as in NumPy.
      Mean op(a.axes, false, DType::Float64);
      for (const Tensor& in : {x, fortran_layout(x), reversed_layout(x, 0), reversed_layout(x, 2)})
        expect_same(run_op(op, {in}), want, kTol, kTol);
      Tensor kept = run_op(Mean(a.axes, true, DType::Float64), {x});
      EXPECT_EQ(kept.ndim(), 3);
      expect_same(kept.reshape(want.shape()), want, kTol, kTol);
    }
  }
}

TEST(Mean, IntegerAndBoolMeansAreFloatXFloatsKeepTheirDtype) {
  Mean op(std::nullopt, false, DType::Float32);
  Tensor i = run_op(op, {Tensor::from_vector(std::vector<int32_t>{1, 2, 4})});
  EXPECT_EQ(i.dtype(), DType::Float32);
  EXPECT_FLOAT_EQ(i.item<float>(), 7.0f / 3.0f);
  Tensor b = run_op(op, {Tensor::from_vector(std::vector<bool>{true, false, false, true})});
  EXPECT_EQ(b.dtype(), DType::Float32);
  EXPECT_EQ(b.item<float>(), 0.5f);
  Tensor u = run_op(op, {Tensor::from_vector(std::vector<uint8_t>{255, 255})});
  EXPECT_EQ(u.item<float>(), 255.0f);  // no uint8 overflow in the sum
  Tensor f = run_op(op, {Tensor::from_vector(std::vector<double>{1, 2})});
  EXPECT_EQ(f.dtype(), DType::Float64);
  EXPECT_EQ(f.item<double>(), 1.5);
  EXPECT_EQ(run_op(Mean(std::nullopt, false, DType::Float64), {Tensor::from_vector(std::vector<int8_t>{1, 2})}).dtype(),
            DType::Float64);
  EXPECT_EQ(run_op(Mean(std::nullopt, false, DType::Float64), {Tensor::from_vector(std::vector<float>{1, 2})}).dtype(),
            DType::Float32);
  for (DType t : {DType::Int16, DType::Int64}) {
    Tensor x = Tensor::from_vector(std::vector<int64_t>{-3, 6, 9, 2}, {2, 2}).astype(t);
    EXPECT_THAT(run_op(Mean(std::vector<int>{1}, false, DType::Float32), {x}).to_vector<float>(), ElementsAre(1.5f, 5.5f));
  }
}

TEST(Mean, BroadcastInputMatchesNumPy) {
  Tensor x = load_npy("reduce", "x_f64");
  Tensor b = x.view({1, 4, 5}, x.strides(), x.offset()).broadcast_to({3, 4, 5});
  expect_same(run_op(Mean(std::vector<int>{1, 2}, false, DType::Float32), {b}), load_npy("reduce", "bcast_mean_1_2"),
              kTol, kTol);
  expect_same(run_op(Mean(std::nullopt, false, DType::Float32), {b}), load_npy("reduce", "bcast_mean_all"),
              kTol, kTol);
}

TEST(Mean, EmptyReductionIsNaN) {
  Tensor m = run_op(Mean(std::vector<int>{0}, false, DType::Float32), {Tensor::zeros(DType::Float32, {0, 2})});
  EXPECT_EQ(m.shape(), (Shape{2}));
  EXPECT_TRUE(std::isnan(m.at({0})) && std::isnan(m.at({1})));
  EXPECT_EQ(run_op(Mean(std::vector<int>{1}, false, DType::Float32), {Tensor::zeros(DType::Int32, {0, 2})}).shape(),
            (Shape{0}));
  EXPECT_TRUE(std::isnan(run_op(Mean(std::nullopt, false, DType::Float64), {Tensor::zeros(DType::Int8, {0})}).item<double>()));
  EXPECT_EQ(run_op(Mean(std::nullopt, false, DType::Float64), {Tensor::scalar<int32_t>(3)}).item<double>(), 3.0);
}

TEST(Mean, NameTypeAndShape) {
  EXPECT_EQ(Mean(std::vector<int>{0}, false, DType::Float32).name(), "Mean{axis=[0]}");
  EXPECT_EQ(Mean(std::nullopt, true, DType::Float32).name(), "Mean{keepdims=True}");
  EXPECT_EQ(Mean(std::nullopt, false, DType::Float64).name(), "Mean{floatX=float64}");
  EXPECT_EQ(Mean(std::nullopt, false, DType::Float32).name(), "Mean");
  EXPECT_EQ(Mean(std::nullopt, false, DType::Float32).op_class(), "CAReduce");
  EXPECT_EQ(Mean(std::nullopt, false, DType::Float32).user_name(), "mean");
  EXPECT_FALSE(Mean(std::nullopt, false, DType::Float32).equals(Mean(std::nullopt, false, DType::Float64)));
  Mean m1(std::vector<int>{1}, true, DType::Float32);
  EXPECT_EQ(m1.infer_types({Type(DType::Int32, {kUnknownDim, 7})})[0], Type(DType::Float32, {kUnknownDim, 1}));
  EXPECT_EQ(m1.infer_types({Type(DType::Float64, {3, kUnknownDim})})[0], Type(DType::Float64, {3, 1}));
  EXPECT_EQ(m1.infer_shapes({{3, 7}})[0], (Shape{3, 1}));
  EXPECT_THROW(m1.infer_types({Type(DType::Float32, {3})}), ShapeError);
}

}  // namespace
}  // namespace tgc
