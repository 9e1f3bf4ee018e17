// The strided-copy kernel (one entry per element size), built once per device.
#include "backends/opencl/device_copy.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "backends/opencl/opencl_program.h"
#include "runtime/config.h"

namespace tgc::opencl {

namespace {

constexpr int kMaxRank = 8;

// Elements are moved as unsigned integers of their size: a copy needs no arithmetic. The
// buffers come with element offsets (cl_mem handles have no pointer arithmetic).
const char* kSource = R"(
typedef struct { long shape[8]; long strides[8]; long n; long ndim; } tgc_copy_params;
#define TGC_COPY(NAME, T)                                                                      \
  __kernel void NAME(__global const T* s, ulong s_off, __global T* d, ulong d_off, tgc_copy_params p) { \
    s += s_off;                                                                                \
    d += d_off;                                                                                \
    const long step = (long)get_global_size(0);                                                \
    for (long i = (long)get_global_id(0); i < p.n; i += step) {                                \
      long rem = i, off = 0;                                                                   \
      for (int k = (int)p.ndim - 1; k >= 0; --k) {                                             \
        const long idx = rem % p.shape[k];                                                     \
        rem /= p.shape[k];                                                                     \
        off += idx * p.strides[k];                                                             \
      }                                                                                        \
      d[i] = s[off];                                                                           \
    }                                                                                          \
  }
TGC_COPY(tgc_strided_copy_1, uchar)
TGC_COPY(tgc_strided_copy_2, ushort)
TGC_COPY(tgc_strided_copy_4, uint)
TGC_COPY(tgc_strided_copy_8, ulong)
)";

struct CopyParams {
  long long shape[kMaxRank];
  long long strides[kMaxRank];
  long long n;
  long long ndim;
};

OpenCLProgram& copy_program(OpenCLDevice& device) {
  static std::mutex mutex;
  static auto* programs = new std::map<OpenCLDevice*, std::unique_ptr<OpenCLProgram>>();  // process lifetime
  std::lock_guard<std::mutex> lock(mutex);
  auto& p = (*programs)[&device];
  if (!p)
    p = std::make_unique<OpenCLProgram>(device, kSource,
                                        std::vector<std::string>{"tgc_strided_copy_1", "tgc_strided_copy_2",
                                                                 "tgc_strided_copy_4", "tgc_strided_copy_8"},
                                        "strided-copy kernel", false, global_config().cache_dir);
  return *p;
}

}  // namespace

void copy_strided(OpenCLDevice& device, const Tensor& src, const Tensor& dst) {
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
  TGC_INTERNAL_CHECK(esize == 1 || esize == 2 || esize == 4 || esize == 8, "copy_strided: odd element size");
  const size_t entry = esize == 1 ? 0 : esize == 2 ? 1 : esize == 4 ? 2 : 3;
  const size_t threads = 256;
  const int64_t blocks =
      std::clamp<int64_t>((n + threads - 1) / threads, 1, int64_t{device.info().compute_units} * 16);
  // Offsets in elements from the buffer's start to element [0, ..., 0] of each view.
  const BufferRef s = device.resolve(src.raw_data()), d = device.resolve(dst.raw_data());
  const cl_ulong s_off = s.offset / esize, d_off = d.offset / esize;
  copy_program(device).launch(entry, static_cast<size_t>(blocks), threads,
                              {{sizeof(cl_mem), &s.mem}, {sizeof(s_off), &s_off}, {sizeof(cl_mem), &d.mem},
                               {sizeof(d_off), &d_off}, {sizeof(p), &p}});
}

Tensor contiguous_on_device(OpenCLDevice& device, const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = Tensor::empty(t.dtype(), t.shape(), device);
  copy_strided(device, t, out);
  return out;
}

}  // namespace tgc::opencl
