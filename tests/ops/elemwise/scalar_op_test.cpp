// The scalar-op table: its rows, its type rules, and the reference functions' NumPy
// semantics on hand-computed values.
#include "ops/elemwise/scalar_op.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "runtime/error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using K = ScalarOpKind;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double f(K kind, double a, double b = 0, double c = 0) {
  return scalar_op_info(kind).float_fn(a, b, c);
}
int64_t i(K kind, int64_t a, int64_t b = 0, int64_t c = 0) {
  const ScalarOpInfo& row = scalar_op_info(kind);
  EXPECT_NE(row.int_fn, nullptr) << row.name << " has no integer function";
  return row.int_fn(a, b, c);
}
ScalarSignature sig(K kind, std::vector<DType> in, DType floatx = DType::Float32) {
  return scalar_signature(kind, in, floatx);
}

TEST(ScalarOpTable, HasOneRowPerKindWithUniqueNames) {
  auto table = scalar_op_table();
  ASSERT_EQ(table.size(), static_cast<size_t>(K::IsInf) + 1);
  std::set<std::string_view> names;
  for (size_t k = 0; k < table.size(); ++k) {
    const ScalarOpInfo& row = table[k];
    EXPECT_EQ(static_cast<size_t>(row.kind), k);
    EXPECT_TRUE(names.insert(row.name).second) << "duplicate name " << row.name;
    EXPECT_GE(row.arity, 1);
    EXPECT_LE(row.arity, 3);
    EXPECT_NE(row.float_fn, nullptr) << row.name;
    EXPECT_NE(row.float_array, nullptr) << row.name;
    EXPECT_EQ(row.int_fn == nullptr, row.int_array == nullptr) << row.name;
    EXPECT_EQ(find_scalar_op(row.name), row.kind);
    if (row.bool_inputs == BoolInputs::Reject) {
      EXPECT_FALSE(row.bool_hint.empty()) << row.name;
    }
  }
  EXPECT_EQ(find_scalar_op("nope"), std::nullopt);
}

TEST(ScalarOpTable, KnowsTheFoundationOps) {
  for (const char* name :
       {"add",     "sub",      "mul",         "true_div",   "floor_div",   "mod",         "pow",
        "neg",     "abs",      "sign",        "lt",         "le",          "gt",          "ge",
        "eq",      "neq",      "logical_and", "logical_or", "logical_xor", "logical_not", "exp",
        "exp2",    "expm1",    "log",         "log2",       "log10",       "log1p",       "sqrt",
        "rsqrt",   "square",   "sin",         "cos",        "tan",         "tanh",        "sinh",
        "cosh",    "arcsin",   "arccos",      "arctan",     "arctan2",     "erf",         "erfc",
        "sigmoid", "softplus", "floor",       "ceil",       "round",       "trunc",       "clip",
        "maximum", "minimum",  "where",       "cast",       "isnan",       "isinf"})
    EXPECT_TRUE(find_scalar_op(name).has_value()) << name;
  EXPECT_EQ(scalar_op_info(K::Clip).arity, 3);
  EXPECT_EQ(scalar_op_info(K::Where).arity, 3);
  EXPECT_EQ(scalar_op_info(K::Arctan2).arity, 2);
  EXPECT_EQ(scalar_op_name(K::TrueDiv), "true_div");
}

TEST(ScalarOpTable, ArrayFormsMatchScalarFunctions) {
  const double a[] = {-2.5, 0.5, 3.0}, b[] = {2.0, -1.5, 0.25}, c[] = {1.0, 0.0, 2.0};
  const int64_t ia[] = {-7, 0, 9}, ib[] = {2, 3, 4},
                ic[] = {1, 0, 5};  // no 0 or negative b: //, %, **
  for (const ScalarOpInfo& row : scalar_op_table()) {
    double out[3];
    row.float_array(a, b, c, out, 3);
    for (int k = 0; k < 3; ++k) {
      double want = row.float_fn(a[k], b[k], c[k]);
      EXPECT_TRUE(out[k] == want || (std::isnan(out[k]) && std::isnan(want))) << row.name;
    }
    if (!row.int_array) continue;
    int64_t iout[3];
    row.int_array(ia, ib, ic, iout, 3);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(iout[k], row.int_fn(ia[k], ib[k], ic[k])) << row.name;
  }
}

// ---- Type rules.

