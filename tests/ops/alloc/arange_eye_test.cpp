// Arange and Eye: NumPy's length rule and values, every dtype, errors; arange/eye API.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/creation.h>

#include "ops/alloc/arange.h"
#include "ops/alloc/eye.h"
#include "ops/core/node.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;

// The op's value, checked against its static type.
Tensor run(const Op& op) {
  Tensor y = run_op(op, {});
  EXPECT_TRUE(op.infer_types({})[0].accepts(y.dtype(), y.shape()));
  return y;
}

TEST(Arange, NumPyLengthsAndValues) {
  // np.arange(0, 10, 3) == [0, 3, 6, 9]
  EXPECT_EQ(run(Arange(0, 10, 3, DType::Int64)).to_vector<int64_t>(), (std::vector<int64_t>{0, 3, 6, 9}));
  // np.arange(1, 2, 0.3) == [1, 1.3, 1.6, 1.9] (ceil(3.33) = 4 values)
  Tensor f = run(Arange(1, 2, 0.3, DType::Float64));
  ASSERT_EQ(f.numel(), 4);
  EXPECT_TRUE(tensors_allclose(f, Tensor::from_vector<double>({1, 1.3, 1.6, 1.9}), 1e-15, 0));
  // np.arange(5, 1, -1.5) == [5, 3.5, 2]
  EXPECT_EQ(run(Arange(5, 1, -1.5, DType::Float32)).to_vector<float>(), (std::vector<float>{5, 3.5f, 2}));
  // Empty ranges.
  EXPECT_EQ(run(Arange(3, 3, 1, DType::Int32)).shape(), (Shape{0}));
  EXPECT_EQ(run(Arange(5, 1, 1, DType::Int32)).shape(), (Shape{0}));
  // np.arange(0.5, 5, 1, dtype=int) == [0, 1, 2, 3, 4]: NumPy's fill from the first two values.
  EXPECT_EQ(run(Arange(0.5, 5, 1, DType::Int64)).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Arange(0, 10, 3, DType::Int64).name(), "Arange{start=0, stop=10, step=3, dtype=int64}");
  EXPECT_EQ(Arange(0, 1, 0.25, DType::Float32).name(), "Arange{start=0, stop=1, step=0.25, dtype=float32}");
}

TEST(Arange, EveryNumericDType) {
  for (DType t : kAllDTypes) {
    if (t == DType::Bool) continue;
    Tensor y = run(Arange(2, 7, 2, t));
    EXPECT_EQ(y.dtype(), t);
    EXPECT_TRUE(tensors_equal(y, Tensor::from_vector<double>({2, 4, 6}).astype(t))) << dtype_name(t);
  }
  // float32 values follow NumPy's float32 fill: first + i * (second - first) in float32.
  Tensor g = run(Arange(0, 1, 0.1, DType::Float32));
  ASSERT_EQ(g.numel(), 10);
  const float delta = 0.1f;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(g.to_vector<float>()[i], 0.0f + static_cast<float>(i) * delta);
}

TEST(Arange, Errors) {
  EXPECT_THAT([] { Arange(0, 5, 0, DType::Int64).infer_types({}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("arange: step must not be 0")));
  EXPECT_THROW(Arange(0, 5, 1, DType::Bool).infer_types({}), TypeError);
  try {
    arange(1, 2, 0);
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.where(), HasSubstr("arange()"));
  }
}

TEST(Eye, Values) {
  // np.eye(3, 4, 1)
  EXPECT_EQ(run(Eye(3, 4, 1, DType::Float64)).to_vector<double>(),
            (std::vector<double>{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  // np.eye(3, 4, -2)
  EXPECT_EQ(run(Eye(3, 4, -2, DType::Int32)).to_vector<int>(), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}));
  // A diagonal outside the matrix, and empty matrices.
  EXPECT_EQ(run(Eye(2, 3, 5, DType::Float32)).to_vector<float>(), (std::vector<float>(6, 0.0f)));
  EXPECT_EQ(run(Eye(0, 3, 0, DType::Float32)).shape(), (Shape{0, 3}));
  EXPECT_EQ(Eye(3, 4, 1, DType::Float32).name(), "Eye{n=3, m=4, k=1, dtype=float32}");
  for (DType t : kAllDTypes)
    EXPECT_TRUE(tensors_equal(run(Eye(2, 2, 0, t)), Tensor::from_vector<double>({1, 0, 0, 1}, {2, 2}).astype(t)))
        << dtype_name(t);
  EXPECT_THROW(Eye(-1, 2, 0, DType::Float32).infer_types({}), ValueError);
}

TEST(CreationApi, ArangeAndEyeDefaults) {
  Var r = arange(5);
  EXPECT_EQ(r.dtype(), DType::Int64);  // whole numbers: int64, like NumPy
  EXPECT_EQ(eval(r).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(0, 1, 0.5).dtype(), floatX());
  EXPECT_EQ(arange(0, 4, 1, DType::Float64).type(), Type(DType::Float64, {4}));
  Var e = eye(2);
  EXPECT_EQ(e.type(), Type(floatX(), {2, 2}));
  EXPECT_EQ(eye(2, 3, 1, DType::Int8).ptr()->owner()->op().name(), "Eye{n=2, m=3, k=1, dtype=int8}");
  EXPECT_TRUE(tensors_equal(eval(eye(2, 3, 1, DType::Int8)),
                            Tensor::from_vector<int8_t>({0, 1, 0, 0, 0, 1}, {2, 3})));
}

}  // namespace
}  // namespace tgc
