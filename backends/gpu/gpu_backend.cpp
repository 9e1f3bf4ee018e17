// GpuBackend: the rule table as a Backend.
#include "backends/gpu/gpu_backend.h"

namespace tgc::gpu {

GpuBackend::GpuBackend(std::string name, GpuDevice& device, const Config& config, std::vector<DeviceOpRule> rules)
    : name_(std::move(name)), device_(device), config_(config), rules_(std::move(rules)) {}

bool GpuBackend::runs_on_device(const Node& node) const { return find_rule(rules_, node, nullptr) != nullptr; }

ThunkFn GpuBackend::make_thunk(const Node& node) const {
  std::string why;
  const DeviceOpRule* rule = find_rule(rules_, node, &why);
  TGC_INTERNAL_CHECK(rule != nullptr, "node " + node.describe() + " was placed on " + device_.name() + " but the " +
                                          name_ + " backend cannot run it: " + why);
  return rule->make(device_, node, config_);
}

bool GpuBackend::self_contained(const Node& node) const {
  const DeviceOpRule* rule = find_rule(rules_, node, nullptr);
  return rule && rule->self_contained;
}

bool GpuBackend::skips_writes_once_flagged(const Node& node) const {
  const DeviceOpRule* rule = find_rule(rules_, node, nullptr);
  return rule && rule->name == "scatter";
}

std::string GpuBackend::host_reason(const Node& node) const {
  std::string why;
  return find_rule(rules_, node, &why) ? std::string() : why;
}

std::vector<DeviceOpRule> device_op_rules_with(std::span<const DeviceOpRule> library_rules) {
  const std::span<const DeviceOpRule> shared = shared_device_op_rules();
  std::vector<DeviceOpRule> rules(shared.begin(), shared.end());
  rules.insert(rules.end(), library_rules.begin(), library_rules.end());
  return rules;
}

}  // namespace tgc::gpu