TEST(ScalarTypeRule, PromotesLikeNumPyWithTheFloatXPolicy) {
  EXPECT_EQ(sig(K::Add, {DType::Int32, DType::Float32}).out, DType::Float32);
  EXPECT_EQ(sig(K::Add, {DType::UInt8, DType::Int8}).out, DType::Int16);
  EXPECT_EQ(sig(K::Mul, {DType::Int16, DType::Int64}).out, DType::Int64);
  EXPECT_EQ(sig(K::Sub, {DType::Float32, DType::Float64}).out, DType::Float64);
  EXPECT_EQ(sig(K::Maximum, {DType::Bool, DType::Int8}).out, DType::Int8);
  ScalarSignature s = sig(K::Add, {DType::Int32, DType::Float32});
  EXPECT_EQ(s.operands, (std::vector<DType>{DType::Float32, DType::Float32}));
  EXPECT_EQ(s.compute, DType::Float32);
  EXPECT_EQ(sig(K::Clip, {DType::Float32, DType::Int8, DType::Int16}).out, DType::Float32);
  EXPECT_EQ(sig(K::Square, {DType::Int32}).out, DType::Int32);
  EXPECT_EQ(sig(K::Round, {DType::Int16}).out, DType::Int16);
  EXPECT_EQ(sig(K::Abs, {DType::UInt8}).out, DType::UInt8);
}

TEST(ScalarTypeRule, FloatResultUsesTheGivenFloatX) {
  EXPECT_EQ(sig(K::Exp, {DType::Int32}).out, DType::Float32);
  EXPECT_EQ(sig(K::Exp, {DType::Int32}, DType::Float64).out, DType::Float64);
  EXPECT_EQ(sig(K::Exp, {DType::Bool}).compute, DType::Float32);
  EXPECT_EQ(sig(K::Exp, {DType::Float64}).out, DType::Float64);  // floats stay
  EXPECT_EQ(sig(K::Sqrt, {DType::Float32}, DType::Float64).out, DType::Float32);
  EXPECT_EQ(sig(K::TrueDiv, {DType::Int32, DType::Int32}).out, DType::Float32);
  EXPECT_EQ(sig(K::TrueDiv, {DType::Int64, DType::Float32}).out, DType::Float32);
  EXPECT_EQ(sig(K::Floor, {DType::Int8}, DType::Float64).out, DType::Float64);  // NumPy's floor
  EXPECT_EQ(sig(K::Arctan2, {DType::UInt8, DType::Int8}).out, DType::Float32);
}

TEST(ScalarTypeRule, ComparisonsAndLogicGiveBool) {
  ScalarSignature s = sig(K::Lt, {DType::Int32, DType::Float32});
  EXPECT_EQ(s.out, DType::Bool);
  EXPECT_EQ(s.compute, DType::Float32);
  EXPECT_EQ(sig(K::Eq, {DType::UInt8, DType::Int8}).compute, DType::Int16);
  EXPECT_EQ(sig(K::LogicalAnd, {DType::Int8, DType::Float64}).out, DType::Bool);
  EXPECT_EQ(sig(K::LogicalNot, {DType::Float32}).out, DType::Bool);
  EXPECT_EQ(sig(K::IsNan, {DType::Float64}).out, DType::Bool);
  EXPECT_EQ(sig(K::IsInf, {DType::Int32}).out, DType::Bool);
}

TEST(ScalarTypeRule, WhereReadsTheConditionAsBool) {
  ScalarSignature s = sig(K::Where, {DType::Float32, DType::Int8, DType::Int16});
  EXPECT_EQ(s.operands, (std::vector<DType>{DType::Bool, DType::Int16, DType::Int16}));
  EXPECT_EQ(s.out, DType::Int16);
  EXPECT_EQ(sig(K::Where, {DType::Bool, DType::Int32, DType::Float32}).out, DType::Float32);
}

TEST(ScalarTypeRule, CastTakesTheTarget) {
  ScalarSignature s =
      scalar_signature(K::Cast, std::vector<DType>{DType::Float64}, DType::Float32, DType::Int8);
  EXPECT_EQ(s.out, DType::Int8);
  EXPECT_EQ(s.operands, std::vector<DType>{DType::Float64});
  EXPECT_EQ(scalar_domain(K::Cast, s), ScalarDomain::Float);
  EXPECT_THROW(scalar_signature(K::Cast, std::vector<DType>{DType::Float64}, DType::Float32),
               InternalError);
}

