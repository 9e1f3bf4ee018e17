// GpuBackend: the rule table as a Backend.
#include "backends/gpu/gpu_backend.h"

#include "backends/c_family/call_planner.h"

#include "backends/gpu/composite_thunk.h"
#include "backends/gpu/device_copy.h"
#include "backends/gpu/fallback_kernel_rules.h"
#include "runtime/parallel_jobs.h"

namespace tgc::gpu {

GpuBackend::GpuBackend(std::string name, GpuDevice& device, const Config& config, std::vector<DeviceOpRule> rules)
    : name_(std::move(name)), device_(device), config_(config), rules_(std::move(rules)) {}

bool GpuBackend::runs_on_device(const Node& node) const { return find_rule(rules_, node, nullptr) != nullptr; }

void GpuBackend::prepare(const std::vector<const Node*>& nodes, const ExpectedInputShapes& expected) const {
  std::lock_guard lock(rendered_mutex_);
  rendered_.clear();
  std::vector<ModuleSource> sources;
  for (const Node* node : nodes) {
    const DeviceOpRule* rule = find_rule(rules_, *node, nullptr);
    if (!rule || rule->name != "Composite") continue;
    auto op = std::dynamic_pointer_cast<const Composite>(node->op_ptr());
    const cfam::RenderOptions options = composite_render_options(device_, config_, *op);
    Prepared& p = rendered_[node];
    p.source = render_composite(device_, *op, options);
    if (auto it = expected.find(node); it != expected.end()) {
      std::vector<Shape> shapes;
      for (const std::optional<Shape>& s : it->second)
        if (s) shapes.push_back(*s);
      if (shapes.size() == it->second.size())
        p.expected_entries = cfam::entries_launched_for(op->kernel(), p.source.entries.size(), shapes, device_.limits());
    }
    sources.push_back(composite_module_source(op, options, p.source, config_, node->describe(), p.expected_entries));
  }
  if (sources.size() < 2) return;  // one kernel is built by its make_thunk
  device_.compile_ahead(sources, compile_threads(config_.compile_threads));
}

ThunkFn GpuBackend::make_thunk(const Node& node) const {
  std::string why;
  const DeviceOpRule* rule = find_rule(rules_, node, &why);
  TGC_INTERNAL_CHECK(rule != nullptr, "node " + node.describe() + " was placed on " + device_.name() + " but the " +
                                          name_ + " backend cannot run it: " + why);
  std::unique_lock lock(rendered_mutex_);
  if (auto it = rendered_.find(&node); it != rendered_.end()) {
    const Prepared prepared = std::move(it->second);
    rendered_.erase(it);
    lock.unlock();
    return make_composite_thunk(device_, std::dynamic_pointer_cast<const Composite>(node.op_ptr()), config_,
                                node.describe(), &prepared.source, prepared.expected_entries);
  }
  lock.unlock();
  return rule->make(device_, node, config_);
}

bool GpuBackend::self_contained(const Node& node) const {
  const DeviceOpRule* rule = find_rule(rules_, node, nullptr);
  return rule && rule->self_contained;
}

int GpuBackend::serial_domain(const Node& node) const {
  const DeviceOpRule* rule = find_rule(rules_, node, nullptr);
  return rule ? rule->serial_domain : 0;
}

bool GpuBackend::skips_writes_once_flagged(const Node& node) const {
  const DeviceOpRule* rule = find_rule(rules_, node, nullptr);
  return rule && rule->name == "scatter";
}

void GpuBackend::copy_tensor(const Tensor& src, const Tensor& dst) const { copy_strided(device_, src, dst); }

std::string GpuBackend::host_reason(const Node& node) const {
  std::string why;
  return find_rule(rules_, node, &why) ? std::string() : why;
}

std::vector<DeviceOpRule> device_op_rules_with(std::span<const DeviceOpRule> library_rules) {
  const std::span<const DeviceOpRule> shared = shared_device_op_rules();
  std::vector<DeviceOpRule> rules(shared.begin(), shared.end());
  rules.insert(rules.end(), library_rules.begin(), library_rules.end());
  // tgc's own kernels for ops a library runs better where it is there: after its rules.
  const std::span<const DeviceOpRule> fallback = fallback_kernel_rules();
  rules.insert(rules.end(), fallback.begin(), fallback.end());
  return rules;
}

}  // namespace tgc::gpu
