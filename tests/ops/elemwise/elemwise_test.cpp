// The Elemwise op: names, static types and broadcasting, and perform() over broadcast,
// transposed, negative-stride, stride-0 and empty operands, errors, and output reuse.
#include "ops/elemwise/elemwise.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/error.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;
using K = ScalarOpKind;
constexpr int64_t U = kUnknownDim;

// Applies Elemwise{kind} through perform(), with floatX float32 whatever the global config says.
Tensor run_elemwise(K kind, const std::vector<Tensor>& inputs, std::optional<DType> cast_to = std::nullopt) {
  return run_op(Elemwise(kind, cast_to, DType::Float32), inputs);
}

Tensor f32(std::vector<float> v, Shape s) { return Tensor::from_vector(v, s); }
Tensor f64(std::vector<double> v, Shape s) { return Tensor::from_vector(v, s); }
Tensor i32(std::vector<int32_t> v, Shape s) { return Tensor::from_vector(v, s); }

TEST(Elemwise, NamesAreTheanoStyle) {
  EXPECT_EQ(Elemwise(K::Exp).name(), "Elemwise{exp}");
  EXPECT_EQ(Elemwise(K::Add).name(), "Elemwise{add}");
  EXPECT_EQ(Elemwise(K::Cast, DType::Float32).name(), "Elemwise{Cast{float32}}");
  EXPECT_EQ(Elemwise(K::Exp, std::nullopt, DType::Float64).name(), "Elemwise{exp,floatX=float64}");
  EXPECT_EQ(Elemwise(K::Add, std::nullopt, DType::Float64).name(), "Elemwise{add}");
  EXPECT_EQ(Elemwise(K::Exp).op_class(), "Elemwise");
  EXPECT_EQ(Elemwise(K::Exp).user_name(), "exp");
  EXPECT_EQ(Elemwise(K::Cast, DType::Int8).user_name(), "cast");
  EXPECT_EQ(Elemwise(K::Where).user_name(), "where");
}

TEST(Elemwise, IdentityIncludesEveryParameter) {
  EXPECT_TRUE(Elemwise(K::Exp).equals(Elemwise(K::Exp)));
  EXPECT_EQ(Elemwise(K::Exp).hash(), Elemwise(K::Exp).hash());
  EXPECT_FALSE(Elemwise(K::Exp).equals(Elemwise(K::Log)));
  EXPECT_FALSE(Elemwise(K::Cast, DType::Int8).equals(Elemwise(K::Cast, DType::Int16)));
  EXPECT_FALSE(Elemwise(K::Exp, std::nullopt, DType::Float32)
                   .equals(Elemwise(K::Exp, std::nullopt, DType::Float64)));
}

TEST(Elemwise, InferTypesPromotesAndBroadcasts) {
  Elemwise add(K::Add);
  EXPECT_EQ(add.infer_types({Type(DType::Int32, {U, 784}), Type(DType::Float32, {784})})[0],
            Type(DType::Float32, {U, 784}));
  EXPECT_EQ(add.infer_types({Type(DType::UInt8, {3, 1}), Type(DType::Int8, {1, 4})})[0],
            Type(DType::Int16, {3, 4}));
  EXPECT_EQ(Elemwise(K::Lt).infer_types({Type(DType::Float32, {5}), Type(DType::Float32, {})})[0],
            Type(DType::Bool, {5}));
  EXPECT_EQ(Elemwise(K::Exp).infer_types({Type(DType::Int32, {U})})[0], Type(DType::Float32, {U}));
  EXPECT_EQ(
      Elemwise(K::Exp, std::nullopt, DType::Float64).infer_types({Type(DType::Int32, {2})})[0],
      Type(DType::Float64, {2}));
  EXPECT_EQ(Elemwise(K::Where).infer_types(
                {Type(DType::Bool, {U, 1}), Type(DType::Int8, {3}), Type(DType::Float32, {})})[0],
            Type(DType::Float32, {U, 3}));
  EXPECT_EQ(Elemwise(K::Cast, DType::Int64).infer_types({Type(DType::Float32, {2, U})})[0],
            Type(DType::Int64, {2, U}));
  EXPECT_EQ(Elemwise(K::Add).infer_shapes({{2, 1}, {3}})[0], (Shape{2, 3}));
}