TEST(ScalarTypeRule, BoolOperandsFollowNumPy) {
  EXPECT_EQ(sig(K::Add, {DType::Bool, DType::Bool}).out, DType::Bool);
  EXPECT_EQ(sig(K::Mul, {DType::Bool, DType::Bool}).out, DType::Bool);
  EXPECT_EQ(sig(K::Maximum, {DType::Bool, DType::Bool}).out, DType::Bool);
  EXPECT_EQ(sig(K::FloorDiv, {DType::Bool, DType::Bool}).out, DType::Int8);
  EXPECT_EQ(sig(K::Mod, {DType::Bool, DType::Bool}).out, DType::Int8);
  EXPECT_EQ(sig(K::Pow, {DType::Bool, DType::Bool}).out, DType::Int8);
  EXPECT_EQ(sig(K::Square, {DType::Bool}).out, DType::Int8);
  EXPECT_EQ(sig(K::Sub, {DType::Bool, DType::Int8}).out, DType::Int8);  // only bool - bool fails
  try {
    sig(K::Sub, {DType::Bool, DType::Bool});
    FAIL() << "bool - bool must throw";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("sub: not supported for bool operands (bool, bool)"));
    EXPECT_THAT(e.hint(), HasSubstr("logical_xor"));
  }
  try {
    sig(K::Neg, {DType::Bool});
    FAIL() << "-bool must throw";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("neg"));
    EXPECT_THAT(e.hint(), HasSubstr("logical_not"));
  }
  EXPECT_THROW(sig(K::Sign, {DType::Bool}), TypeError);
}

TEST(ScalarTypeRule, WrongOperandCountIsATypeError) {
  try {
    sig(K::Add, {DType::Float32});
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("add: expects 2 operands, got 1"));
  }
}

TEST(ScalarTypeRule, DomainFollowsTheComputeDType) {
  EXPECT_EQ(scalar_domain(K::Add, sig(K::Add, {DType::Int8, DType::Int8})), ScalarDomain::Int);
  EXPECT_EQ(scalar_domain(K::Add, sig(K::Add, {DType::Int8, DType::Float32})), ScalarDomain::Float);
  EXPECT_EQ(scalar_domain(K::Exp, sig(K::Exp, {DType::Int8})), ScalarDomain::Float);
  EXPECT_EQ(scalar_domain(K::IsNan, sig(K::IsNan, {DType::Int8})), ScalarDomain::Float);
  EXPECT_EQ(scalar_domain(K::Lt, sig(K::Lt, {DType::Int64, DType::Int64})), ScalarDomain::Int);
}

// ---- Reference functions: NumPy semantics, hand-computed values.

TEST(ScalarFunctions, FloorDivAndModArePythons) {
  EXPECT_EQ(i(K::FloorDiv, 7, 2), 3);
  EXPECT_EQ(i(K::FloorDiv, -7, 2), -4);
  EXPECT_EQ(i(K::FloorDiv, 7, -2), -4);
  EXPECT_EQ(i(K::FloorDiv, -7, -2), 3);
  EXPECT_EQ(i(K::Mod, -7, 2), 1);
  EXPECT_EQ(i(K::Mod, 7, -2), -1);
  EXPECT_EQ(i(K::Mod, -7, -2), -1);
  EXPECT_EQ(i(K::Mod, 6, -3), 0);
  EXPECT_EQ(i(K::FloorDiv, std::numeric_limits<int64_t>::min(), -1),
            std::numeric_limits<int64_t>::min());  // wraps like NumPy, no trap
  EXPECT_EQ(i(K::Mod, std::numeric_limits<int64_t>::min(), -1), 0);
  EXPECT_EQ(f(K::FloorDiv, -7.5, 2), -4.0);
  EXPECT_EQ(f(K::FloorDiv, 7.5, -2), -4.0);
  EXPECT_EQ(f(K::Mod, -7.5, 2), 0.5);
  EXPECT_EQ(f(K::Mod, 7.5, -2), -0.5);
  EXPECT_EQ(f(K::FloorDiv, 1.0, 0.0), kInf);
  EXPECT_TRUE(std::isnan(f(K::FloorDiv, 0.0, 0.0)));
  EXPECT_TRUE(std::isnan(f(K::Mod, 1.0, 0.0)));
  EXPECT_TRUE(std::signbit(f(K::Mod, 4.0, -2.0)));  // -0.0: the divisor's sign
  EXPECT_EQ(f(K::FloorDiv, -0.5, 2), -1.0);
  EXPECT_TRUE(std::signbit(f(K::FloorDiv, -0.0, 2.0)));
}

