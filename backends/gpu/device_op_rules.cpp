// find_rule, and the shared rule table assembled from its families.
#include "backends/gpu/device_op_rules.h"

#include <fmt/format.h>

#include "backends/gpu/core_rules.h"
#include "backends/gpu/index_rules.h"
#include "backends/gpu/random_rules.h"
#include "backends/gpu/row_rules.h"

namespace tgc::gpu {

namespace {

// The families of shared rules, in match order: a family is one line here.
using RuleFamily = std::span<const DeviceOpRule> (*)();
constexpr RuleFamily kFamilies[] = {
    core_device_op_rules,  // Composite, transfers, views, shape ops
    index_op_rules,        // index views, gathers, scatters, arg reductions, joins, fills
    row_op_rules,          // softmax, log_softmax, logsumexp, log_softmax's gradient
    random_op_rules,       // Philox draws: uniform, normal, integers
};

// The first half dtype among a node's inputs and outputs, if any.
std::optional<DType> half_dtype_of(const Node& node) {
  for (const VarPtr& v : node.inputs())
    if (is_half(v->type().dtype)) return v->type().dtype;
  for (int i = 0; i < node.num_outputs(); ++i)
    if (is_half(node.output_raw(i)->type().dtype)) return node.output_raw(i)->type().dtype;
  return std::nullopt;
}

}  // namespace

const DeviceOpRule* find_rule(std::span<const DeviceOpRule> rules, const Node& node, std::string* why) {
  std::string first_reason;
  for (const DeviceOpRule& rule : rules) {
    if (!rule.covers(node)) continue;
    std::string reason = rule.declines ? rule.declines(node) : std::string();
    if (reason.empty() && !rule.half_types)
      if (const std::optional<DType> half = half_dtype_of(node))
        reason = fmt::format("{} on the device takes no {} tensors yet", rule.name, dtype_name(*half));
    if (reason.empty()) return &rule;
    if (first_reason.empty()) first_reason = std::move(reason);
  }
  if (why) *why = first_reason.empty() ? "no device implementation of " + node.op().op_class() : first_reason;
  return nullptr;
}

std::span<const DeviceOpRule> shared_device_op_rules() {
  static const std::vector<DeviceOpRule> rules = [] {
    std::vector<DeviceOpRule> all;
    for (RuleFamily family : kFamilies) {
      const std::span<const DeviceOpRule> f = family();
      all.insert(all.end(), f.begin(), f.end());
    }
    return all;
  }();
  return rules;
}

}  // namespace tgc::gpu
