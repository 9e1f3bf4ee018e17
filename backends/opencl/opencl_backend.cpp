// The OpenCL backend: the GPU layer's GpuBackend over the shared device-op rules and (with
// CLBlast) BLAS on an OpenCLDevice; make_opencl_backend and the `tgc devices` description.
#include "backends/opencl/opencl_backend.h"

#include <fmt/core.h>

#include "backends/gpu/gpu_backend.h"
#include "backends/opencl/opencl_device.h"
#include "backends/opencl/opencl_status.h"
#include "backends/gpu/blas_thunk.h"
#include "backends/gpu/conv_gemm_thunk.h"
#ifdef TGC_HAVE_CLBLAST
#include "backends/opencl/clblast_library.h"
#endif

namespace tgc {

namespace {

// OpenCL's own rules after the shared ones: BLAS through CLBlast, where it was built (without
// it BLAS nodes stay on the host). Not self-contained, as cuBLAS's.
#ifdef TGC_HAVE_CLBLAST
ThunkFn clblast(gpu::GpuDevice& d, const Node& n, const Config&) {
  auto& device = static_cast<opencl::OpenCLDevice&>(d);
  return gpu::make_blas_thunk(device, n, opencl::make_clblast_library(device));
}
ThunkFn clblast_conv(gpu::GpuDevice& d, const Node& n, const Config& c) {
  auto& device = static_cast<opencl::OpenCLDevice&>(d);
  return gpu::make_conv_gemm_thunk(device, n, c, opencl::make_clblast_library(device));
}
std::string no_decline(const Node&) { return ""; }
const gpu::DeviceOpRule kOpenCLRules[] = {
    {"blas (CLBlast)", gpu::blas_covers, gpu::blas_declines, clblast, false},  // Gemm, Gemv, Dot, BatchedDot, Outer
    // conv2d in NCHW with one group: Convgemm over the whole batch (the direct kernel otherwise).
    {"convolution (CLBlast)", gpu::conv_gemm_covers, no_decline, clblast_conv, false},
};
#else
std::string no_clblast(const Node&) { return "this build of tgc has no CLBlast (BLAS on OpenCL needs it)"; }
const gpu::DeviceOpRule kOpenCLRules[] = {
    {"blas (CLBlast)", gpu::blas_covers, no_clblast, nullptr, false},
};
#endif

std::string gib(size_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1u << 30)); }

}  // namespace

bool opencl_available() { return opencl::opencl_status().available; }

std::unique_ptr<Backend> make_opencl_backend(const Config& config, int platform, int index) {
  return std::make_unique<gpu::GpuBackend>("opencl", opencl::opencl_device(platform, index), config,
                                           gpu::device_op_rules_with(kOpenCLRules));
}

std::string opencl_devices_description() {
  const opencl::OpenCLStatus& st = opencl::opencl_status();
  if (st.devices.empty()) return "opencl   unavailable  (" + st.reason + ")";
  std::string out;
  for (const opencl::OpenCLDeviceInfo& d : st.devices) {
    if (!out.empty()) out += "\n";
    const std::string what = fmt::format("{}: {}, {}, {}, {} compute units; {}, driver {}", d.platform_name,
                                         d.device_name, d.gpu ? "GPU" : "not a GPU", gib(d.global_memory),
                                         d.compute_units, d.device_version, d.driver_version);
    out += d.unusable.empty() ? fmt::format("{} available  ({})", d.spec(), what)
                              : fmt::format("{} unusable  ({}; {})", d.spec(), d.unusable, what);
  }
  return out;
}

}  // namespace tgc
