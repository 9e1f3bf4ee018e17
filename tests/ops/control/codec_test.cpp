// The codec of the control-flow family: IfElse survives a saved function's JSON with its
// number of outputs, and malformed counts are IOErrors.
#include <gtest/gtest.h>

#include "ops/control/ifelse.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

TEST(ControlCodec, IfElseKeepsItsOutputs) {
  for (int n : {1, 2, 7}) {
    expect_codec_round_trip(IfElse(n));
    EXPECT_EQ(codec_round_trip(IfElse(n))->num_outputs(), n);
  }
}

TEST(ControlCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  EXPECT_THROW(read_op(Json{{"op", "IfElse"}, {"fields", Json::object()}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "IfElse"}, {"fields", {{"outputs", "2"}}}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "IfElse"}, {"fields", {{"outputs", 1.5}}}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "IfElse"}, {"fields", {{"outputs", 0}}}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "IfElse"}, {"fields", {{"outputs", int64_t{1} << 40}}}}, ctx), IOError);
}

}  // namespace
}  // namespace tgc