TEST(Elemwise, StaticMismatchIsAShapeErrorAtBuildTime) {
  try {
    Elemwise(K::Add).infer_types({Type(DType::Float32, {3, 4}), Type(DType::Float32, {5})});
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what_part(),
                HasSubstr("add: operands could not be broadcast together with shapes (3, 4) (5,)"));
  }
  EXPECT_THROW(Elemwise(K::Add).infer_types({Type(DType::Float32, {3})}), TypeError);
  EXPECT_THROW(Elemwise(K::Sub).infer_types({Type(DType::Bool, {3}), Type(DType::Bool, {3})}),
               TypeError);
}

TEST(Elemwise, RuntimeMismatchIsAShapeError) {
  std::vector<Tensor> out(1);
  try {
    Elemwise(K::Mul).perform(
        {Tensor::zeros(DType::Float32, {3, 4}), Tensor::zeros(DType::Float32, {5})}, out);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what_part(),
                HasSubstr("operands could not be broadcast together with shapes (3, 4) (5,)"));
  }
}

TEST(Elemwise, BroadcastsSizeOneDimsAndExtendsRank) {
  // (2, 1) + (3,) -> (2, 3); values checked by hand.
  Tensor a = f32({10, 20}, {2, 1}), b = f32({1, 2, 3}, {3});
  EXPECT_TRUE(same_values(run_elemwise(K::Add, {a, b}), f32({11, 12, 13, 21, 22, 23}, {2, 3})));
  // A rank-0 operand against a matrix, both ways round.
  Tensor s = Tensor::scalar<float>(2.0f), m = f32({1, 2, 3, 4}, {2, 2});
  EXPECT_TRUE(same_values(run_elemwise(K::Sub, {s, m}), f32({1, 0, -1, -2}, {2, 2})));
  EXPECT_TRUE(same_values(run_elemwise(K::Pow, {m, s}), f32({1, 4, 9, 16}, {2, 2})));
  // Three operands of three ranks.
  Tensor lo = Tensor::scalar<float>(1.5f), hi = f32({2, 3.5f}, {2});
  EXPECT_TRUE(same_values(run_elemwise(K::Clip, {m, lo, hi}), f32({1.5f, 2, 2, 3.5f}, {2, 2})));
  // Scalar op scalar stays a scalar.
  Tensor r = run_elemwise(K::Mul, {s, s});
  EXPECT_EQ(r.shape(), Shape{});
  EXPECT_EQ(r.item<float>(), 4.0f);
}

TEST(Elemwise, TransposedInputs) {
  Tensor a = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor at = a.transpose();  // (3, 2), strides (1, 3)
  Tensor b = f64({10, 20, 30, 40, 50, 60}, {3, 2});
  EXPECT_TRUE(same_values(run_elemwise(K::Add, {at, b}), f64({11, 24, 32, 45, 53, 66}, {3, 2})));
  // Both transposed: the output is still C-contiguous in the broadcast shape.
  Tensor out = run_elemwise(K::Mul, {at, at});
  EXPECT_TRUE(out.is_contiguous());
  EXPECT_TRUE(same_values(out, f64({1, 16, 4, 25, 9, 36}, {3, 2})));
}