TEST(ScalarFunctions, IntegerDivisionByZeroThrows) {
  for (K kind : {K::FloorDiv, K::Mod}) {
    try {
      i(kind, 5, 0);
      FAIL() << scalar_op_name(kind);
    } catch (const ValueError& e) {
      EXPECT_THAT(e.what_part(), HasSubstr("integer division by zero"));
      EXPECT_THAT(e.what_part(), HasSubstr(std::string(scalar_op_name(kind))));
      EXPECT_FALSE(e.hint().empty());
    }
  }
}

TEST(ScalarFunctions, IntegerPowFollowsNumPy) {
  EXPECT_EQ(i(K::Pow, 3, 4), 81);
  EXPECT_EQ(i(K::Pow, -2, 3), -8);
  EXPECT_EQ(i(K::Pow, 0, 0), 1);
  EXPECT_EQ(i(K::Pow, 2, 64), 0);                    // wraps
  EXPECT_EQ(i(K::Pow, 3, 41), -420491770248316829);  // 3**41 mod 2**64, as int64
  try {
    i(K::Pow, 2, -1);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("integers to negative integer powers are not allowed"));
    EXPECT_THAT(e.hint(), HasSubstr("float"));
  }
  EXPECT_EQ(f(K::Pow, 2, -1), 0.5);
}

TEST(ScalarFunctions, IntegerArithmeticWraps) {
  const int64_t mx = std::numeric_limits<int64_t>::max(), mn = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(i(K::Add, mx, 1), mn);
  EXPECT_EQ(i(K::Sub, mn, 1), mx);
  EXPECT_EQ(i(K::Mul, mx, 2), -2);
  EXPECT_EQ(i(K::Neg, mn), mn);
  EXPECT_EQ(i(K::Abs, mn), mn);
  EXPECT_EQ(i(K::Abs, -5), 5);
  EXPECT_EQ(i(K::Square, -12), 144);
  EXPECT_EQ(i(K::Sign, -12), -1);
  EXPECT_EQ(i(K::Sign, 0), 0);
}

TEST(ScalarFunctions, RoundIsHalfToEven) {
  EXPECT_EQ(f(K::Round, 0.5), 0.0);
  EXPECT_EQ(f(K::Round, 1.5), 2.0);
  EXPECT_EQ(f(K::Round, 2.5), 2.0);
  EXPECT_EQ(f(K::Round, -2.5), -2.0);
  EXPECT_EQ(f(K::Round, -3.5), -4.0);
  EXPECT_EQ(f(K::Round, 2.4999), 2.0);
  EXPECT_EQ(i(K::Round, -7), -7);
  EXPECT_EQ(f(K::Trunc, -2.7), -2.0);
  EXPECT_EQ(f(K::Floor, -2.2), -3.0);
  EXPECT_EQ(f(K::Ceil, -2.7), -2.0);
}

