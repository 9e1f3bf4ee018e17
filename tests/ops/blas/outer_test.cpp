// Outer: values for every dtype (wrapping integers, bool AND), promotion, flattening of
// higher ranks, non-contiguous and empty operands, static types.
#include "ops/blas/outer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using test::run_op;

TEST(Outer, FloatValuesAndNonContiguousOperands) {
  Tensor x = Tensor::from_vector(std::vector<double>{1, 2, 3});
  Tensor y = Tensor::from_vector(std::vector<double>{10, 20}).view({2}, {-1}, 1);  // [20, 10]
  Tensor r = run_op(Outer(), {x, y});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_THAT(r.to_vector<double>(), ElementsAre(20, 10, 40, 20, 60, 30));
  // A transposed matrix is flattened in its logical C order: [[1, 3], [2, 4]] -> 1, 3, 2, 4.
  Tensor m = Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, {2, 2}).transpose();
  Tensor r2 = run_op(Outer(), {m, Tensor::from_vector(std::vector<float>{1, -1})});
  EXPECT_EQ(r2.shape(), (Shape{4, 2}));
  EXPECT_THAT(r2.to_vector<float>(), ElementsAre(1, -1, 3, -3, 2, -2, 4, -4));
}

TEST(Outer, EveryDtype) {
  Tensor i8 = run_op(Outer(), {Tensor::from_vector(std::vector<int8_t>{16, -3}), Tensor::from_vector(std::vector<int8_t>{16, 2})});
  EXPECT_EQ(i8.dtype(), DType::Int8);
  EXPECT_THAT(i8.to_vector<int8_t>(), ElementsAre(0, 32, -48, -6));  // 256 wraps to 0
  Tensor b = run_op(Outer(), {Tensor::from_vector(std::vector<bool>{true, false}), Tensor::from_vector(std::vector<bool>{true, true})});
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_THAT(b.to_vector<bool>(), ElementsAre(true, true, false, false));
  Tensor u = run_op(Outer(), {Tensor::from_vector(std::vector<uint8_t>{200}), Tensor::from_vector(std::vector<int8_t>{-2})});
  EXPECT_EQ(u.dtype(), DType::Int16);
  EXPECT_EQ(u.item<int16_t>(), -400);
  Tensor i64 = run_op(Outer(), {Tensor::from_vector(std::vector<int64_t>{int64_t(1) << 62}), Tensor::from_vector(std::vector<int64_t>{4})});
  EXPECT_EQ(i64.item<int64_t>(), 0);  // 2^64 wraps, without signed-overflow UB
  Tensor i16 = run_op(Outer(), {Tensor::from_vector(std::vector<int16_t>{300}), Tensor::from_vector(std::vector<int32_t>{-7})});
  EXPECT_EQ(i16.dtype(), DType::Int32);
  EXPECT_EQ(i16.item<int32_t>(), -2100);
  Tensor f = run_op(Outer(), {Tensor::from_vector(std::vector<int32_t>{3}), Tensor::from_vector(std::vector<float>{0.5f})});
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(f.item<float>(), 1.5f);
}

TEST(Outer, EmptyAndStaticTypes) {
  EXPECT_EQ(run_op(Outer(), {Tensor::zeros(DType::Float32, {0}), Tensor::zeros(DType::Float32, {3})}).shape(), (Shape{0, 3}));
  Outer op;
  EXPECT_EQ(op.name(), "Outer");
  EXPECT_EQ(op.user_name(), "outer");
  EXPECT_EQ(op.infer_types({Type(DType::Float32, {3}), Type(DType::Int32, {2, 4})})[0], Type(DType::Float32, {3, 8}));
  EXPECT_EQ(op.infer_types({Type(DType::Int32, {kUnknownDim}), Type(DType::Int32, {})})[0],
            Type(DType::Int32, {kUnknownDim, 1}));
  EXPECT_EQ(op.infer_shapes({{2, 3}, {5}})[0], (Shape{6, 5}));
}

}  // namespace
}  // namespace tgc
