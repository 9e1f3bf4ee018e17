// The codecs of the nn family: Softmax and LogSoftmax, LogSoftmaxGrad, SoftmaxCrossEntropy
// (with and without a scale, non-finite scales too) and LogSumExp survive a saved function's
// JSON; malformed fields are IOErrors.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "ops/core/op_codec.h"
#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/logsumexp.h"
#include "ops/nn/softmax.h"
#include "ops/nn/softmax_cross_entropy.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

TEST(NnCodec, SoftmaxAndLogSoftmax) {
  for (int axis : {0, 1, 3})
    for (bool log : {false, true})
      for (DType floatx : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}) {
        const Softmax op(axis, log, floatx);
        expect_codec_round_trip(op);
        auto back = std::dynamic_pointer_cast<const Softmax>(codec_round_trip(op));
        ASSERT_TRUE(back != nullptr);
        EXPECT_EQ(back->floatx(), floatx);
        EXPECT_EQ(back->log(), log);
      }
}

TEST(NnCodec, LogSoftmaxGrad) {
  for (int axis : {0, 1, 5}) expect_codec_round_trip(LogSoftmaxGrad(axis));
}

TEST(NnCodec, SoftmaxCrossEntropyKeepsItsScaleExactly) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (int axis : {0, 1, 2}) {
    expect_codec_round_trip(SoftmaxCrossEntropy(axis, std::nullopt));
    for (double scale : {-0.25, -1.0 / 3, 0.1, 1e-300, -0.0, 0.0, 4.9e-324, 1e308, kInf, -kInf}) {
      const SoftmaxCrossEntropy op(axis, scale);
      expect_codec_round_trip(op);
      auto back = std::dynamic_pointer_cast<const SoftmaxCrossEntropy>(codec_round_trip(op));
      ASSERT_TRUE(back != nullptr && back->scale().has_value());
      EXPECT_EQ(std::bit_cast<uint64_t>(*back->scale()), std::bit_cast<uint64_t>(scale)) << op.name();
    }
  }
  // NaN: not equal to itself, so only its name and its being NaN are checked.
  auto back = std::dynamic_pointer_cast<const SoftmaxCrossEntropy>(
      codec_round_trip(SoftmaxCrossEntropy(1, std::numeric_limits<double>::quiet_NaN())));
  ASSERT_TRUE(back != nullptr && back->scale().has_value());
  EXPECT_TRUE(std::isnan(*back->scale()));
  EXPECT_EQ(back->name(), SoftmaxCrossEntropy(1, std::numeric_limits<double>::quiet_NaN()).name());
}

TEST(NnCodec, LogSumExp) {
  for (const ReduceAxes& axes : {ReduceAxes(), ReduceAxes(std::vector<int>{}), ReduceAxes(std::vector<int>{1}),
                                 ReduceAxes(std::vector<int>{0, 2})})
    for (bool keepdims : {false, true})
      for (DType floatx : {DType::Float32, DType::Float64, DType::Float16})
        expect_codec_round_trip(LogSumExp(axes, keepdims, floatx));
}

TEST(NnCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  const Json softmax = write_op(Softmax(1, true, DType::Float64), ctx);
  const Json lsg = write_op(LogSoftmaxGrad(1), ctx);
  const Json sce = write_op(SoftmaxCrossEntropy(1, -0.5), ctx);
  const Json lse = write_op(LogSumExp(std::vector<int>{0}, false, DType::Float32), ctx);
  for (const Json& good : {softmax, lsg, sce, lse}) ASSERT_NO_THROW(read_op(good, ctx)) << good.dump();
  EXPECT_THROW(read_op(with_field(softmax, "axis", -1), ctx), IOError);
  EXPECT_THROW(read_op(with_field(softmax, "axis", "1"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(softmax, "log", "yes"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(softmax, "floatx", "int8"), ctx), IOError);
  EXPECT_THROW(read_op(without_field(softmax, "floatx"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(lsg, "axis", 1.5), ctx), IOError);
  EXPECT_THROW(read_op(without_field(lsg, "axis"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(sce, "scale", "big"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(sce, "scale", true), ctx), IOError);
  EXPECT_THROW(read_op(without_field(sce, "scale"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(lse, "axes", Json::array({1, 0})), ctx), IOError);
  EXPECT_THROW(read_op(with_field(lse, "axes", 0), ctx), IOError);
  EXPECT_THROW(read_op(with_field(lse, "floatx", "bool"), ctx), IOError);
}

}  // namespace
}  // namespace tgc
