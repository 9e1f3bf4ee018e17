// Fused kernels on an OpenCL device (PoCL in CI, label opencl) against the same graphs on the
// cpu: elementwise over contiguous, strided and broadcast operands, reductions through local
// memory and the two-pass scheme, and program binaries reused from the kernel cache. Lean on
// purpose: the conformance suite runs every op on "opencl". (Errors flagged by kernels:
// tests/backends/gpu/composite_thunk_test.cpp, on every API.)
#include "backends/gpu/composite_thunk.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "opencl_test_util.h"
#include "runtime/kernel_cache.h"

namespace tgc {
namespace {

using opencl_test::expect_opencl_matches_cpu;

Tensor uniform(const Shape& shape, DType dtype, uint64_t seed, double lo = -2, double hi = 2) {
  RandomState rng(seed);
  std::vector<double> v = rng.rand(shape).to_vector<double>();
  for (double& x : v) x = lo + (hi - lo) * x;
  return Tensor::from_vector(v, shape).astype(dtype);
}

TEST(OpenCLComposite, ElementwiseContiguousStridedAndBroadcast) {
  TGC_REQUIRE_OPENCL();
  Var a = vector("a"), b = vector("b");
  // 10007: not a multiple of any vector width, so the vector path's tail runs too.
  expect_opencl_matches_cpu({a, b}, {a * exp(-b) + tanh(a) - 0.5 * b},
                            {uniform({10007}, DType::Float32, 1), uniform({10007}, DType::Float32, 2)}, 2e-6);
  Var x = matrix("x"), row = vector("row"), col = vector("col");
  // x.T is a strided view on the device; row and col broadcast along different axes.
  expect_opencl_matches_cpu({x, row, col}, {exp(x.T()) * row + col.dimshuffle({0, -1}) * 2.0},
                            {uniform({31, 17}, DType::Float32, 4), uniform({31}, DType::Float32, 5),
                             uniform({17}, DType::Float32, 6)},
                            2e-6);
}

TEST(OpenCLComposite, ReductionsPerBlockAndInTwoPasses) {
  TGC_REQUIRE_OPENCL();
  Var x = matrix("x");
  Tensor arg = uniform({67, 301}, DType::Float32, 9, 0.5, 1.5);
  expect_opencl_matches_cpu({x}, {sum(x, {1}), max(x, {0}), mean(exp(x))}, {arg}, 2e-5, 1e-5);
  // One long reduction: the deterministic two-pass scheme (partials in scratch).
  Var v = vector("v");
  expect_opencl_matches_cpu({v}, {sum(abs(v))}, {uniform({200003}, DType::Float32, 10)}, 1e-4, 1e-3);
}

TEST(OpenCLComposite, ProgramBinariesComeBackFromTheKernelCache) {
  TGC_REQUIRE_OPENCL();
  const std::string dir = (std::filesystem::temp_directory_path() / "tgc-opencl-cache-test").string();
  std::filesystem::remove_all(dir);
  Var a = vector("a");
  Var out = sqrt(abs(a)) * 3.0 + 1.0;
  Tensor arg = uniform({1000}, DType::Float32, 11);
  Tensor first = function({a}, {out}, {}, opencl_test::on("opencl", {{"cache_dir", dir}}))({arg})[0];
  const KernelCacheInfo info = kernel_cache_for(dir).info();
  EXPECT_GE(info.backends.count("opencl") ? info.backends.at("opencl") : 0, 1u) << "no opencl entry on disk";
  // Same graph again: the binary from the cache gives the same values.
  Tensor second = function({a}, {out}, {}, opencl_test::on("opencl", {{"cache_dir", dir}}))({arg})[0];
  EXPECT_TRUE(tensors_equal(first, second));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tgc
