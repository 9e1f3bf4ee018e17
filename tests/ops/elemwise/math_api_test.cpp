// The public math API (<tgc/math.h>): the nodes its functions and operators build, and the
// weak typing of C++ literals mixed with Vars.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tgc/math.h>

#include "ops/core/node.h"
#include "ops/elemwise/elemwise.h"
#include "runtime/error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

const Node& node_of(const Var& v) {
  EXPECT_NE(v.ptr()->owner(), nullptr);
  return *v.ptr()->owner();
}
// The dtype a literal operand of v's node was given.
DType input_dtype(const Var& v, int i) { return node_of(v).inputs()[i]->type().dtype; }

TEST(MathApi, FunctionsBuildOneElemwiseNode) {
  Var x = vector("x", DType::Float32);
  Var y = exp(x);
  EXPECT_EQ(node_of(y).op().name(), "Elemwise{exp}");
  EXPECT_EQ(node_of(y).inputs()[0], x.ptr());
  EXPECT_EQ(node_of(sigmoid(x)).op().name(), "Elemwise{sigmoid}");
  EXPECT_EQ(node_of(sqr(x)).op().name(), "Elemwise{square}");
  EXPECT_EQ(node_of(abs(x)).op().name(), "Elemwise{abs}");
  EXPECT_EQ(node_of(switch_(x > 0, x, 0)).op().name(), "Elemwise{where}");
  EXPECT_EQ(node_of(x + x).op().name(), "Elemwise{add}");
  EXPECT_EQ(node_of(x / x).op().name(), "Elemwise{true_div}");
  EXPECT_EQ(node_of(x % x).op().name(), "Elemwise{mod}");
  EXPECT_EQ(node_of(-x).op().name(), "Elemwise{neg}");
  EXPECT_EQ(node_of(floor_div(x, 2)).op().name(), "Elemwise{floor_div}");
  EXPECT_EQ(node_of(pow(x, 2)).op().name(), "Elemwise{pow}");
  EXPECT_EQ(node_of(arctan2(x, 1)).op().name(), "Elemwise{arctan2}");
  EXPECT_EQ(node_of(clip(x, 0, 1)).op().name(), "Elemwise{clip}");
}

TEST(MathApi, ComparisonsAndLogicGiveBool) {
  Var x = matrix("x", DType::Float32), y = matrix("y", DType::Float32);
  for (const Var& v : {x<y, x <= y, x> y, x >= y, eq(x, y), neq(x, y), lt(x, 1), isnan(x), isinf(x),
                       logical_and(x, y), logical_not(x)})
    EXPECT_EQ(v.dtype(), DType::Bool);
  Var m = x > 0;
  EXPECT_EQ((m & (y < 1)).dtype(), DType::Bool);
  EXPECT_EQ(node_of(m | m).op().name(), "Elemwise{logical_or}");
  EXPECT_EQ(node_of(m ^ m).op().name(), "Elemwise{logical_xor}");
  EXPECT_EQ(node_of(!m).op().name(), "Elemwise{logical_not}");
  EXPECT_EQ(input_dtype(m & true, 1), DType::Bool);
}

TEST(MathApi, LogicalOperatorsNeedBoolOperands) {
  Var i = vector("i", DType::Int32), m = vector("m", DType::Bool);
  try {
    (void)(i & m);
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("operator & needs bool operands, got int32 vector"));
    EXPECT_THAT(e.hint(), HasSubstr("logical_and"));
  }
  EXPECT_THROW((void)!i, TypeError);
  EXPECT_THROW((void)(1.0 | i), TypeError);
  EXPECT_EQ(logical_and(i, m).dtype(), DType::Bool);  // the functions read nonzero as true
}

TEST(MathApi, LiteralsTakeAFloatVarsDType) {
  Var x = vector("x", DType::Float32), d = vector("d", DType::Float64);
  EXPECT_EQ((x + 1).dtype(), DType::Float32);
  EXPECT_EQ((1 + x).dtype(), DType::Float32);
  EXPECT_EQ((x * 0.5).dtype(), DType::Float32);
  EXPECT_EQ((2.0 / x).dtype(), DType::Float32);
  EXPECT_EQ(input_dtype(2.0 / x, 0), DType::Float32);
  EXPECT_EQ((d - 1e-300).dtype(), DType::Float64);
  EXPECT_EQ(input_dtype(x < 0.1, 1), DType::Float32);  // as NumPy/JAX: compared in float32
  EXPECT_EQ(pow(x, 2).dtype(), DType::Float32);
}

