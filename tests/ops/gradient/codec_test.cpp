// The codecs of the gradient ops: StopGradient and SumToLike survive a saved function's JSON,
// and any field (they have none) is an IOError. Built into compiler_tests, beside the ops'
// other tests (tests/compiler/grad_test.cpp).
#include <gtest/gtest.h>

#include "ops/core/op_codec.h"
#include "ops/gradient/stop_gradient.h"
#include "ops/gradient/sum_to_like.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

TEST(GradientCodec, StopGradientAndSumToLike) {
  expect_codec_round_trip(StopGradient());
  expect_codec_round_trip(SumToLike());
  MemoryOpContext ctx;
  EXPECT_EQ(write_op(StopGradient(), ctx), (Json{{"op", "StopGradient"}, {"fields", Json::object()}}));
  EXPECT_EQ(write_op(SumToLike(), ctx), (Json{{"op", "SumToLike"}, {"fields", Json::object()}}));
}

TEST(GradientCodec, FieldsAreIOErrors) {
  MemoryOpContext ctx;
  for (const char* tag : {"StopGradient", "SumToLike"}) {
    EXPECT_NO_THROW(read_op(Json{{"op", tag}}, ctx)) << tag;  // fields may be left out
    EXPECT_THROW(read_op(Json{{"op", tag}, {"fields", {{"axis", 0}}}}, ctx), IOError) << tag;
    EXPECT_THROW(read_op(Json{{"op", tag}, {"fields", "none"}}, ctx), IOError) << tag;
    EXPECT_THROW(read_op(Json{{"op", tag}, {"fields", Json::array()}}, ctx), IOError) << tag;
  }
}

}  // namespace
}  // namespace tgc
