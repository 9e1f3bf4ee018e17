// The copy kernels, loaded once per device; the strided copy's and the byte copy's launches.
#include "backends/gpu/device_copy.h"
#include "backends/gpu/process_modules.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "backends/c_family/render_copy.h"
#include "runtime/config.h"
#include "runtime/device_kernels.h"

namespace tgc::gpu {

namespace {

// Lends runtime/ this layer's copy kernel (runtime/device_kernels.h) for every GPU API's devices,
// when libtgc loads: Tensor::copy of a device view then stays on the device.
const bool g_dense_copy_registered = [] {
  const DenseCopy copy = [](const Tensor& src, const Tensor& dst) {
    auto* device = dynamic_cast<GpuDevice*>(&src.device());
    if (!device || &dst.device() != &src.device() || src.dtype() != dst.dtype()) return false;
    copy_strided(*device, src, dst);
    return true;
  };
  register_dense_copy(DeviceKind::Cuda, copy);
  register_dense_copy(DeviceKind::OpenCL, copy);
  return true;
}();

GpuModule& copy_module(GpuDevice& device) {
  return process_module(device, "copy", 0, [&] {
    const cfam::Dialect dialect = device.dialect();
    ModuleSource source;
    source.label = "copy kernels";
    source.entries = cfam::render_copy_kernels(dialect).entries;
    source.cache_dir = global_config().cache_dir;
    source.render = [dialect](int only_entry) { return cfam::render_copy_kernels(dialect, only_entry).code; };
    return source;
  });
}

// Blocks for a grid-stride loop over `units` work items of `threads` each: enough to fill
// the device `per_mp` times over, no more.
int64_t grid(GpuDevice& device, int64_t units, int threads, int per_mp) {
  return std::clamp<int64_t>((units + threads - 1) / threads, 1, int64_t{device.limits().multiprocessors} * per_mp);
}

}  // namespace

void load_copy_kernels(GpuDevice& device) { copy_module(device); }

void copy_bytes(GpuDevice& device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  const int threads = 256;
  const int64_t n = static_cast<int64_t>(bytes);
  const LaunchArg args[] = {LaunchArg::operand(src, 1), LaunchArg::operand(dst, 1), LaunchArg::value(&n, sizeof n)};
  copy_module(device).launch(cfam::kCopyBytes, grid(device, (n + 15) / 16, threads, 4), threads, 0, args);
}

void copy_bytes_unless(GpuDevice& device, void* dst, const void* src, size_t bytes, const void* flag) {
  if (bytes == 0) return;
  const int threads = 256;
  const int64_t n = static_cast<int64_t>(bytes);
  const LaunchArg args[] = {LaunchArg::operand(src, 1), LaunchArg::operand(dst, 1), LaunchArg::value(&n, sizeof n),
                            LaunchArg::operand(flag, sizeof(int))};
  copy_module(device).launch(cfam::kCopyBytesUnless, grid(device, (n + 15) / 16, threads, 4), threads, 0, args);
}

void copy_strided(GpuDevice& device, const Tensor& src, const Tensor& dst) {
  TGC_INTERNAL_CHECK(src.shape() == dst.shape() && src.dtype() == dst.dtype(), "copy_strided: operands differ");
  TGC_INTERNAL_CHECK(dst.is_contiguous(), "copy_strided: destination not contiguous");
  const int64_t n = src.numel();
  if (n == 0) return;
  if (src.is_contiguous()) {
    device.copy_on_device(dst.raw_data(), src.raw_data(), dst.nbytes(), device.default_stream());
    return;
  }
  // Drop size-1 dims (their stride never matters), so more shapes fit the kernel's rank.
  cfam::CopyParams p{};
  int rank = 0;
  for (int d = 0; d < src.ndim(); ++d) {
    if (src.shape()[d] == 1) continue;
    if (rank == cfam::kCopyMaxRank) {
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
  const int threads = 256;
  const LaunchArg args[] = {LaunchArg::operand(src.raw_data(), esize), LaunchArg::operand(dst.raw_data(), esize),
                            LaunchArg::value(&p, sizeof p)};
  copy_module(device).launch(cfam::strided_copy_entry(esize), grid(device, n, threads, 16), threads, 0, args);
}

Tensor contiguous_on_device(GpuDevice& device, const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = Tensor::empty(t.dtype(), t.shape(), device);
  copy_strided(device, t, out);
  return out;
}

}  // namespace tgc::gpu