TEST(ScalarFunctions, NaNPropagation) {
  EXPECT_TRUE(std::isnan(f(K::Maximum, kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(f(K::Maximum, 1.0, kNaN)));
  EXPECT_TRUE(std::isnan(f(K::Minimum, kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(f(K::Minimum, 1.0, kNaN)));
  EXPECT_EQ(f(K::Maximum, -1.0, 2.0), 2.0);
  EXPECT_EQ(f(K::Minimum, -1.0, 2.0), -1.0);
  EXPECT_TRUE(std::isnan(f(K::Sign, kNaN)));
  EXPECT_EQ(f(K::Sign, -0.0), 0.0);
  EXPECT_EQ(f(K::Sign, -3.0), -1.0);
  EXPECT_TRUE(std::isnan(f(K::Clip, kNaN, 0.0, 1.0)));
  EXPECT_EQ(f(K::IsNan, kNaN), 1.0);
  EXPECT_EQ(f(K::IsNan, kInf), 0.0);
  EXPECT_EQ(f(K::IsInf, -kInf), 1.0);
  EXPECT_EQ(f(K::Lt, kNaN, 1.0), 0.0);
  EXPECT_EQ(f(K::Neq, kNaN, kNaN), 1.0);
  EXPECT_EQ(f(K::Where, kNaN, 1.0, 2.0), 1.0);  // NaN is true
  EXPECT_EQ(f(K::LogicalNot, kNaN), 0.0);
}

TEST(ScalarFunctions, ClipIsNumPys) {
  EXPECT_EQ(f(K::Clip, -3.0, -1.0, 2.0), -1.0);
  EXPECT_EQ(f(K::Clip, 5.0, -1.0, 2.0), 2.0);
  EXPECT_EQ(f(K::Clip, 0.5, -1.0, 2.0), 0.5);
  EXPECT_EQ(f(K::Clip, 0.5, 3.0, 2.0), 2.0);  // lo > hi gives hi
  EXPECT_EQ(i(K::Clip, 9, 3, 2), 2);
  EXPECT_EQ(i(K::Clip, -9, -3, 2), -3);
}

TEST(ScalarFunctions, SigmoidAndSoftplusAreStableForLargeMagnitudes) {
  EXPECT_EQ(f(K::Sigmoid, 0.0), 0.5);
  EXPECT_EQ(f(K::Sigmoid, 800.0), 1.0);
  EXPECT_EQ(f(K::Sigmoid, -800.0), 0.0);
  EXPECT_DOUBLE_EQ(f(K::Sigmoid, -40.0), 4.248354255291589e-18);
  EXPECT_DOUBLE_EQ(f(K::Sigmoid, 2.0), 0.8807970779778823);
  EXPECT_EQ(f(K::Softplus, 800.0), 800.0);
  EXPECT_EQ(f(K::Softplus, -800.0), 0.0);
  EXPECT_DOUBLE_EQ(f(K::Softplus, 0.0), std::log(2.0));
  EXPECT_DOUBLE_EQ(f(K::Softplus, -40.0), 4.248354255291589e-18);
  EXPECT_DOUBLE_EQ(f(K::Softplus, 40.0), 40.0);
  EXPECT_TRUE(std::isnan(f(K::Softplus, kNaN)));
  EXPECT_TRUE(std::isnan(f(K::Sigmoid, kNaN)));
}

TEST(ScalarFunctions, MathValues) {
  EXPECT_DOUBLE_EQ(f(K::Exp, 1.0), 2.718281828459045);
  EXPECT_DOUBLE_EQ(f(K::Exp2, 10.0), 1024.0);
  EXPECT_DOUBLE_EQ(f(K::Expm1, 1e-10), 1.00000000005e-10);
  EXPECT_DOUBLE_EQ(f(K::Log1p, 1e-10), 9.999999999500001e-11);
  EXPECT_DOUBLE_EQ(f(K::Log2, 8.0), 3.0);
  EXPECT_DOUBLE_EQ(f(K::Log10, 1000.0), 3.0);
  EXPECT_DOUBLE_EQ(f(K::Rsqrt, 4.0), 0.5);
  EXPECT_DOUBLE_EQ(f(K::Arctan2, 1.0, -1.0), 2.356194490192345);
  EXPECT_DOUBLE_EQ(f(K::Erf, 0.5), 0.5204998778130465);
  EXPECT_DOUBLE_EQ(f(K::Erfc, 0.5), 0.4795001221869535);
  EXPECT_DOUBLE_EQ(f(K::TrueDiv, 1.0, 4.0), 0.25);
  EXPECT_TRUE(std::isnan(f(K::Log, -1.0)));
  EXPECT_EQ(f(K::Log, 0.0), -kInf);
}

TEST(ScalarFunctions, LogicTreatsNonzeroAsTrue) {
  EXPECT_EQ(i(K::LogicalAnd, 2, -3), 1);
  EXPECT_EQ(i(K::LogicalAnd, 2, 0), 0);
  EXPECT_EQ(i(K::LogicalOr, 0, 0), 0);
  EXPECT_EQ(i(K::LogicalXor, 5, 7), 0);
  EXPECT_EQ(i(K::LogicalXor, 5, 0), 1);
  EXPECT_EQ(f(K::LogicalAnd, 0.5, -0.25), 1.0);
  EXPECT_EQ(f(K::LogicalOr, -0.0, 0.0), 0.0);
}

}  // namespace
}  // namespace tgc
