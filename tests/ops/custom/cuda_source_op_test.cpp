// CudaSourceOp off the GPU: its type rules apply when graphs are built, a spec missing parts
// is refused, and running it on device=cpu is an error saying it needs device=cuda.
#include "ops/custom/cuda_source_op.h"

#include <gtest/gtest.h>

#include <tgc/tgc.h>

namespace tgc {
namespace {

CudaKernelSpec identity_spec() {
  CudaKernelSpec spec;
  spec.name = "MyCopy";
  spec.source = R"(extern "C" __global__ void my_copy(const float* x, float* z) { z[0] = x[0]; })";
  spec.entry = "my_copy";
  spec.output_types = [](const std::vector<Type>& in) {
    if (in.at(0).dtype != DType::Float32) throw TypeError("MyCopy takes float32", "", "cast it");
    return std::vector<Type>{in[0]};
  };
  spec.output_shapes = [](const std::vector<Shape>& in) { return std::vector<Shape>{in.at(0)}; };
  spec.launch = [](const std::vector<Tensor>&, const std::vector<Tensor>&) { return CudaLaunchConfig{}; };
  return spec;
}

TEST(CudaSourceOp, OutputTypesComeFromTheSpec) {
  CudaKernel k(identity_spec());
  Var x = matrix("x", DType::Float32);
  std::vector<Var> y = k({x});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].type(), x.type());
  EXPECT_THROW(k({matrix("i", DType::Int32)}), TypeError);
}

TEST(CudaSourceOp, IncompleteSpecsAreRefused) {
  CudaKernelSpec no_entry = identity_spec();
  no_entry.entry.clear();
  EXPECT_THROW(CudaKernel{no_entry}, ValueError);
  CudaKernelSpec no_launch = identity_spec();
  no_launch.launch = nullptr;
  EXPECT_THROW(CudaKernel{no_launch}, ValueError);
}

TEST(CudaSourceOp, OnTheCpuItSaysItNeedsDeviceCuda) {
  CudaKernel k(identity_spec());
  Var x = vector("x", DType::Float32);
  FunctionOptions o;
  o.config["device"] = "cpu";
  Function f = function({x}, {k({x})[0]}, {}, o);
  try {
    f(Tensor::from_vector<float>({1, 2}));
    FAIL() << "a CUDA-source op ran on the cpu";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("MyCopy"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("device=cuda"), std::string::npos) << e.what();
  }
}

TEST(CudaSourceOp, OnlyOpsOfOneSpecAreEqual) {
  auto spec = std::make_shared<const CudaKernelSpec>(identity_spec());
  CudaSourceOp a(spec), b(spec), c(std::make_shared<const CudaKernelSpec>(identity_spec()));
  EXPECT_TRUE(a.equals(b));
  EXPECT_FALSE(a.equals(c));
  EXPECT_EQ(a.hash(), c.hash());
}

}  // namespace
}  // namespace tgc
