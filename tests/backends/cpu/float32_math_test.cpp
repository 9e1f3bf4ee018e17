// float32_math: float32 transcendental rows computed in float (float libmvec) stay within the
// documented ulps of the reference's double-computed results over a wide sweep of inputs, and
// float32_math=double gives the reference's bits.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/float32_math.h"
#include "cpu_test_util.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"

namespace tgc {
namespace {

using test::whole_group;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Special values: signed zeros, denormals, the float range's ends, infinities, NaNs, and
// values where functions change regime (exp's overflow and denormal thresholds, log's 1,
// asin's domain ends, large arguments of sin/cos/tan).
std::vector<float> special_values() {
  const float tiny = std::numeric_limits<float>::denorm_min(), small = std::numeric_limits<float>::min();
  const float big = std::numeric_limits<float>::max(), eps = std::numeric_limits<float>::epsilon();
  std::vector<float> v{0.0f, -0.0f, tiny, -tiny, 3 * tiny, 1e-40f, -1e-40f, small, -small, small / 2, big, -big,
                       kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                       1.0f, -1.0f, 1 + eps, 1 - eps / 2, -1 + eps / 2, -1 - eps, 0.5f, -0.5f, 2.0f, 10.0f, 88.72f,
                       88.73f, 89.0f, -87.33f, -103.9f, -104.0f, -150.0f, 1e-7f, -1e-7f, 3.1415927f, 1.5707964f,
                       1e4f, 1e10f, 1e30f, -1e30f, 709.0f, -745.0f, 1e-30f};
  return v;
}

// The sweep: the special values, then magnitudes 2^u for u uniform over the whole float range
// (denormals included) with random signs, then values uniform in [-10, 10].
std::vector<float> sweep(unsigned seed, size_t n) {
  std::vector<float> v = special_values();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> exponent(-149, 128), near(-10, 10);
  std::bernoulli_distribution negative(0.5);
  while (v.size() < n / 2) {
    const double m = std::exp2(exponent(gen));
    v.push_back(static_cast<float>(negative(gen) ? -m : m));
  }
  while (v.size() < n) v.push_back(static_cast<float>(near(gen)));
  return v;
}

// Float bits on a line where neighbours differ by 1 (both zeros at 0).
int64_t ordered(float f) {
  const int32_t i = std::bit_cast<int32_t>(f);
  return i >= 0 ? i : -static_cast<int64_t>(i & 0x7fffffff);
}

// Ulps between two floats; NaN matches NaN only.
int64_t ulps(float got, float want) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want) ? 0 : std::numeric_limits<int64_t>::max();
  return std::abs(ordered(got) - ordered(want));
}

struct Worst {
  int64_t ulps = 0;
  std::vector<float> args;
  float got = 0, want = 0;
};

// Runs `kind` on float32 operands through a compiled kernel (float32_math on or off) and
// through the reference Elemwise, and returns the largest ulp difference.
Worst compare(ScalarOpKind kind, const std::vector<std::vector<float>>& operands, bool float32_math) {
  std::vector<Var> inputs;
  std::vector<VarPtr> ptrs;
  std::vector<Tensor> values;
  for (size_t i = 0; i < operands.size(); ++i) {
    inputs.push_back(vector("x" + std::to_string(i), DType::Float32));
    ptrs.push_back(inputs.back().ptr());
    values.push_back(Tensor::from_vector(operands[i]));
  }
  const auto op = std::make_shared<Elemwise>(kind);
  Var out(apply1(op, ptrs));
  test::WholeGroup w = whole_group(inputs, {out});
  LoweredGroup lowered = lower_group(w.group);
  const Tensor got = test::run_llvm(lowered.kernel, test::kernel_args(w, lowered, values), float32_math).at(0);
  const Tensor want = test::run_op(*op, values);
  const std::vector<float> g = got.to_vector<float>(), r = want.to_vector<float>();
  Worst worst;
  for (size_t i = 0; i < g.size(); ++i) {
    const int64_t d = ulps(g[i], r[i]);
    if (d > worst.ulps) {
      worst = {d, {}, g[i], r[i]};
      for (const auto& o : operands) worst.args.push_back(o[i]);
    }
  }
  return worst;
}

std::vector<std::vector<float>> operands_of(ScalarOpKind kind) {
  const size_t n = 1 << 17;
  std::vector<std::vector<float>> ops{sweep(1, n)};
  if (kind == ScalarOpKind::Pow || kind == ScalarOpKind::Arctan2) {
    std::vector<float> second = sweep(2, n);
    if (kind == ScalarOpKind::Pow) {
      // Exponents of moderate size (most huge ones just overflow), integers among them.
      std::mt19937 gen(3);
      std::uniform_real_distribution<double> e(-40, 40);
      for (size_t i = special_values().size(); i < n; ++i)
        second[i] = static_cast<float>(i % 4 == 0 ? std::round(e(gen)) : e(gen));
    }
    ops.push_back(second);
  }
  return ops;
}

std::vector<ScalarOpKind> float32_rows() {
  std::vector<ScalarOpKind> rows;
  for (const ScalarOpInfo& row : scalar_op_table())
    if (cpu::float32_libm_name(row.kind)) rows.push_back(row.kind);
  return rows;
}

std::string describe(const Worst& w) {
  std::string s = "worst at (";
  for (float a : w.args) s += std::to_string(a) + " ";
  return s + "): got " + std::to_string(w.got) + " want " + std::to_string(w.want);
}

class Float32Math : public ::testing::TestWithParam<ScalarOpKind> {};

TEST_P(Float32Math, WithinTheDocumentedUlpsOfTheReference) {
  const ScalarOpKind kind = GetParam();
  const Worst w = compare(kind, operands_of(kind), /*float32_math=*/true);
  RecordProperty("max_ulps", static_cast<int>(w.ulps));
  std::printf("%-8s max %lld ulps from the reference (promised %d) %s\n", std::string(scalar_op_name(kind)).c_str(),
              static_cast<long long>(w.ulps), cpu::float32_math_reference_ulps(kind), describe(w).c_str());
  EXPECT_LE(w.ulps, cpu::float32_math_reference_ulps(kind)) << describe(w);
}

TEST_P(Float32Math, DoubleModeGivesTheReferencesBits) {
  const ScalarOpKind kind = GetParam();
  const Worst w = compare(kind, operands_of(kind), /*float32_math=*/false);
  EXPECT_EQ(w.ulps, 0) << describe(w);
}

INSTANTIATE_TEST_SUITE_P(Rows, Float32Math, ::testing::ValuesIn(float32_rows()),
                         [](const auto& info) { return std::string(scalar_op_name(info.param)); });

TEST(Float32MathIr, FloatModeCallsTheFloatVectorFunctions) {
  Var x = vector("x", DType::Float32);
  Var y = exp(x);
  test::WholeGroup w = whole_group({x}, {y});
  const Kernel& kernel = lower_group(w.group).kernel;
  Config doubles;
  doubles.float32_math = "double";
  const std::string in_float = emit_llvm_ir(kernel), in_double = emit_llvm_ir(kernel, doubles);
  EXPECT_NE(in_float.find("v_expf"), std::string::npos) << in_float;
  EXPECT_EQ(in_float.find("fpext"), std::string::npos) << in_float;
  EXPECT_EQ(in_double.find("expf"), std::string::npos) << in_double;
  EXPECT_NE(in_double.find("v_exp("), std::string::npos) << in_double;
}

}  // namespace
}  // namespace tgc
