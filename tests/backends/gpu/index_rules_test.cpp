// The index ops' rules without a device: which rule covers each op, the reasons the forms the
// kernels leave to the host are declined with, and their place in the shared table.
#include "backends/gpu/index_rules.h"

#include <gtest/gtest.h>

#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/eye.h"
#include "ops/core/apply.h"
#include "ops/join/join.h"
#include "ops/join/split.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/shape/reshape_like.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {
namespace {

VarPtr input(DType t, int ndim) { return Variable::input(Type::unknown(t, ndim), "v"); }

// The rule the shared table picks for `out`'s node, or the reason none does.
std::string rule_of(const VarPtr& out) {
  std::string why;
  const gpu::DeviceOpRule* r = gpu::find_rule(gpu::shared_device_op_rules(), *out->owner(), &why);
  return r ? std::string(r->name) : "declined: " + why;
}

const IndexEntry kArray = IndexEntry::array();

TEST(IndexRules, EachOpHasItsRuleInTheSharedTable) {
  const VarPtr x = input(DType::Float32, 2), i = input(DType::Int32, 1);
  EXPECT_EQ(rule_of(apply1(std::make_shared<Subtensor>(IndexSpec{{IndexEntry::slice(1, 3)}}), {x})), "index view");
  EXPECT_EQ(rule_of(apply(std::make_shared<Split>(0, std::vector<int64_t>{1, 2}), {x}).at(0)), "index view");
  EXPECT_EQ(rule_of(apply1(std::make_shared<ReshapeLike>(), {x, input(DType::Float32, 1)})), "index view");
  EXPECT_EQ(rule_of(apply1(std::make_shared<AdvancedSubtensor>(IndexSpec{{kArray}}), {x, i})), "gather");
  EXPECT_EQ(rule_of(apply1(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, IndexSpec{{kArray}}), {x, x, i})),
            "scatter");
  EXPECT_EQ(rule_of(apply1(std::make_shared<ArgReduce>(ArgKind::Argmin, 1, false), {x})), "arg reduce");
  EXPECT_EQ(rule_of(apply1(std::make_shared<Concatenate>(0), {x, x})), "join");
  EXPECT_EQ(rule_of(apply1(std::make_shared<Stack>(0), {x, x})), "join");
  EXPECT_EQ(rule_of(apply1(std::make_shared<Alloc>(Shape{2, 3}), {input(DType::Float32, 0)})), "fill");
  EXPECT_EQ(rule_of(apply1(std::make_shared<Fill>(), {x, input(DType::Float32, 0)})), "fill");
  EXPECT_EQ(rule_of(apply1(std::make_shared<Arange>(0, 5, 1, DType::Int64), {})), "fill");
  EXPECT_EQ(rule_of(apply1(std::make_shared<Eye>(3, 3, 0, DType::Float32), {})), "fill");
}

TEST(IndexRules, FormsLeftToTheHostSayWhy) {
  const VarPtr x = input(DType::Float32, 3);
  const VarPtr i32 = input(DType::Int32, 1), i64 = input(DType::Int64, 1);
  EXPECT_EQ(rule_of(apply1(std::make_shared<AdvancedSubtensor>(IndexSpec{{kArray, kArray}}), {x, i32, i64})),
            "declined: index arrays of different dtypes (cast them to one)");
  const VarPtr x5 = input(DType::Float32, 5);
  EXPECT_EQ(rule_of(apply1(std::make_shared<AdvancedSubtensor>(IndexSpec{{kArray, kArray, kArray, kArray, kArray}}),
                           {x5, i32, i32, i32, i32, i32})),
            "declined: more than 4 index arrays");
  EXPECT_EQ(rule_of(apply1(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Set, IndexSpec{{kArray}}),
                           {x, input(DType::Int32, 2), i32})),
            "declined: a value of another dtype than the tensor (cast it first)");
  EXPECT_EQ(rule_of(apply1(std::make_shared<Concatenate>(0), {x, input(DType::Int32, 3)})),
            "declined: inputs of mixed dtypes (cast them to one)");
  EXPECT_EQ(rule_of(apply1(std::make_shared<ArgReduce>(ArgKind::Argmax, 0, false), {input(DType::Float32, 9)})),
            "declined: a tensor of more than 8 dims");
}

}  // namespace
}  // namespace tgc
