// Random draws on every backend: the same numbers as the reference for the same state, and the
// same advanced state. The state is an input here (not a RandomStreams' shared variable), so
// the backend's and the reference's functions draw from the same [key, counter] on every
// call. Sizes cover a block's tail (9, 5 elements) and an empty draw; few kernels (OpenCL).
#include "conformance/conformance.h"
#include "ops/core/apply.h"
#include "ops/random/random_draw.h"
#include "ops/random/random_permutation.h"

namespace tgc::conformance {
namespace {

Tensor state(int64_t key, int64_t counter) { return Tensor::from_vector(std::vector<int64_t>{key, counter}, {2}); }

// Uniform draws are exact conversions of Philox words: equal everywhere. Normals pass through
// each device's log, sqrt, cos and sin in double: a float64 normal may differ in its last
// places, a float32 one by an ulp where the double result lay on a rounding boundary.
constexpr Tolerance kNormal{1.2e-7, 1e-7, 1e-13, 1e-13};

std::vector<Case> random_draw_cases() {
  Var s = tensor("state", DType::Int64, {2});
  auto draw = [&](Distribution d, DType t, Shape size, int64_t low = 0, int64_t high = 0) {
    return apply(std::make_shared<RandomDraw>(d, t, std::move(size), low, high), {s.ptr()});
  };
  std::vector<Var> outs;
  std::vector<Tolerance> tols;
  auto add = [&](std::vector<VarPtr> o, Tolerance t) {
    outs.emplace_back(o[0]);
    tols.push_back(t);
    outs.emplace_back(o[1]);
    tols.push_back(kExact);
  };
  add(draw(Distribution::Uniform, DType::Float32, {3, 3}), kExact);
  add(draw(Distribution::Uniform, DType::Float64, {5}), kExact);
  add(draw(Distribution::Normal, DType::Float32, {9}), kNormal);
  add(draw(Distribution::Normal, DType::Float64, {2, 3}), kNormal);
  add(draw(Distribution::Integers, DType::Int64, {5}, -1000000000000LL, 1000000000000LL), kExact);
  add(draw(Distribution::Integers, DType::UInt8, {7}, 0, 256), kExact);
  add(draw(Distribution::Uniform, DType::Float32, {0}), kExact);
  // The counter's carry into its high word, and a key with both halves set.
  return {{.name = "random draws",
           .inputs = {s},
           .outputs = outs,
           .arg_sets = {{state(42, 0)}, {state(-7046029254386353131LL, 0xFFFFFFFFLL)}, {state(1, -2)}},
           .tolerances = tols}};
}

std::vector<Case> random_permutation_cases() {
  Var s = tensor("state", DType::Int64, {2});
  std::vector<VarPtr> p = apply(std::make_shared<RandomPermutation>(33), {s.ptr()});
  std::vector<VarPtr> q = apply(std::make_shared<RandomPermutation>(1), {s.ptr()});
  return {{.name = "random permutation",
           .inputs = {s},
           .outputs = {Var(p[0]), Var(p[1]), Var(q[0]), Var(q[1])},
           .arg_sets = {{state(3, 0)}, {state(-1, 0xFFFFFFF0LL)}}}};
}

[[maybe_unused]] const bool kRegistered = register_family("random draws", &random_draw_cases) &&
                                          register_family("random permutation", &random_permutation_cases);

TEST_P(Conformance, RandomDraws) { expect_all_conform(&random_draw_cases); }
TEST_P(Conformance, RandomPermutation) { expect_all_conform(&random_permutation_cases); }

}  // namespace
}  // namespace tgc::conformance
