// The CUDA probe and the errors of a machine without a usable GPU (no `gpu` label: these run
// in CI, where there is no driver). The same binary must still run CPU work.
#include "backends/cuda/cuda_status.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_error.h"

namespace tgc {
namespace {

bool driver_present() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

TEST(CudaStatus, ExplainsAMissingDriver) {
  if (driver_present()) GTEST_SKIP() << "an NVIDIA driver is installed here; this checks the machine without one";
  const cuda::CudaStatus& st = cuda::cuda_status();
  EXPECT_FALSE(st.available);
  EXPECT_TRUE(st.devices.empty());
  EXPECT_NE(st.reason.find("no NVIDIA driver found (libcuda.so.1 could not be loaded"), std::string::npos) << st.reason;
  EXPECT_GE(st.runtime_version, 12000) << "the runtime tgc was built with";
}

TEST(CudaStatus, ReasonIsGivenWhenUnavailable) {
  const cuda::CudaStatus& st = cuda::cuda_status();
  if (st.available) {
    EXPECT_TRUE(st.reason.empty()) << st.reason;
    ASSERT_FALSE(st.devices.empty());
    EXPECT_GT(st.devices[0].arch(), 0);
    EXPECT_GT(st.devices[0].total_memory, 0u);
  } else {
    EXPECT_FALSE(st.reason.empty());
  }
}

TEST(CudaBackend, MakingItWithoutADeviceIsAConfigErrorSayingWhy) {
  const cuda::CudaStatus& st = cuda::cuda_status();
  if (st.available) GTEST_SKIP() << "a CUDA device is present";
  try {
    make_cuda_backend(Config{}, 0);
    FAIL() << "make_cuda_backend succeeded without a usable CUDA device";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(st.reason), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("device=cpu"), std::string::npos) << e.what();
  }
}

TEST(CudaBackend, DevicesDescriptionSaysWhyCudaIsUnavailable) {
  const cuda::CudaStatus& st = cuda::cuda_status();
  const std::string d = cuda_devices_description();
  if (st.available) {
    EXPECT_EQ(d.rfind("cuda:0   available  (", 0), 0u) << d;
  } else {
    EXPECT_EQ(d.substr(0, d.find('\n')), "cuda     unavailable  (" + st.reason + ")");
  }
  // The toolkit's libraries, loaded at run time, follow the devices (toolkit_libraries.h).
  EXPECT_NE(d.find("\nnvrtc    "), std::string::npos) << d;
  EXPECT_NE(d.find("\ncublas   "), std::string::npos) << d;
}

TEST(CudaBackend, FunctionOnCudaWithoutADeviceSaysWhyAndCpuStillRuns) {
  Var x = vector("x", DType::Float32);
  if (!cuda::cuda_status().available) {
    FunctionOptions o;
    o.config["device"] = "cuda";
    EXPECT_THROW(function({x}, {exp(x)}, {}, o), ConfigError);
  }
  // The same binary, with the CUDA runtime linked in, runs CPU work.
  Function f = function({x}, {x * 2.0});
  EXPECT_EQ(f(Tensor::from_vector<float>({1, 2}))[0].to_vector<float>(), (std::vector<float>{2, 4}));
}

TEST(CudaError, NamesTheCallAndCudasWordsWithAHint) {
  try {
    cuda::throw_cuda_error(cudaErrorMemoryAllocation, "cudaMallocFromPoolAsync(&p, bytes, pool, s)");
    FAIL() << "no exception";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.what_part(), "CUDA call cudaMallocFromPoolAsync failed: out of memory (cudaErrorMemoryAllocation)");
    EXPECT_NE(e.hint().find("ran out of memory"), std::string::npos) << e.hint();
  }
  EXPECT_THROW(TGC_CUDA_CHECK(cudaErrorInvalidValue), DeviceError);
  EXPECT_NO_THROW(TGC_CUDA_CHECK(cudaSuccess));
  EXPECT_EQ(cuda::call_name("::cudaMemcpyAsync(a, b, n, k, s)"), "cudaMemcpyAsync");
  EXPECT_TRUE(cuda::is_sticky(cudaErrorIllegalAddress));
  EXPECT_FALSE(cuda::is_sticky(cudaErrorMemoryAllocation));
}

TEST(CudaError, CublasFailuresNameTheCall) {
  try {
    TGC_CUBLAS_CHECK(3);  // CUBLAS_STATUS_ALLOC_FAILED
    FAIL() << "no exception";
  } catch (const DeviceError& e) {
    EXPECT_NE(e.what_part().find("cuBLAS call 3 failed"), std::string::npos) << e.what();
    EXPECT_NE(e.what_part().find("CUBLAS_STATUS_ALLOC_FAILED"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tgc
