// Loading cubins as CUDA libraries and launching their kernels.
#include "backends/cuda/cuda_module.h"

#include <climits>

#include "backends/cuda/cuda_error.h"

namespace tgc::cuda {

namespace {
// Dynamic shared memory above this needs an opt-in per kernel and device.
constexpr size_t kDefaultSharedLimit = 48 * 1024;
}  // namespace

CudaModule::CudaModule(CudaDevice& device, const std::string& cubin, const std::vector<std::string>& entries,
                       std::string label)
    : device_(device), names_(entries), label_(std::move(label)) {
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

void CudaModule::launch(size_t i, dim3 grid, dim3 block, size_t shared_bytes, void** args) const {
  CudaDevice& device = device_;
  DeviceGuard guard(device.ordinal());
  cudaKernel_t k = kernels_.at(i);
  if (shared_bytes > kDefaultSharedLimit)
    TGC_CUDA_CHECK(cudaKernelSetAttributeForDevice(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(shared_bytes), device.ordinal()));
  cudaError_t err = cudaLaunchKernel(reinterpret_cast<const void*>(k), grid, block, args, shared_bytes, device.stream());
  if (err != cudaSuccess) device.check_launch(err, "entry '" + names_[i] + "' of the " + label_);
}

void CudaModule::launch(size_t entry, int64_t blocks, int threads, size_t shared_bytes,
                        std::span<const gpu::LaunchArg> args) {
  TGC_INTERNAL_CHECK(blocks >= 1 && blocks <= INT_MAX, "launch of entry '" + names_.at(entry) + "' of the " + label_ +
                                                           " with " + std::to_string(blocks) + " blocks");
  // cudaLaunchKernel takes a pointer to each argument's value: an address argument's value is
  // the pointer held in the LaunchArg, a value argument's its bytes. The calling thread's
  // vector is kept between launches: a launch allocates nothing.
  thread_local std::vector<void*> values;
  values.clear();
  for (const gpu::LaunchArg& a : args)
    values.push_back(const_cast<void*>(a.kind == gpu::LaunchArg::Kind::Address ? static_cast<const void*>(&a.ptr)
                                                                                : a.ptr));
  launch(entry, dim3(static_cast<unsigned>(blocks)), dim3(static_cast<unsigned>(threads)), shared_bytes,
         values.data());
}

}  // namespace tgc::cuda
