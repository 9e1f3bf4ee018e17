// GpuBackend: the compiler's Backend for any GPU API, from a table of device-op rules (the
// shared rules plus the API's library rules): a node runs on the device when a rule covers it
// and does not decline, its thunk is that rule's, and so is whether it is self-contained.
#pragma once

#include <mutex>
#include <span>
#include <unordered_map>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "backends/gpu/device_op_rules.h"
#include "backends/gpu/gpu_device.h"
#include "compiler/backend.h"
#include "runtime/config.h"

namespace tgc::gpu {

class GpuBackend final : public Backend {
 public:
  // `name`: "cuda", "opencl". `rules` in match order (usually shared_device_op_rules() first).
  GpuBackend(std::string name, GpuDevice& device, const Config& config, std::vector<DeviceOpRule> rules);

  std::string name() const override { return name_; }
  DeviceKind device_kind() const override { return device_.kind(); }
  Device* device() const override { return &device_; }
  bool runs_on_device(const Node& node) const override;
  // Renders the Composites among `nodes`, notes which entries each is expected to launch
  // (cfam::entries_launched_for, where `expected` knows every input's shape: the others are
  // built on the first launch that needs one), and has the device compile them at once
  // (GpuDevice::compile_ahead) when several are to be built.
  void prepare(const std::vector<const Node*>& nodes, const ExpectedInputShapes& expected) const override;
  ThunkFn make_thunk(const Node& node) const override;
  bool self_contained(const Node& node) const override;
  int serial_domain(const Node& node) const override;
  // The scatter (its kernels return at once when the error word is set).
  bool skips_writes_once_flagged(const Node& node) const override;
  // Why `node` stays on the host: the first covering rule's reason, or "no device
  // implementation of <op class>"; "" when it runs on the device.
  std::string host_reason(const Node& node) const override;
  // By tgc's copy kernel or the copy engine (gpu::copy_strided), on the device's stream.
  void copy_tensor(const Tensor& src, const Tensor& dst) const override;

  std::span<const DeviceOpRule> rules() const { return rules_; }

 private:
  std::string name_;
  GpuDevice& device_;
  Config config_;
  std::vector<DeviceOpRule> rules_;
  // The Composites prepare() rendered and the entries each is expected to launch (empty:
  // unknown), taken by their make_thunk (the same link: the nodes outlive it); cleared by each
  // prepare().
  struct Prepared {
    cfam::Source source;
    std::vector<bool> expected_entries;
  };
  mutable std::mutex rendered_mutex_;
  mutable std::unordered_map<const Node*, Prepared> rendered_;
};

// shared_device_op_rules(), then `library_rules`, then the rules of tgc's own kernels for ops
// a library runs where it is there (fallback_kernel_rules.h: pooling and convolution, which
// cuDNN runs on CUDA).
std::vector<DeviceOpRule> device_op_rules_with(std::span<const DeviceOpRule> library_rules);

}  // namespace tgc::gpu
