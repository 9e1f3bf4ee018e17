// CLBlast through the GPU layer's BLAS thunk on an OpenCL device (PoCL in CI, label opencl; built
// only with CLBlast): gemm with transposed operands as flags, gemv both ways, dot, outer, batched
// dot and a scaled gemm, all against the cpu. Lean: CLBlast's first kernels build slowly on PoCL.
#include "backends/opencl/clblast_library.h"

#include <gtest/gtest.h>

#include "ops/core/graph.h"
#include "opencl_test_util.h"

namespace tgc {
namespace {

// Each comparison names its graph when it fails.
#define EXPECT_MATCHES_CPU(...)                         \
  do {                                                  \
    SCOPED_TRACE(#__VA_ARGS__);                         \
    opencl_test::expect_opencl_matches_cpu(__VA_ARGS__); \
  } while (0)

Tensor uniform(const Shape& shape, uint64_t seed) {
  RandomState rng(seed);
  std::vector<double> v = rng.rand(shape).to_vector<double>();
  for (double& x : v) x = 2 * x - 1;
  return Tensor::from_vector(v, shape).astype(DType::Float32);
}

TEST(OpenCLBlas, ProductsOfEveryFormWithTransposesAsFlags) {
  TGC_REQUIRE_OPENCL();
  Var a = matrix("a"), b = matrix("b"), v = vector("v"), w = vector("w");
  const Tensor A = uniform({23, 17}, 1), B = uniform({17, 9}, 2), At = uniform({17, 23}, 3);
  const Tensor V = uniform({17}, 4), W = uniform({17}, 5), U = uniform({23}, 6);
  EXPECT_MATCHES_CPU({a, b}, {dot(a, b)}, {A, B}, 1e-5, 1e-5);
  EXPECT_MATCHES_CPU({a, b}, {dot(a.T(), b)}, {At, B}, 1e-5, 1e-5);
  EXPECT_MATCHES_CPU({a, v}, {dot(a, v)}, {A, V}, 1e-5, 1e-5);
  EXPECT_MATCHES_CPU({a, v}, {dot(a.T(), v)}, {At, V}, 1e-5, 1e-5);
  EXPECT_MATCHES_CPU({v, w}, {dot(v, w)}, {V, W}, 1e-5, 1e-5);
  EXPECT_MATCHES_CPU({v, w}, {outer(v, w)}, {U, V}, 0, 0);
  Var x = tensor3("x"), y = tensor3("y");
  EXPECT_MATCHES_CPU({x, y}, {batched_dot(x, y)}, {uniform({3, 5, 4}, 7), uniform({3, 4, 6}, 8)}, 1e-5, 1e-5);
  // A scaled product with an addend: one gemm with alpha and beta after specialisation.
  Var c = matrix("c");
  EXPECT_MATCHES_CPU({a, b, c}, {0.5 * dot(a, b) + 2.0 * c}, {A, B, uniform({23, 9}, 9)}, 1e-5, 1e-5);
}

// Half products: CLBlast multiplies float32 copies made on the device (the half_products
// pass), rounded once to the half type, as the CPU's products do: no product on the host.
TEST(OpenCLBlas, HalfProductsMultiplyFloat32CopiesOnTheDevice) {
  TGC_REQUIRE_OPENCL();
  for (DType half : {DType::Float16, DType::BFloat16}) {
    SCOPED_TRACE(std::string(dtype_name(half)));
    Var a = matrix("a", half), b = matrix("b", half);
    FunctionOptions o{.config = {{"device", "opencl"}, {"assert_no_cpu_op", "raise"}}};
    Function f = function({a, b}, {dot(a, b)}, {}, o);
    bool float32_product = false;
    for (Node* n : f.graph().toposort())
      if (n->op().op_class() == "Dot" || n->op().op_class() == "Gemm")
        float32_product = n->inputs()[0]->type().dtype == DType::Float32;
    EXPECT_TRUE(float32_product) << f.graph().str();
    const Tensor A = uniform({23, 17}, 1).astype(half), B = uniform({17, 9}, 2).astype(half);
    Tensor got = f({A, B})[0];
    ASSERT_EQ(got.dtype(), half);
    Tensor want = function({a, b}, {dot(a, b)})({A, B})[0];  // the CPU's float32 product, rounded
    EXPECT_TRUE(tensors_allclose(got.astype(DType::Float32), want.astype(DType::Float32), 0, 0x1p-7))
        << got.str() << "\n" << want.str();
  }
}

}  // namespace
}  // namespace tgc
