// One node through the GPU rule that takes it, beside its reference: what the layer's op
// tests (row, pool, conv) compare. Built per GPU API with gpu_test_device.h.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/gpu/device_op_rules.h"
#include "gpu_test_device.h"
#include "ops/core/apply.h"

namespace tgc::gpu_test {

struct RuleRun {
  const gpu::DeviceOpRule* rule = nullptr;  // null: no rule took the node (the test has failed)
  Tensor got;                               // the device's result, copied to the host
  Tensor want;                              // op->perform() on host copies of the inputs
};

// Applies `op` to inputs of `inputs`' types, finds the rule of `rules` that runs the node, runs
// its thunk on `inputs` (device tensors, any layout) and perform() on host copies.
inline RuleRun run_through_rule(std::span<const gpu::DeviceOpRule> rules, std::shared_ptr<const Op> op,
                                const std::vector<Tensor>& inputs, const Config& config = {}) {
  std::vector<VarPtr> vars;
  for (size_t i = 0; i < inputs.size(); ++i)
    vars.push_back(Variable::input(Type(inputs[i].dtype(), inputs[i].shape()), "in" + std::to_string(i)));
  const VarPtr out = apply(op, vars).at(0);
  RuleRun r;
  std::string why;
  r.rule = gpu::find_rule(rules, *out->owner(), &why);
  EXPECT_NE(r.rule, nullptr) << op->name() << ": " << why;
  if (!r.rule) return r;
  std::vector<Tensor> host_in, want(1), got(1);
  for (const Tensor& t : inputs) host_in.push_back(t.to_host());
  op->perform(host_in, want);
  r.rule->make(device(), *out->owner(), config)(inputs, got);
  r.got = got[0].to_host();
  r.want = want[0];
  return r;
}

// run_through_rule, expecting the self-contained rule `rule_name` and the reference's values:
// float64 bit for bit (kernels that sum in double in the reference loops' order), float32
// within `rtol32` (the host's float32 reference may run oneDNN, which sums in float32).
inline void expect_rule_matches_reference(std::span<const gpu::DeviceOpRule> rules, std::string_view rule_name,
                                          std::shared_ptr<const Op> op, const std::vector<Tensor>& inputs,
                                          double rtol32) {
  const RuleRun r = run_through_rule(rules, op, inputs);
  if (!r.rule) return;
  EXPECT_EQ(r.rule->name, rule_name);
  EXPECT_TRUE(r.rule->self_contained);
  ASSERT_EQ(r.got.dtype(), r.want.dtype());
  ASSERT_EQ(r.got.shape(), r.want.shape());
  if (r.got.dtype() == DType::Float64)
    EXPECT_TRUE(tensors_equal(r.got, r.want)) << op->name() << "\n" << r.got.str() << "\nexpected\n" << r.want.str();
  else
    EXPECT_TRUE(tensors_allclose(r.got, r.want, rtol32, rtol32))
        << op->name() << "\n" << r.got.str() << "\nexpected\n" << r.want.str();
}

}  // namespace tgc::gpu_test