TEST(MathApi, LiteralsWithIntegerVars) {
  Var i = vector("i", DType::Int32), u = vector("u", DType::UInt8);
  EXPECT_EQ((i + 1).dtype(), DType::Int32);
  EXPECT_EQ((i * -3).dtype(), DType::Int32);
  EXPECT_EQ((i * 0.5).dtype(), DType::Float32);  // fractional: floatX
  EXPECT_EQ(input_dtype(i * 0.5, 1), DType::Float32);
  EXPECT_EQ((i / 2).dtype(), DType::Float32);  // true division gives floatX
  EXPECT_EQ((i % 2).dtype(), DType::Int32);
  EXPECT_EQ(floor_div(i, 2).dtype(), DType::Int32);
  EXPECT_EQ((u + 255).dtype(), DType::UInt8);
  EXPECT_EQ((u + 300).dtype(), DType::Int16);  // NumPy 1.24's value-based result
  EXPECT_EQ((u - 1).dtype(), DType::UInt8);
  EXPECT_EQ((u + -1).dtype(), DType::Int16);
  EXPECT_EQ((i + 3e9).dtype(), DType::Int64);
  EXPECT_EQ(exp(i).dtype(), DType::Float32);  // exp(int32) -> floatX
  // Comparisons stay exact: a fractional literal compares in float64.
  EXPECT_EQ(input_dtype(i < 2.5, 1), DType::Float64);
  EXPECT_EQ(input_dtype(i < 2, 1), DType::Int32);
  EXPECT_EQ(input_dtype(u > 1000, 1), DType::Int16);
}

TEST(MathApi, LiteralsWithBoolVars) {
  Var b = vector("b", DType::Bool);
  EXPECT_EQ(input_dtype(eq(b, 1), 1), DType::Bool);
  EXPECT_EQ(input_dtype(eq(b, 2), 1), DType::Int8);
  EXPECT_EQ((b + 1).dtype(), DType::Int8);
  EXPECT_EQ((b * 0.5).dtype(), DType::Float32);
  EXPECT_EQ(logical_or(b, 0).dtype(), DType::Bool);
}

TEST(MathApi, WhereAndClipTypeLiteralsAgainstTheirData) {
  Var c = vector("c", DType::Bool), x = vector("x", DType::Float32), i = vector("i", DType::Int16);
  EXPECT_EQ(where(c, x, 0).dtype(), DType::Float32);
  EXPECT_EQ(where(c, i, 0).dtype(), DType::Int16);
  EXPECT_EQ(where(c, i, 0.5).dtype(), DType::Float32);
  EXPECT_EQ(where(x, i, i).dtype(), DType::Int16);  // the condition does not type the result
  EXPECT_EQ(input_dtype(where(1, i, i), 0), DType::Bool);
  EXPECT_EQ(where(c, 1, 0).dtype(), floatX());  // two literals: floatX
  EXPECT_EQ(clip(i, 0, 10).dtype(), DType::Int16);
  EXPECT_EQ(clip(x, 0, 1).dtype(), DType::Float32);
  EXPECT_EQ(maximum(i, 0.5).dtype(), DType::Float32);
  EXPECT_EQ(minimum(x, i).dtype(), DType::Float32);
}

TEST(MathApi, CastAndAstype) {
  Var x = matrix("x", DType::Float32);
  Var y = x.astype(DType::Int32);
  EXPECT_EQ(y.dtype(), DType::Int32);
  EXPECT_EQ(node_of(y).op().name(), "Elemwise{Cast{int32}}");
  EXPECT_EQ(node_of(cast(x, DType::Float64)).op().name(), "Elemwise{Cast{float64}}");
  EXPECT_EQ(x.astype(DType::Float32).ptr(), x.ptr());  // already that dtype: no node
}

TEST(MathApi, ShapesPropagateAndMismatchesFailAtBuildTime) {
  // (std::vector spelled out: a braced {5} would pick the tensor(name, dtype, ndim) overload.)
  Var a = tensor("a", DType::Float32, {3, 4});
  Var b = tensor("b", DType::Float32, std::vector<int64_t>{5});
  Var c = tensor("c", DType::Float32, {-1, 4});
  EXPECT_EQ((a + c).type(), Type(DType::Float32, {3, 4}));
  EXPECT_EQ((c * 2).type(), Type(DType::Float32, {-1, 4}));
  try {
    (void)(a + b);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("operands could not be broadcast together with shapes (3, 4) (5,)"));
  }
  Var m = vector("m", DType::Bool);
  EXPECT_THROW((void)(m - m), TypeError);
  EXPECT_THROW((void)(-m), TypeError);
}

}  // namespace
}  // namespace tgc
