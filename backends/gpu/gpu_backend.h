// GpuBackend: the compiler's Backend for any GPU API, from a table of device-op rules (the
// shared rules plus the API's library rules): a node runs on the device when a rule covers it
// and does not decline, its thunk is that rule's, and so is whether it is self-contained.
#pragma once

#include <span>
#include <string>
#include <vector>

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
  ThunkFn make_thunk(const Node& node) const override;
  bool self_contained(const Node& node) const override;
  // The scatter (its kernels return at once when the error word is set).
  bool skips_writes_once_flagged(const Node& node) const override;
  // Why `node` stays on the host: the first covering rule's reason, or "no device
  // implementation of <op class>"; "" when it runs on the device.
  std::string host_reason(const Node& node) const override;

  std::span<const DeviceOpRule> rules() const { return rules_; }

 private:
  std::string name_;
  GpuDevice& device_;
  Config config_;
  std::vector<DeviceOpRule> rules_;
};

// shared_device_op_rules() followed by `library_rules`.
std::vector<DeviceOpRule> device_op_rules_with(std::span<const DeviceOpRule> library_rules);

}  // namespace tgc::gpu
