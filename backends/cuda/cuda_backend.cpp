// CudaBackend: which nodes run on a CUDA device and the thunk of each; make_cuda_backend and
// the `tgc devices` description.
#include "backends/cuda/cuda_backend.h"

#include <fmt/core.h>

#include "backends/cuda/blas_thunks.h"
#include "backends/cuda/composite_thunk.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_status.h"
#include "backends/cuda/shape_op_thunks.h"
#include "backends/cuda/transfer_thunks.h"
#include "backends/cuda/user_kernel_thunk.h"
#include "compiler/kernel/composite_op.h"
#include "ops/custom/cuda_source_op.h"
#include "ops/transfer/transfer.h"

namespace tgc {

namespace {

class CudaBackend final : public Backend {
 public:
  CudaBackend(const Config& config, cuda::CudaDevice& device) : config_(config), device_(device) {}

  std::string name() const override { return "cuda"; }
  DeviceKind device_kind() const override { return DeviceKind::Cuda; }
  Device* device() const override { return &device_; }

  // Fused kernels, transfers, cuBLAS ops (float32/float64), view ops, shape-driven ops and
  // user CUDA source. Everything else stays on the host (the placement pass moves its
  // operands there).
  bool runs_on_device(const Node& node) const override {
    const Op& op = node.op();
    return dynamic_cast<const Composite*>(&op) || op.is_transfer() || cuda::blas_runs_on_device(node) ||
           cuda::is_device_view_op(node) || cuda::is_device_shape_op(node) || dynamic_cast<const CudaSourceOp*>(&op);
  }

  ThunkFn make_thunk(const Node& node) const override {
    const Op& op = node.op();
    if (auto composite = std::dynamic_pointer_cast<const Composite>(node.op_ptr()))
      return cuda::make_composite_thunk(device_, composite, config_, node.describe());
    if (dynamic_cast<const HostToDevice*>(&op)) return cuda::make_host_to_device_thunk(device_);
    if (dynamic_cast<const DeviceToHost*>(&op)) return cuda::make_device_to_host_thunk(device_);
    if (cuda::blas_runs_on_device(node)) return cuda::make_blas_thunk(device_, node, config_);
    if (cuda::is_device_view_op(node)) return cuda::make_view_thunk(device_, node);
    if (cuda::is_device_shape_op(node)) return cuda::make_shape_op_thunk(device_, node);
    if (dynamic_cast<const CudaSourceOp*>(&op)) return cuda::make_user_kernel_thunk(device_, node, config_);
    TGC_INTERNAL_CHECK(false, "node " + node.describe() + " was placed on " + device_.name() +
                                  " but the CUDA backend has no implementation of " + op.name());
    return {};
  }

  // Fused kernels (their scratch and error flag are their own), transfers and views. cuBLAS
  // calls share the handle's workspace, and a user kernel may do anything: those stay in
  // order with each other in a recorded call.
  bool self_contained(const Node& node) const override {
    const Op& op = node.op();
    return std::dynamic_pointer_cast<const Composite>(node.op_ptr()) || dynamic_cast<const HostToDevice*>(&op) ||
           dynamic_cast<const DeviceToHost*>(&op) || cuda::is_device_view_op(node);
  }

 private:
  Config config_;
  cuda::CudaDevice& device_;
};

std::string gib(size_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1u << 30)); }

}  // namespace

bool cuda_available() { return cuda::cuda_status().available; }

std::unique_ptr<Backend> make_cuda_backend(const Config& config, int ordinal) {
  return std::make_unique<CudaBackend>(config, cuda::cuda_device(ordinal));
}

std::string cuda_devices_description() {
  const cuda::CudaStatus& st = cuda::cuda_status();
  if (!st.available) return "cuda     unavailable  (" + st.reason + ")";
  std::string out;
  for (const cuda::CudaDeviceInfo& d : st.devices) {
    if (!out.empty()) out += "\n";
    out += fmt::format("cuda:{}   available  ({}, sm_{}, {}, {} SMs; driver CUDA {}, runtime {})", d.ordinal, d.name,
                       d.arch(), gib(d.total_memory), d.multiprocessors, cuda::cuda_version_str(st.driver_version),
                       cuda::cuda_version_str(st.runtime_version));
  }
  return out;
}

}  // namespace tgc
