// Lazy ifelse on every backend: values (both branches, several outputs, nested, branches of
// different shapes, gradients) against the reference evaluation, and the laziness itself by
// the profile's node call counts (the untaken branch's nodes run 0 times), on the device too.
#include <gmock/gmock.h>

#include "backends/backend_registry.h"
#include "conformance/conformance.h"
#include "runtime/profiler.h"

namespace tgc::conformance {
namespace {

Tensor int_scalar(int64_t v) { return Tensor::from_vector(std::vector<int64_t>{v}).reshape({}); }

std::vector<Case> ifelse_cases() {
  RandomState rng(23);
  std::vector<Case> out;
  // float32 only: each kernel costs PoCL about a second to build (the suite's OpenCL time).
  for (DType f : {DType::Float32}) {
    const std::string tag = " float32";
    Var c = scalar("c", DType::Int64);
    Var x = matrix("x", f), v = vector("v", f);
    std::vector<Var> ys = ifelse(c, {exp(x) * 2.0, (v * v).sum()}, {dot(x, x.T()), v.max()});
    // Nested, with the inner condition computed inside the outer then branch.
    Var nested = ifelse(c, ifelse(v.sum() > 0.0, tanh(v), v * 3.0), concatenate({v, v}));
    // Through gradients: the taken branch's gradient, zeros for the other.
    Var g = grad(ifelse(c, sqr(v).sum(), (v * 4.0).sum()), v);
    const std::vector<Tensor> args_a{int_scalar(1), random_values(rng, f, {3, 3}), random_values(rng, f, {3})};
    const std::vector<Tensor> args_b{int_scalar(0), random_values(rng, f, {3, 3}), random_values(rng, f, {3})};
    const std::vector<Tensor> args_c{int_scalar(-2), random_values(rng, f, {2, 2}), random_values(rng, f, {4}, 0, 1)};
    out.push_back({.name = "ifelse several outputs, nested, gradient" + tag,
                   .inputs = {c, x, v},
                   .outputs = {ys[0].as("then exp / else dot"), ys[1].as("then sum / else max"),
                               nested.as("nested"), g.as("d / d v")},
                   .arg_sets = {args_a, args_b, args_c},
                   .tolerance = kFloat32Math});
  }
  return out;
}

[[maybe_unused]] const bool kRegistered = register_family("ifelse", &ifelse_cases);

TEST_P(Conformance, IfElseValues) { expect_all_conform(&ifelse_cases); }

TEST_P(Conformance, IfElseRunsOnlyTheTakenBranch) {
  Var c = scalar("c", DType::Int64);
  Var x = vector("x", DType::Float32);
  Var y = ifelse(c, exp(x).sum(), dot(x, x));
  FunctionOptions options{.name = "lazy", .config = {{"profile", "true"}}};
  if (backend() == "cuda" || backend() == "opencl") options.config["assert_no_cpu_op"] = "raise";
  ForcedBackendForTests force(backend());
  Function f = function({c, x}, {y}, {}, options);
  const Tensor xv = Tensor::from_vector<float>({1, 2});
  EXPECT_NEAR(f(int_scalar(0), xv)[0].to_host().item<float>(), 5.0f, 1e-5);
  EXPECT_NEAR(f(int_scalar(0), xv)[0].to_host().item<float>(), 5.0f, 1e-5);
  EXPECT_NEAR(f(int_scalar(1), xv)[0].to_host().item<float>(), std::exp(1.0f) + std::exp(2.0f), 1e-4);
  const std::vector<std::string> order = f.toposort();
  int products = 0, sums = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i].rfind("IfElse", 0) == 0 || order[i].find("Dot") == std::string::npos) continue;
    EXPECT_EQ(f.profiler()->thunk_calls(static_cast<int>(i)), 2) << order[i];
    ++products;
  }
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i].rfind("IfElse", 0) == 0 || order[i].find("exp") == std::string::npos) continue;
    EXPECT_EQ(f.profiler()->thunk_calls(static_cast<int>(i)), 1) << order[i];
    ++sums;
  }
  EXPECT_GE(products, 1) << ::testing::PrintToString(order);
  EXPECT_GE(sums, 1) << ::testing::PrintToString(order);
  if (backend() == "cuda") {
    // Without profile=true (which turns recording off on its own) calls may be recorded, with
    // conditional graph nodes; every call still takes its own branch.
    options.config.erase("profile");
    Function unprofiled = function({c, x}, {y}, {}, options);
    for (int k = 0; k < 5; ++k)
      EXPECT_NEAR(unprofiled(int_scalar(k % 2), xv)[0].to_host().item<float>(),
                  k % 2 ? std::exp(1.0f) + std::exp(2.0f) : 5.0f, 1e-4)
          << "call " << k;
  }
}

}  // namespace
}  // namespace tgc::conformance
