// Loading cubins as CUDA libraries and launching their kernels.
#include "backends/cuda/cuda_module.h"

#include "backends/cuda/cuda_error.h"

namespace tgc::cuda {

namespace {
// Dynamic shared memory above this needs an opt-in per kernel and device.
constexpr size_t kDefaultSharedLimit = 48 * 1024;
}  // namespace

CudaModule::CudaModule(const std::string& cubin, const std::vector<std::string>& entries, std::string label)
    : names_(entries), label_(std::move(label)) {
  cudaLibrary_t lib = nullptr;
  cudaError_t err = cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError("CUDA call cudaLibraryLoadData failed for the " + label_ + ": " + cuda_error_text(err), "",
                      err == cudaErrorUnsupportedPtxVersion || err == cudaErrorNoKernelImageForDevice
                          ? "the code was compiled for another architecture or a newer driver: update the driver"
                          : "this is most likely a bug in tgc; please report it with the program");
  }
  library_.reset(lib);
  for (const std::string& name : entries) {
    cudaKernel_t k = nullptr;
    err = cudaLibraryGetKernel(&k, lib, name.c_str());
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw DeviceError("the " + label_ + " has no kernel named '" + name + "': " + cuda_error_text(err), "",
                        "a kernel must be declared extern \"C\" __global__ for its name to be found");
    }
    kernels_.push_back(k);
  }
}

void CudaModule::launch(CudaDevice& device, size_t i, dim3 grid, dim3 block, size_t shared_bytes, void** args) const {
  DeviceGuard guard(device.ordinal());
  cudaKernel_t k = kernels_.at(i);
  if (shared_bytes > kDefaultSharedLimit)
    TGC_CUDA_CHECK(cudaKernelSetAttributeForDevice(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(shared_bytes), device.ordinal()));
  cudaError_t err = cudaLaunchKernel(reinterpret_cast<const void*>(k), grid, block, args, shared_bytes, device.stream());
  if (err != cudaSuccess) device.check_launch(err, "entry '" + names_[i] + "' of the " + label_);
}

}  // namespace tgc::cuda
