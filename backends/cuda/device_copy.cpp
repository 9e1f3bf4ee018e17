// tgc's copy kernels, compiled by NVRTC once per device: the strided copy (one entry per
// element size) and the small dense copy that stands in for a copy engine.
#include "backends/cuda/device_copy.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_module.h"
#include "backends/cuda/nvrtc_compiler.h"
#include "runtime/config.h"

namespace tgc::cuda {

namespace {

constexpr int kMaxRank = 8;

// Elements are moved as unsigned integers of their size: a copy needs no arithmetic.
const char* kSource = R"(
struct TgcCopyParams { long long shape[8]; long long strides[8]; long long n; int ndim; };
template <typename T>
__device__ void tgc_copy(const T* __restrict__ src, T* __restrict__ dst, const TgcCopyParams& p) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {
    long long rem = i, off = 0;
    for (int d = p.ndim - 1; d >= 0; --d) {
      const long long idx = rem % p.shape[d];
      rem /= p.shape[d];
      off += idx * p.strides[d];
    }
    dst[i] = src[off];
  }
}
extern "C" __global__ void tgc_strided_copy_1(const unsigned char* s, unsigned char* d, TgcCopyParams p) { tgc_copy(s, d, p); }
extern "C" __global__ void tgc_strided_copy_2(const unsigned short* s, unsigned short* d, TgcCopyParams p) { tgc_copy(s, d, p); }
extern "C" __global__ void tgc_strided_copy_4(const unsigned int* s, unsigned int* d, TgcCopyParams p) { tgc_copy(s, d, p); }
extern "C" __global__ void tgc_strided_copy_8(const unsigned long long* s, unsigned long long* d, TgcCopyParams p) { tgc_copy(s, d, p); }
extern "C" __global__ void tgc_copy_bytes(const unsigned char* __restrict__ s, unsigned char* __restrict__ d, long long n) {
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long done = 0;
  if ((((unsigned long long)s | (unsigned long long)d) & 15) == 0) {
    done = n / 16 * 16;
    for (long long i = t; i < n / 16; i += step) ((uint4*)d)[i] = ((const uint4*)s)[i];
  }
  for (long long i = done + t; i < n; i += step) d[i] = s[i];
}
)";

struct CopyParams {
  long long shape[kMaxRank];
  long long strides[kMaxRank];
  long long n;
  int ndim;
};

const CudaModule& copy_module(CudaDevice& device) {
  static std::mutex mutex;
  static auto* modules = new std::map<int, std::unique_ptr<CudaModule>>();  // process lifetime
  std::lock_guard<std::mutex> lock(mutex);
  auto& m = (*modules)[device.ordinal()];
  if (!m) {
    NvrtcOptions options;
    options.arch = device.arch();
    const std::string cubin = nvrtc_compile(kSource, "tgc_strided_copy", options, global_config().cache_dir);
    m = std::make_unique<CudaModule>(cubin,
                                     std::vector<std::string>{"tgc_strided_copy_1", "tgc_strided_copy_2",
                                                              "tgc_strided_copy_4", "tgc_strided_copy_8",
                                                              "tgc_copy_bytes"},
                                     "copy kernels");
  }
  return *m;
}

constexpr size_t kCopyBytesEntry = 4;

}  // namespace

void load_copy_kernels(CudaDevice& device) { copy_module(device); }

void copy_bytes(CudaDevice& device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  const int threads = 256;
  const size_t per_block = threads * 16;
  const size_t blocks = std::min<size_t>((bytes + per_block - 1) / per_block, static_cast<size_t>(device.info().multiprocessors) * 4);
  long long n = static_cast<long long>(bytes);
  void* args[] = {&src, &dst, &n};
  copy_module(device).launch(device, kCopyBytesEntry, dim3(static_cast<unsigned>(blocks)), dim3(threads), 0, args);
}

void copy_strided(CudaDevice& device, const Tensor& src, const Tensor& dst) {
  TGC_INTERNAL_CHECK(src.shape() == dst.shape() && src.dtype() == dst.dtype(), "copy_strided: operands differ");
  TGC_INTERNAL_CHECK(dst.is_contiguous(), "copy_strided: destination not contiguous");
  const int64_t n = src.numel();
  if (n == 0) return;
  if (src.is_contiguous()) {
    device.copy_on_device(dst.raw_data(), src.raw_data(), dst.nbytes(), device.default_stream());
    return;
  }
  // Drop size-1 dims (their stride never matters), so more shapes fit the kernel's rank.
  CopyParams p{};
  int rank = 0;
  for (int d = 0; d < src.ndim(); ++d) {
    if (src.shape()[d] == 1) continue;
    if (rank == kMaxRank) {
      // Deeper than the kernel handles: through the host (rare, and correct).
      Tensor host = src.to(host_device());
      device.copy_from_host(dst.raw_data(), host.raw_data(), dst.nbytes(), device.default_stream());
      return;
    }
    p.shape[rank] = src.shape()[d];
    p.strides[rank] = src.strides()[d];
    ++rank;
  }
  p.ndim = rank;
  p.n = n;
  const size_t esize = dtype_size(src.dtype());
  const size_t entry = esize == 1 ? 0 : esize == 2 ? 1 : esize == 4 ? 2 : 3;
  TGC_INTERNAL_CHECK(esize == 1 || esize == 2 || esize == 4 || esize == 8, "copy_strided: odd element size");
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, int64_t{device.info().multiprocessors} * 16);
  const void* s = src.raw_data();
  void* d = dst.raw_data();
  void* args[] = {&s, &d, &p};
  copy_module(device).launch(device, entry, dim3(static_cast<unsigned>(std::max<int64_t>(blocks, 1))), dim3(threads),
                             0, args);
}

Tensor contiguous_on_device(CudaDevice& device, const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = Tensor::empty(t.dtype(), t.shape(), device);
  copy_strided(device, t, out);
  return out;
}

}  // namespace tgc::cuda
