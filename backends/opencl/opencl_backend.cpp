// OpenCLBackend: which nodes run on an OpenCL device and the thunk of each;
// make_opencl_backend and the `tgc devices` description.
#include "backends/opencl/opencl_backend.h"

#include <fmt/core.h>

#include "backends/opencl/composite_thunk.h"
#include "backends/opencl/opencl_device.h"
#include "backends/opencl/opencl_status.h"
#include "backends/opencl/transfer_thunks.h"
#include "compiler/kernel/composite_op.h"
#include "ops/transfer/transfer.h"
#ifdef TGC_HAVE_CLBLAST
#include "backends/opencl/blas_thunks.h"
#endif

namespace tgc {

namespace {

// Whether CLBlast runs `node` here (never in a build without CLBlast: BLAS stays on the host).
bool blas_on_device(const Node& node) {
#ifdef TGC_HAVE_CLBLAST
  return opencl::blas_runs_on_device(node);
#else
  (void)node;
  return false;
#endif
}

class OpenCLBackend final : public Backend {
 public:
  OpenCLBackend(const Config& config, opencl::OpenCLDevice& device) : config_(config), device_(device) {}

  std::string name() const override { return "opencl"; }
  DeviceKind device_kind() const override { return DeviceKind::OpenCL; }
  Device* device() const override { return &device_; }

  // Fused kernels, transfers, view ops and (with CLBlast) BLAS ops. Everything else stays on
  // the host (the placement pass moves its operands there).
  bool runs_on_device(const Node& node) const override {
    const Op& op = node.op();
    return dynamic_cast<const Composite*>(&op) || op.is_transfer() || opencl::is_device_view_op(node) ||
           blas_on_device(node);
  }

  ThunkFn make_thunk(const Node& node) const override {
    const Op& op = node.op();
    if (auto composite = std::dynamic_pointer_cast<const Composite>(node.op_ptr()))
      return opencl::make_composite_thunk(device_, composite, config_, node.describe());
    if (dynamic_cast<const HostToDevice*>(&op)) return opencl::make_host_to_device_thunk(device_);
    if (dynamic_cast<const DeviceToHost*>(&op)) return opencl::make_device_to_host_thunk(device_);
    if (opencl::is_device_view_op(node)) return opencl::make_view_thunk(device_, node);
#ifdef TGC_HAVE_CLBLAST
    if (opencl::blas_runs_on_device(node)) return opencl::make_blas_thunk(device_, node, config_);
#endif
    TGC_INTERNAL_CHECK(false, "node " + node.describe() + " was placed on " + device_.name() +
                                  " but the OpenCL backend has no implementation of " + op.name());
    return {};
  }

 private:
  Config config_;
  opencl::OpenCLDevice& device_;
};

std::string gib(size_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1u << 30)); }

}  // namespace

bool opencl_available() { return opencl::opencl_status().available; }

std::unique_ptr<Backend> make_opencl_backend(const Config& config, int platform, int index) {
  return std::make_unique<OpenCLBackend>(config, opencl::opencl_device(platform, index));
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
