// An asynchronous kernel fault on a real GPU (label gpu) surfaces at the next synchronisation
// as a DeviceError naming the node that launched the faulting work. Its own executable: a
// kernel fault leaves the process's CUDA context unusable, so no other test may share it.
#include "backends/cuda/cuda_device.h"

#include <gtest/gtest.h>

#include "cuda_test_util.h"

namespace tgc {
namespace {

CudaKernel faulty_op() {
  CudaKernelSpec spec;
  spec.name = "Faulty";
  // Writes far outside any allocation: an illegal-address fault, reported asynchronously.
  spec.source = R"(extern "C" __global__ void faulty(const float* x, float* z) {
    if (threadIdx.x == 0) ((volatile float*)0x10)[0] = x[0];
    z[threadIdx.x] = x[threadIdx.x];
  })";
  spec.entry = "faulty";
  spec.output_types = [](const std::vector<Type>& in) { return std::vector<Type>{in.at(0)}; };
  spec.output_shapes = [](const std::vector<Shape>& in) { return std::vector<Shape>{in.at(0)}; };
  spec.launch = [](const std::vector<Tensor>&, const std::vector<Tensor>&) {
    CudaLaunchConfig c;
    c.block = {1, 1, 1};
    c.args = {CudaKernelArg::input(0), CudaKernelArg::output(0)};
    return c;
  };
  return CudaKernel(std::move(spec));
}

TEST(CudaAsyncError, NamesTheNodeThatLaunchedTheFaultingWork) {
  TGC_REQUIRE_CUDA();
  Var x = vector("x", DType::Float32);
  Var y = faulty_op()({x})[0].as("boom");
  Function f = function({x}, {y}, {}, cuda_test::on("cuda"));
  try {
    f(Tensor::from_vector<float>({1}));
    FAIL() << "the faulting kernel raised nothing";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'boom = Faulty("), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorIllegalAddress"), std::string::npos) << what;
    EXPECT_NE(what.find("sync=true"), std::string::npos) << what;
  }
}

// The same fault from an eager operation (docs/eager.md): the call returns at once (the work
// is only enqueued), and the error surfaces at the next wait, the read, naming the operation.
TEST(CudaAsyncError, AnEagerOperationsFaultSurfacesAtTheRead) {
  TGC_REQUIRE_CUDA();
  const Tensor x = to_device(Tensor::from_vector<float>({1, 2}), gpu_device());
  const Tensor y = eager([](const std::vector<Var>& v) { return faulty_op()({v[0]})[0]; }, {x});
  EXPECT_EQ(&y.device(), &gpu_device());
  try {
    (void)y.to_host();
    FAIL() << "the faulting kernel raised nothing";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Faulty("), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorIllegalAddress"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tgc
