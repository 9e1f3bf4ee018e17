// Loading cubins as CUDA libraries and launching their kernels.
#include "backends/cuda/cuda_module.h"

#include <climits>
#include <utility>

#include "backends/cuda/cuda_error.h"

namespace tgc::cuda {

namespace {
// Dynamic shared memory above this needs an opt-in per kernel and device.
constexpr size_t kDefaultSharedLimit = 48 * 1024;
}  // namespace

CudaModule::CudaModule(CudaDevice& device, const std::string& cubin, const std::vector<std::string>& entries,
                       std::string label)
    : CudaModule(device, cubin, entries, std::move(label), {}, {}) {}

CudaModule::CudaModule(CudaDevice& device, const std::string& cubin, const std::vector<std::string>& entries,
                       std::string label, std::vector<bool> late, std::function<std::string()> late_cubin)
    : device_(device),
      kernels_(entries.size(), nullptr),
      names_(entries),
      label_(std::move(label)),
      late_(std::move(late)),
      late_cubin_(std::move(late_cubin)) {
  TGC_INTERNAL_CHECK(late_.empty() || (late_.size() == entries.size() && late_cubin_),
                     "the " + label_ + " marks late entries without a way to build them");
  library_ = load_part(cubin, false);
}

UniqueLibrary CudaModule::load_part(const std::string& cubin, bool part) const {
  cudaLibrary_t lib = nullptr;
  cudaError_t err = cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError("CUDA call cudaLibraryLoadData failed for the " + label_ + ": " + cuda_error_text(err), "",
                      err == cudaErrorUnsupportedPtxVersion || err == cudaErrorNoKernelImageForDevice
                          ? "the code was compiled for another architecture or a newer driver: update the driver"
                          : "this is most likely a bug in tgc; please report it with the program");
  }
  UniqueLibrary owned(lib);
  for (size_t i = 0; i < names_.size(); ++i) {
    if (!late_.empty() && late_[i] != part) continue;
    cudaKernel_t k = nullptr;
    err = cudaLibraryGetKernel(&k, lib, names_[i].c_str());
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw DeviceError("the " + label_ + " has no kernel named '" + names_[i] + "': " + cuda_error_text(err), "",
                        "a kernel must be declared extern \"C\" __global__ for its name to be found");
    }
    kernels_[i] = k;
  }
  return owned;
}

cudaKernel_t CudaModule::kernel(size_t i) const {
  if (late_.empty() || !late_.at(i) || late_loaded_.load(std::memory_order_acquire)) return kernels_.at(i);
  // A late entry's first launch: build and load the late part (NVRTC through the kernel
  // cache). A call being recorded may get here (its operands grew past 2^31 elements): the
  // build and the load are no stream work, so this thread's capture mode is relaxed around
  // them rather than letting them invalidate the recording.
  std::lock_guard<std::mutex> lock(late_mutex_);
  if (!late_loaded_.load(std::memory_order_relaxed)) {
    DeviceGuard guard(device_.ordinal());
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaThreadExchangeStreamCaptureMode(&mode);
    try {
      late_library_ = load_part(late_cubin_(), true);
    } catch (...) {
      cudaThreadExchangeStreamCaptureMode(&mode);
      throw;
    }
    cudaThreadExchangeStreamCaptureMode(&mode);
    late_loaded_.store(true, std::memory_order_release);
  }
  return kernels_[i];
}

void CudaModule::launch(size_t i, dim3 grid, dim3 block, size_t shared_bytes, void** args) const {
  CudaDevice& device = device_;
  cudaKernel_t k = kernel(i);
  DeviceGuard guard(device.ordinal());
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