TEST(Elemwise, NegativeStrideViews) {
  Tensor a = i32({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  // a[::-1, ::-2]: rows backwards, every other column backwards.
  Tensor v = a.view({3, 2}, {-4, -2}, 11);
  EXPECT_TRUE(same_values(run_elemwise(K::Neg, {v}), i32({-11, -9, -7, -5, -3, -1}, {3, 2})));
  // Mixed with a forward operand of another dtype.
  Tensor w = f32({0.5f, 0.25f}, {2});
  EXPECT_TRUE(same_values(run_elemwise(K::Mul, {v, w}),
                          f32({5.5f, 2.25f, 3.5f, 1.25f, 1.5f, 0.25f}, {3, 2})));
}

TEST(Elemwise, StrideZeroBroadcastViews) {
  Tensor row = f32({1, 2, 3}, {3});
  Tensor bcast = row.broadcast_to({4, 3});  // stride 0 along dim 0
  Tensor out = run_elemwise(K::Square, {bcast});
  EXPECT_TRUE(same_values(out, f32({1, 4, 9, 1, 4, 9, 1, 4, 9, 1, 4, 9}, {4, 3})));
  // A single element viewed with all strides 0.
  Tensor one = Tensor::scalar<double>(3.0).view({2, 2}, {0, 0}, 0);
  EXPECT_TRUE(
      same_values(run_elemwise(K::Sqrt, {one}),
                  f64({std::sqrt(3.0), std::sqrt(3.0), std::sqrt(3.0), std::sqrt(3.0)}, {2, 2})));
}

TEST(Elemwise, SlicedRowsWithOffsets) {
  // The middle 2x2 block of a 4x4 matrix: offset 5, strides (4, 1).
  std::vector<double> v(16);
  for (int k = 0; k < 16; ++k) v[k] = k;
  Tensor block = f64(v, {4, 4}).view({2, 2}, {4, 1}, 5);
  EXPECT_TRUE(
      same_values(run_elemwise(K::Maximum, {block, f64({6, 0}, {2})}), f64({6, 6, 9, 10}, {2, 2})));
}

TEST(Elemwise, LongRowsCrossBlockBoundaries) {
  // Longer than the internal block, with a stride-2 operand and a broadcast scalar.
  const int64_t n = 2000;
  std::vector<int32_t> base(2 * n);
  for (int64_t k = 0; k < 2 * n; ++k) base[k] = static_cast<int32_t>(k);
  Tensor every_other = i32(base, {2 * n}).view({n}, {2}, 1);  // 1, 3, 5, ...
  Tensor out = run_elemwise(K::Mod, {every_other, Tensor::scalar<int32_t>(7)});
  auto got = out.to_vector<int64_t>();
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(got[k], (2 * k + 1) % 7) << k;
}

TEST(Elemwise, EmptyTensors) {
  Tensor e = Tensor::zeros(DType::Float32, {0, 3});
  Tensor out = run_elemwise(K::Add, {e, f32({1, 2, 3}, {3})});
  EXPECT_EQ(out.shape(), (Shape{0, 3}));
  EXPECT_EQ(out.dtype(), DType::Float32);
  EXPECT_EQ(run_elemwise(K::Exp, {Tensor::zeros(DType::Int32, {0})}).dtype(), DType::Float32);
  EXPECT_EQ(
      run_elemwise(K::Lt, {Tensor::zeros(DType::Int8, {2, 0}), Tensor::zeros(DType::Int8, {1})})
          .shape(),
      (Shape{2, 0}));
  // Division by zero cannot happen when there are no elements.
  EXPECT_NO_THROW(run_elemwise(
      K::FloorDiv, {Tensor::zeros(DType::Int32, {0}), Tensor::zeros(DType::Int32, {0})}));
}

TEST(Elemwise, IntegerDivisionByZeroFailsMidCall) {
  Tensor a = i32({7, 8, 9}, {3}), b = i32({2, 0, 1}, {3});
  for (K kind : {K::FloorDiv, K::Mod}) {
    try {
      run_elemwise(kind, {a, b});
      FAIL() << scalar_op_name(kind);
    } catch (const ValueError& e) {
      EXPECT_THAT(e.what_part(), HasSubstr("integer division by zero"));
      EXPECT_THAT(e.hint(), HasSubstr("float"));
    }
  }
  // In floats it is inf/nan, as NumPy.
  Tensor q = run_elemwise(K::FloorDiv, {f32({1, -1, 0}, {3}), f32({0, 0, 0}, {3})});
  EXPECT_EQ(q.at({0}), std::numeric_limits<double>::infinity());
  EXPECT_EQ(q.at({1}), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(q.at({2})));
  EXPECT_THROW(run_elemwise(K::Pow, {a, i32({-1}, {1})}), ValueError);
}

TEST(Elemwise, ReusesAnOutputBufferThatNobodyElseHolds) {
  Elemwise op(K::Exp);
  std::vector<Tensor> out(1);
  op.perform({f32({0, 1}, {2})}, out);
  const void* first = out[0].raw_data();
  op.perform({f32({2, 3}, {2})}, out);  // same dtype and shape: written in place
  EXPECT_EQ(out[0].raw_data(), first);
  EXPECT_TRUE(same_values(out[0], f32({std::exp(2.0f), std::exp(3.0f)}, {2}), 1.2e-7));

  Tensor caller_copy = out[0];  // the caller holds the result: a new buffer next time
  op.perform({f32({0, 0}, {2})}, out);
  EXPECT_NE(out[0].raw_data(), caller_copy.raw_data());
  EXPECT_EQ(caller_copy.at({0}), static_cast<double>(std::exp(2.0f)));
  EXPECT_TRUE(same_values(out[0], f32({1, 1}, {2})));

  op.perform({f32({0, 0, 0}, {3})}, out);  // new shape: a new tensor
  EXPECT_EQ(out[0].shape(), Shape{3});
}

TEST(Elemwise, MixedDTypesConvertPerElement) {
  // int32 + float32 computes in float32: 16777217 rounds to 16777216 first.
  Tensor r = run_elemwise(K::Add, {i32({16777217}, {1}), f32({0}, {1})});
  EXPECT_TRUE(same_values(r, f32({16777216.0f}, {1})));
  // uint8 + int8 -> int16 without wrapping.
  Tensor u = Tensor::from_vector<uint8_t>({200, 255});
  Tensor s = Tensor::from_vector<int8_t>({100, -1});
  EXPECT_TRUE(same_values(run_elemwise(K::Add, {u, s}), Tensor::from_vector<int16_t>({300, 254})));
  // where's condition is read as bool (NaN and -0.5 are true, 0 is false).
  Tensor cond = f32({std::nanf(""), 0.0f, -0.5f}, {3});
  EXPECT_TRUE(same_values(run_elemwise(K::Where, {cond, Tensor::from_vector<int8_t>({1, 2, 3}),
                                                  Tensor::scalar<int16_t>(-9)}),
                          Tensor::from_vector<int16_t>({1, -9, 3})));
}

TEST(Elemwise, Float32ResultsAreRoundedOnceFromDouble) {
  // (a*b) in float32 arithmetic loses nothing here, but exp/sin/... are computed in double
  // and rounded once: they equal the double result rounded to float32.
  std::vector<float> x = {0.1f, 1.0f, 2.5f, -3.75f, 10.0f, 88.0f};
  Tensor t = f32(x, {6});
  auto got = run_elemwise(K::Exp, {t}).to_vector<double>();
  for (size_t k = 0; k < x.size(); ++k)
    EXPECT_EQ(got[k], static_cast<double>(static_cast<float>(std::exp(static_cast<double>(x[k])))));
}

TEST(Elemwise, CastConvertsWithDefinedResults) {
  Tensor x = f64({-1.7, 2.9, std::nan(""), 1e300, -1e300, 255.5}, {6});
  EXPECT_TRUE(same_values(run_elemwise(K::Cast, {x}, DType::Int8),
                          Tensor::from_vector<int8_t>({-1, 2, 0, 127, -128, 127})));
  EXPECT_TRUE(same_values(run_elemwise(K::Cast, {x}, DType::UInt8),
                          Tensor::from_vector<uint8_t>({0, 2, 0, 255, 0, 255})));
  EXPECT_TRUE(same_values(run_elemwise(K::Cast, {x}, DType::Bool),
                          Tensor::from_vector<bool>({true, true, true, true, true, true})));
  // Integer narrowing wraps, as astype does.
  EXPECT_TRUE(same_values(run_elemwise(K::Cast, {i32({300, -129}, {2})}, DType::Int8),
                          Tensor::from_vector<int8_t>({44, 127})));
  // int64 -> float32 rounds to nearest.
  Tensor big = Tensor::from_vector<int64_t>({(int64_t{1} << 40) + 1});
  EXPECT_EQ(run_elemwise(K::Cast, {big}, DType::Float32).at({0}), 1099511627776.0);
}

}  // namespace
}  // namespace tgc
