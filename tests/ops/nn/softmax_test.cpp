// Softmax / LogSoftmax: values against SciPy's formulas (via NumPy) along each axis and in
// several layouts, inputs that overflow a naive formula, SciPy's infinities and NaN, the
// floatX promotion of integers, 0-d and empty inputs, names, types and errors.
#include "ops/nn/softmax.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace test;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Softmax, MatchesSciPyAlongEachAxisAndLayout) {
  Tensor X = load_npy("nn", "X");
  for (int axis : {0, 1}) {
    for (bool log : {false, true}) {
      SCOPED_TRACE(std::string(log ? "log_softmax" : "softmax") + " axis " + std::to_string(axis));
      Tensor want = load_npy("nn", std::string(log ? "log_softmax_" : "softmax_") + std::to_string(axis));
      Softmax op(axis, log, DType::Float32);
      for (const Tensor& in : {X, fortran_layout(X), reversed_layout(X, 1)}) {
        Tensor got = run_op(op, {in});
        EXPECT_EQ(got.dtype(), DType::Float64);
        expect_close(got, want);
      }
      Tensor got32 = run_op(op, {X.astype(DType::Float32)});
      EXPECT_EQ(got32.dtype(), DType::Float32);
      expect_close(got32, want, 1e-5, 1e-6);
    }
  }
}

TEST(Softmax, LargeInputsDoNotOverflow) {
  Tensor big = Tensor::from_vector(std::vector<double>{1000, 1000, 999, -1000, -1000, -1001}, {2, 3});
  const double e = std::exp(-1.0), z = 2 + e;
  expect_close(run_op(Softmax(1, false, DType::Float32), {big}),
               Tensor::from_vector(std::vector<double>{1 / z, 1 / z, e / z, 1 / z, 1 / z, e / z}, {2, 3}));
  expect_close(run_op(Softmax(1, true, DType::Float32), {big}),
               Tensor::from_vector(std::vector<double>{-std::log(z), -std::log(z), -1 - std::log(z), -std::log(z),
                                                       -std::log(z), -1 - std::log(z)}, {2, 3}));
  Tensor f = run_op(Softmax(0, false, DType::Float32), {Tensor::from_vector(std::vector<float>{1000.0f, -1000.0f})});
  EXPECT_THAT(f.to_vector<float>(), ElementsAre(1.0f, 0.0f));
  Tensor lf = run_op(Softmax(0, true, DType::Float32), {Tensor::from_vector(std::vector<float>{1000.0f, -1000.0f})});
  EXPECT_FLOAT_EQ(lf.to_vector<float>()[0], 0.0f);
  EXPECT_FLOAT_EQ(lf.to_vector<float>()[1], -2000.0f);
}

// SciPy's results: softmax(x) = e / sum(e) with e = exp(x - max); log_softmax shifts by
// the max only when it is finite.
TEST(Softmax, InfinitiesAndNaNFollowSciPy) {
  auto sm = [](std::vector<double> v) { return run_op(Softmax(0, false, DType::Float32), {Tensor::from_vector(v)}).to_vector<double>(); };
  auto lsm = [](std::vector<double> v) { return run_op(Softmax(0, true, DType::Float32), {Tensor::from_vector(v)}).to_vector<double>(); };
  for (double x : sm({-kInf, -kInf})) EXPECT_TRUE(std::isnan(x));
  for (double x : sm({1, kInf})) EXPECT_TRUE(std::isnan(x));
  for (double x : sm({1, kNaN, 2})) EXPECT_TRUE(std::isnan(x));
  EXPECT_THAT(sm({-kInf, 0, -kInf}), ElementsAre(0, 1, 0));
  for (double x : lsm({-kInf, -kInf})) EXPECT_TRUE(std::isnan(x));
  std::vector<double> l = lsm({1, kInf});
  EXPECT_EQ(l[0], -kInf);
  EXPECT_TRUE(std::isnan(l[1]));
  EXPECT_THAT(lsm({-kInf, 0}), ElementsAre(-kInf, 0));
  for (double x : lsm({kNaN, 0})) EXPECT_TRUE(std::isnan(x));
}

// Contiguous rows along the last axis take a row loop of their own; every other layout the
// general strided path. Both must give the same bits, special values included.
TEST(Softmax, TheRowLoopGivesTheGeneralPathsBits) {
  const std::vector<double> v = {0.5, -1.25, 3.0,  1e-3,  -7.5, 1000, 999,  -1000, 2,   kInf, -kInf, 0.25,
                                 kNaN, 4.0, -2.0, -kInf, -kInf, -kInf, 0.1, 0.2, 0.3, 88.0, -88.0, 1.5};
  Tensor x64 = Tensor::from_vector(v, {4, 6});
  for (DType dtype : {DType::Float64, DType::Float32}) {
    Tensor x = x64.astype(dtype);
    for (bool log : {false, true}) {
      SCOPED_TRACE(std::string(log ? "log_softmax " : "softmax ") + std::string(dtype_name(dtype)));
      Softmax op(1, log, DType::Float32);
      Tensor rows = run_op(op, {x});                  // contiguous: the row loop
      Tensor general = run_op(op, {fortran_layout(x)});  // column-major: the strided path
      ASSERT_EQ(rows.nbytes(), general.nbytes());
      EXPECT_EQ(std::memcmp(rows.contiguous().raw_data(), general.contiguous().raw_data(), rows.nbytes()), 0);
    }
  }
}

