// The random ops' rule without a device: every draw (each distribution and dtype the ops
// accept) and the permutation have a device rule in the shared table, self-contained, so a
// graph with draws stays whole on a GPU.
#include "backends/gpu/random_rules.h"

#include <gtest/gtest.h>

#include "ops/core/apply.h"
#include "ops/random/random_draw.h"
#include "ops/random/random_permutation.h"

namespace tgc {
namespace {

std::string rule_of(const VarPtr& out) {
  std::string why;
  const gpu::DeviceOpRule* r = gpu::find_rule(gpu::shared_device_op_rules(), *out->owner(), &why);
  if (r) EXPECT_TRUE(r->self_contained);
  return r ? std::string(r->name) : "declined: " + why;
}

TEST(RandomRules, EveryDrawAndThePermutationRunOnTheDevice) {
  const VarPtr state = Variable::input(Type(DType::Int64, {2}), "state");
  for (DType t : {DType::Float32, DType::Float64}) {
    EXPECT_EQ(rule_of(apply(std::make_shared<RandomDraw>(Distribution::Uniform, t, Shape{3}), {state})[0]), "random");
    EXPECT_EQ(rule_of(apply(std::make_shared<RandomDraw>(Distribution::Normal, t, Shape{3}), {state})[0]), "random");
  }
  for (DType t : {DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8})
    EXPECT_EQ(rule_of(apply(std::make_shared<RandomDraw>(Distribution::Integers, t, Shape{3}, 0, 100), {state})[0]),
              "random")
        << dtype_name(t);
  const VarPtr like = Variable::input(Type::unknown(DType::Float32, 2), "h");
  EXPECT_EQ(rule_of(apply(std::make_shared<RandomDraw>(Distribution::Uniform, DType::Float32, std::nullopt),
                          {state, like})[0]),
            "random");
  EXPECT_EQ(rule_of(apply(std::make_shared<RandomPermutation>(5), {state})[0]), "random");
}

}  // namespace
}  // namespace tgc
