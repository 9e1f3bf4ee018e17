// ReduceCount and SumToLike on each GPU API: the gradients of a mean and of a
// broadcast stay on the device (the only transfers are the function's own inputs and
// outputs), match the cpu, and a size-1 dim broadcast at run time still sums correctly;
// x.shape of a device value reads no element of it, and arange(y.shape[0]) runs there.
#include "backends/gpu/shape_op_thunks.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "gpu_test_device.h"

namespace tgc {
namespace {

using device_test::on;
using gpu_test::expect_matches_cpu;

Tensor uniform(const Shape& shape, uint64_t seed) {
  RandomState rng(seed);
  return rng.rand(shape).astype(DType::Float32);
}

int count_of(const Function& f, const std::string& op) {
  const std::vector<std::string> nodes = f.toposort();
  return static_cast<int>(
      std::count_if(nodes.begin(), nodes.end(), [&](const std::string& n) { return n.rfind(op + "(", 0) == 0; }));
}

TEST(GpuShapeOps, GradientsOfAMeanAndABroadcastStayOnTheDevice) {
  TGC_REQUIRE_GPU();
  Var x = matrix("x", DType::Float32), b = vector("b", DType::Float32);
  Var cost = mean(sqr(x + b));
  std::vector<Var> g = grad(cost, {x, b});
  const std::vector<Tensor> args{uniform({40, 7}, 1), uniform({7}, 2)};
  expect_matches_cpu({x, b}, {cost, g[0], g[1]}, args, 1e-5, 1e-6);

  Function f = function({x, b}, {cost, g[0], g[1]}, {}, on(gpu_test::api()));
  EXPECT_EQ(count_of(f, "DeviceToHost"), 3) << "one per output, none inside the gradient";
  // One per input; the gradient's seed is a 0-d constant folded into a kernel (it was a
  // (1,)-shaped one, copied by the linker); the mean's count and SumToLike move nothing.
  EXPECT_EQ(count_of(f, "HostToDevice"), 2) << "one per input";
}

TEST(GpuShapeOps, ShapeOfADeviceValueReadsNoElement) {
  TGC_REQUIRE_GPU();
  // x.shape of a value computed on the device: read from its metadata on the host, with no
  // transfer of the value, and no host node for assert_no_cpu_op to refuse.
  Var x = matrix("x", DType::Float32);
  Var e = exp(x);
  Var mean_by_hand = sum(e, {0}) / cast(shape_of(e)[0], DType::Float32);
  FunctionOptions options = on(gpu_test::api());
  options.config["assert_no_cpu_op"] = "raise";
  Function f = function({x}, {shape_of(e), mean_by_hand}, {}, options);
  EXPECT_EQ(count_of(f, "DeviceToHost"), 1) << "the mean's way back only";
  const Tensor a = uniform({6, 3}, 7);
  std::vector<Tensor> r = f({a});
  EXPECT_EQ(r[0].to_host().to_vector<int64_t>(), (std::vector<int64_t>{6, 3}));
  expect_matches_cpu({x}, {mean_by_hand}, {a}, 1e-5, 1e-6);
}

TEST(GpuShapeOps, TheanosNegativeLogLikelihoodRunsOnTheDevice) {
  TGC_REQUIRE_GPU();
  // arange(y.shape[0]) is an arange kernel sized from y's metadata: no host node.
  Var p = matrix("p", DType::Float32);
  Var y = vector("y", DType::Int64);
  Var nll = -mean(log(p)[{arange(shape_of(y)[0]), y}]);
  FunctionOptions options = on(gpu_test::api());
  options.config["assert_no_cpu_op"] = "raise";
  Function f = function({p, y}, {nll, grad(nll, p)}, {}, options);
  EXPECT_EQ(count_of(f, "ArangeLike"), 0) << "runs as the device's arange";
  const std::vector<Tensor> args{uniform({9, 4}, 8) + 0.1, Tensor::from_vector<int64_t>({0, 3, 1, 2, 2, 0, 3, 1, 0})};
  expect_matches_cpu({p, y}, {nll, grad(nll, p)}, args, 1e-5, 1e-6);
}

TEST(GpuShapeOps, SumToLikeSumsADimBroadcastAtRunTime) {
  TGC_REQUIRE_GPU();
  // b has an unknown first dim: at run time it is 1 and broadcasts over x's 40 rows, so its
  // gradient is a real sum (a device reduction), not the identity.
  Var x = matrix("x", DType::Float32), b = matrix("b", DType::Float32);
  std::vector<Var> g = grad(sum(x * b), std::vector<Var>{b});
  expect_matches_cpu({x, b}, {g[0]}, {uniform({40, 7}, 3), uniform({1, 7}, 4)}, 1e-5, 1e-5);
  expect_matches_cpu({x, b}, {g[0]}, {uniform({40, 7}, 5), uniform({40, 7}, 6)}, 1e-5, 1e-5);
}

// One compiled function, called with b broadcast along different axes in turn: each call's
// sum folds the axes of its own shapes (the kept plan and kernels follow the shapes).
TEST(GpuShapeOps, SumToLikeFollowsTheShapesOfEachCall) {
  TGC_REQUIRE_GPU();
  Var x = matrix("x", DType::Float32), b = matrix("b", DType::Float32);
  std::vector<Var> g = grad(sum(x * b), std::vector<Var>{b});
  Function dev = function({x, b}, {g[0]}, {}, on(gpu_test::api()));
  Function cpu = function({x, b}, {g[0]}, {}, on("cpu"));
  const std::vector<Shape> b_shapes = {{1, 7}, {40, 1}, {1, 7}, {40, 7}, {1, 1}, {40, 1}};
  uint64_t seed = 10;
  for (const Shape& bs : b_shapes) {
    const std::vector<Tensor> args{uniform({40, 7}, seed++), uniform(bs, seed++)};
    const Tensor got = dev(args)[0].to(host_device()), want = cpu(args)[0];
    ASSERT_EQ(got.shape(), bs);
    EXPECT_TRUE(tensors_allclose(got, want, 1e-5, 1e-5)) << device_test::diff_report(got, want);
  }
}

}  // namespace
}  // namespace tgc