TEST(Softmax, IntegersComputeInFloatX) {
  Tensor i = Tensor::from_vector(std::vector<int32_t>{0, 1, 1, 0}, {2, 2});
  Tensor r = run_op(Softmax(1, false, DType::Float32), {i});
  EXPECT_EQ(r.dtype(), DType::Float32);
  const double s = 1 / (1 + std::exp(1.0));
  EXPECT_TRUE(tensors_allclose(r, Tensor::from_vector(std::vector<double>{s, 1 - s, 1 - s, s}, {2, 2}), 1e-6));
  Tensor b = run_op(Softmax(0, true, DType::Float64), {Tensor::from_vector(std::vector<bool>{true, false})});
  EXPECT_EQ(b.dtype(), DType::Float64);
  EXPECT_NEAR(b.at({0}), -std::log(1 + std::exp(-1.0)), 1e-15);
  for (DType t : {DType::Int8, DType::Int16, DType::Int64, DType::UInt8}) {
    Tensor x = Tensor::from_vector(std::vector<int64_t>{3, 3}).astype(t);
    EXPECT_THAT(run_op(Softmax(0, false, DType::Float32), {x}).to_vector<float>(), ElementsAre(0.5f, 0.5f));
  }
}

TEST(Softmax, BroadcastZeroDimAndEmptyInputs) {
  Tensor row = Tensor::from_vector(std::vector<double>{1, 2, 3});
  Tensor rows = run_op(Softmax(1, false, DType::Float32), {row.broadcast_to({2, 3})});
  Tensor one = run_op(Softmax(0, false, DType::Float32), {row});
  EXPECT_EQ(rows.shape(), (Shape{2, 3}));
  auto r = rows.to_vector<double>(), o = one.to_vector<double>();
  for (int j = 0; j < 3; ++j) {
    EXPECT_DOUBLE_EQ(r[j], o[j]);
    EXPECT_DOUBLE_EQ(r[3 + j], o[j]);
  }
  // Down the broadcast axis each column is constant: 1/2 each.
  EXPECT_THAT(run_op(Softmax(0, false, DType::Float32), {row.broadcast_to({2, 3})}).to_vector<double>(),
              ElementsAre(0.5, 0.5, 0.5, 0.5, 0.5, 0.5));
  EXPECT_EQ(run_op(Softmax(0, false, DType::Float32), {Tensor::scalar(7.0)}).item<double>(), 1.0);
  EXPECT_EQ(run_op(Softmax(0, true, DType::Float32), {Tensor::scalar(7.0)}).item<double>(), 0.0);
  EXPECT_EQ(run_op(Softmax(1, false, DType::Float32), {Tensor::zeros(DType::Float32, {0, 3})}).shape(), (Shape{0, 3}));
  EXPECT_EQ(run_op(Softmax(1, true, DType::Float32), {Tensor::zeros(DType::Float32, {3, 0})}).shape(), (Shape{3, 0}));
}

TEST(Softmax, NamesTypesAndErrors) {
  EXPECT_EQ(Softmax(1, false, DType::Float32).name(), "Softmax{axis=1}");
  EXPECT_EQ(Softmax(0, true, DType::Float64).name(), "LogSoftmax{axis=0, floatX=float64}");
  EXPECT_EQ(Softmax(0, true, DType::Float32).op_class(), "LogSoftmax");
  EXPECT_EQ(Softmax(0, false, DType::Float32).user_name(), "softmax");
  Softmax op(1, false, DType::Float32);
  EXPECT_EQ(op.infer_types({Type(DType::Int32, {kUnknownDim, 10})})[0], Type(DType::Float32, {kUnknownDim, 10}));
  EXPECT_EQ(op.infer_types({Type(DType::Float64, {2, 3})})[0], Type(DType::Float64, {2, 3}));
  EXPECT_EQ(op.infer_shapes({{4, 5}})[0], (Shape{4, 5}));
  try {
    op.infer_types({Type(DType::Float32, {kUnknownDim})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("softmax: axis 1 is out of bounds for a 1-d tensor"));
    EXPECT_THAT(e.hint(), HasSubstr("valid axes are -1 .. 0"));
  }
}

}  // namespace
}  // namespace tgc
