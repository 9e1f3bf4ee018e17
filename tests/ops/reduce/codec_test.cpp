// The codecs of the reduce family: CAReduce (every kind, axes, keepdims, identity_when_empty),
// Mean, ReduceCount and ArgReduce survive a saved function's JSON; malformed fields are IOErrors.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "ops/core/op_codec.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/mean.h"
#include "ops/reduce/reduce_count.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

const std::vector<ReduceAxes> kAxes = {std::nullopt, std::vector<int>{}, std::vector<int>{0},
                                       std::vector<int>{1}, std::vector<int>{0, 2}, std::vector<int>{1, 3, 4}};

TEST(ReduceCodec, CAReduceEveryKindAxesAndKeepdims) {
  for (ReduceKind kind : {ReduceKind::Sum, ReduceKind::Prod, ReduceKind::Max, ReduceKind::Min, ReduceKind::All,
                          ReduceKind::Any})
    for (const ReduceAxes& axes : kAxes)
      for (bool keepdims : {false, true}) expect_codec_round_trip(CAReduce(kind, axes, keepdims));
}

TEST(ReduceCodec, CAReduceIdentityWhenEmpty) {
  for (ReduceKind kind : {ReduceKind::Max, ReduceKind::Min})
    for (const ReduceAxes& axes : kAxes)
      for (bool keepdims : {false, true})
        for (bool identity : {false, true}) expect_codec_round_trip(CAReduce(kind, axes, keepdims, identity));
}

TEST(ReduceCodec, Mean) {
  for (const ReduceAxes& axes : kAxes)
    for (bool keepdims : {false, true})
      for (DType floatx : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16})
        expect_codec_round_trip(Mean(axes, keepdims, floatx));
}

TEST(ReduceCodec, ReduceCount) {
  for (const ReduceAxes& axes : kAxes)
    for (DType dtype : kAllDTypes) expect_codec_round_trip(ReduceCount(axes, dtype));
}

TEST(ReduceCodec, ArgReduce) {
  for (ArgKind kind : {ArgKind::Argmax, ArgKind::Argmin})
    for (std::optional<int> axis : {std::optional<int>(), std::optional<int>(0), std::optional<int>(3)})
      for (bool keepdims : {false, true}) expect_codec_round_trip(ArgReduce(kind, axis, keepdims));
}

TEST(ReduceCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  const Json careduce = write_op(CAReduce(ReduceKind::Max, std::vector<int>{0, 2}, false, true), ctx);
  const Json arg = write_op(ArgReduce(ArgKind::Argmax, 1, false), ctx);
  const Json mean = write_op(Mean(std::vector<int>{1}, true, DType::Float64), ctx);
  const Json count = write_op(ReduceCount(std::nullopt, DType::Float32), ctx);
  for (const Json& good : {careduce, arg, mean, count}) ASSERT_NO_THROW(read_op(good, ctx)) << good.dump();
  EXPECT_THROW(read_op(with_field(careduce, "kind", "Mean"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(careduce, "kind", 2), ctx), IOError);
  EXPECT_THROW(read_op(with_field(careduce, "axes", "0"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(careduce, "axes", Json::array({2, 0})), ctx), IOError);  // not canonical
  EXPECT_THROW(read_op(with_field(careduce, "axes", Json::array({0, 0})), ctx), IOError);
  EXPECT_THROW(read_op(with_field(careduce, "axes", Json::array({-1})), ctx), IOError);
  EXPECT_THROW(read_op(with_field(careduce, "axes", Json::array({0.5})), ctx), IOError);
  EXPECT_THROW(read_op(with_field(careduce, "keepdims", 0), ctx), IOError);
  EXPECT_THROW(read_op(with_field(with_field(careduce, "kind", "Sum"), "identity_when_empty", true), ctx), IOError);
  EXPECT_THROW(read_op(without_field(careduce, "identity_when_empty"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(arg, "kind", "argmid"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(arg, "axis", -1), ctx), IOError);
  EXPECT_THROW(read_op(without_field(arg, "axis"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(mean, "floatx", "int64"), ctx), IOError);
  EXPECT_THROW(read_op(without_field(mean, "keepdims"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(count, "dtype", "float31"), ctx), IOError);
  EXPECT_THROW(read_op(without_field(count, "axes"), ctx), IOError);
}

}  // namespace
}  // namespace tgc
