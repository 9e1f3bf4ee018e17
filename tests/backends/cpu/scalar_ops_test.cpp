// Every row of the scalar-op table rendered to LLVM IR, for every dtype, against the
// reference Elemwise evaluation: bit for bit except for the rows that call libm, where
// libmvec's vector variants may differ by a few double ulps, and float32 rows computed in float
// (float32_math=float32, the default) by the ulps of float32_math.h.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "backends/cpu/float32_math.h"
#include "cpu_test_util.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "runtime/error.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

using test::expect_llvm_matches_graph;
using test::random_tensor;

constexpr int64_t kN = 37;  // not a multiple of any vector width: the loop tails run too

bool calls_libm(ScalarOpKind k) {
  using K = ScalarOpKind;
  switch (k) {
    case K::Pow: case K::Exp: case K::Exp2: case K::Expm1: case K::Log: case K::Log2: case K::Log10:
    case K::Log1p: case K::Sin: case K::Cos: case K::Tan: case K::Tanh: case K::Sinh: case K::Cosh:
    case K::Arcsin: case K::Arccos: case K::Arctan: case K::Arctan2: case K::Erf: case K::Erfc:
    case K::Sigmoid: case K::Softplus:
      return true;
    default: return false;
  }
}

// Floats include the values where semantics differ: NaN, infinities, signed zeros, halves
// (round to even), values beyond every integer range (saturating casts).
Tensor float_values(DType t, unsigned seed) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v{std::nan(""), inf, -inf, 0.0, -0.0, 0.5, 1.5, 2.5, -2.5, -0.5, 1e30, -1e30, 300, -300, 7, -7};
  Tensor r = random_tensor({kN}, DType::Float64, seed);
  auto rv = r.to_vector<double>();
  for (size_t i = v.size(); i < static_cast<size_t>(kN); ++i) v.push_back(rv[i]);
  return Tensor::from_vector(v).astype(t);
}

Tensor values_of(DType t, unsigned seed) { return is_float(t) ? float_values(t, seed) : random_tensor({kN}, t, seed); }

// Integer divisors without 0 (integer division by zero raises; tested separately).
Tensor nonzero(const Tensor& t) {
  if (is_float(t.dtype())) return t;
  auto v = t.to_vector<int64_t>();
  for (auto& x : v) x = x == 0 ? 1 : x;
  return Tensor::from_vector(v).astype(t.dtype());
}

// Integer exponents in [0, 4] (negative ones raise).
Tensor exponents(DType t, unsigned seed) {
  if (is_float(t)) return values_of(t, seed);
  auto v = random_tensor({kN}, DType::Int64, seed).to_vector<int64_t>();
  for (auto& x : v) x = std::abs(x) % 5;
  return Tensor::from_vector(v).astype(t);
}

class ScalarOps : public ::testing::TestWithParam<DType> {};

TEST_P(ScalarOps, EveryRowMatchesTheReference) {
  const DType t = GetParam();
  Var a = vector("a", t), b = vector("b", t), e = vector("e", t);
  std::vector<Var> outputs;
  std::vector<double> rtols;
  std::vector<std::string> names;
  for (const ScalarOpInfo& row : scalar_op_table()) {
    if (row.kind == ScalarOpKind::Cast) continue;  // CastsBetweenAllDtypes
    std::vector<VarPtr> args{a.ptr(), b.ptr(), e.ptr()};
    if (row.kind == ScalarOpKind::Pow) args = {a.ptr(), e.ptr()};
    if (row.kind == ScalarOpKind::Where) args = {b.ptr(), a.ptr(), e.ptr()};
    args.resize(static_cast<size_t>(row.arity));
    try {
      outputs.emplace_back(apply1(std::make_shared<Elemwise>(row.kind), args));
    } catch (const TypeError&) {
      continue;  // bool '-', unary '-' and sign are rejected, as in NumPy
    }
    const DType out = outputs.back().ptr()->type().dtype;
    // A float32 row computes in float when its operands are float32 too (dtype t).
    const double rtol32 = t == DType::Float32 && cpu::float32_libm_name(row.kind) ? cpu::float32_math_rtol(row.kind) : 1.2e-7;
    rtols.push_back(calls_libm(row.kind) ? (out == DType::Float32 ? rtol32 : 1e-14) : 0.0);
    names.emplace_back(row.name);
  }
  expect_llvm_matches_graph({a, b, e}, outputs, {values_of(t, 1), nonzero(values_of(t, 2)), exponents(t, 3)}, 0,
                            rtols, names);
}

TEST_P(ScalarOps, CastsBetweenAllDtypes) {
  const DType from = GetParam();
  Var a = vector("a", from);
  std::vector<Var> outputs;
  std::vector<std::string> names;
  for (DType to : kAllDTypes) {
    outputs.emplace_back(apply1(std::make_shared<Elemwise>(ScalarOpKind::Cast, to), {a.ptr()}));
    names.emplace_back(dtype_name(to));
  }
  std::vector<Tensor> values{values_of(from, 4)};
  if (from == DType::Int64) {  // extremes that wrap or round when narrowed
    values[0] = Tensor::from_vector(std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                                                         std::numeric_limits<int64_t>::min(), 255, 256, -129, 1 << 24,
                                                         (1 << 24) + 1, 0, -1});
  }
  expect_llvm_matches_graph({a}, outputs, values, 0, {}, names);
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, ScalarOps, ::testing::ValuesIn(kAllDTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(ScalarOpsErrors, IntegerDivisionByZeroRaisesTheReferenceError) {
  Var a = vector("a", DType::Int32), b = vector("b", DType::Int32);
  for (Var out : {floor_div(a, b), a % b}) {
    test::WholeGroup w = test::whole_group({a, b}, {out});
    LoweredGroup lowered = lower_group(w.group);
    std::vector<Tensor> args{Tensor::from_vector(std::vector<int32_t>{1, 2, 3}),
                             Tensor::from_vector(std::vector<int32_t>{1, 0, 3})};
    ValueError e = test::catch_error<ValueError>([&] { test::run_llvm(lowered.kernel, args); });
    EXPECT_NE(std::string(e.what()).find("integer division by zero"), std::string::npos) << e.what();
  }
}

TEST(ScalarOpsErrors, NegativeIntegerPowerRaises) {
  Var a = vector("a", DType::Int64), b = vector("b", DType::Int64);
  test::WholeGroup w = test::whole_group({a, b}, {pow(a, b)});
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> args{Tensor::from_vector(std::vector<int64_t>{2, 2}), Tensor::from_vector(std::vector<int64_t>{3, -1})};
  ValueError e = test::catch_error<ValueError>([&] { test::run_llvm(lowered.kernel, args); });
  EXPECT_NE(std::string(e.what()).find("negative integer powers"), std::string::npos) << e.what();
}

TEST(ScalarOpsErrors, FloatDivisionByZeroGivesInfAndNan) {
  Var a = vector("a"), b = vector("b");
  expect_llvm_matches_graph({a, b}, {a / b, floor_div(a, b), a % b},
                            {Tensor::from_vector(std::vector<float>{1, -1, 0, 2.5f}),
                             Tensor::from_vector(std::vector<float>{0, 0, 0, -0.0f})});
}

}  // namespace
}  // namespace tgc
