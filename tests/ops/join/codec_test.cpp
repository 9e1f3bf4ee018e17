// Codecs of the join family: every op and its axes and sizes survive a saved function's JSON,
// and malformed fields are IOErrors.
#include <gtest/gtest.h>

#include "ops/core/op_codec.h"
#include "ops/join/join.h"
#include "ops/join/split.h"
#include "ops/join/split_like.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

TEST(JoinCodec, ConcatenateAndStack) {
  for (int axis : {0, 1, 3, -1, -2}) {
    expect_codec_round_trip(Concatenate(axis));
    expect_codec_round_trip(Stack(axis));
  }
}

TEST(JoinCodec, Split) {
  expect_codec_round_trip(Split(0, {2, 3}));
  expect_codec_round_trip(Split(1, {1, 0, 2}));
  expect_codec_round_trip(Split(-1, {4}));
  expect_codec_round_trip(Split(2, {int64_t{1} << 40, 7}));
  EXPECT_EQ(codec_round_trip(Split(1, {1, 0, 2}))->num_outputs(), 3);
}

TEST(JoinCodec, SplitLike) {
  expect_codec_round_trip(SplitLike(0, 2));
  expect_codec_round_trip(SplitLike(-1, 3));
  expect_codec_round_trip(SplitLike(2, 1));
  EXPECT_EQ(codec_round_trip(SplitLike(1, 4))->num_outputs(), 4);
}

TEST(JoinCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  auto read = [&](const char* tag, const Json& fields) { return read_op(Json{{"op", tag}, {"fields", fields}}, ctx); };
  EXPECT_EQ(read("Split", {{"axis", 0}, {"sizes", {2, 3}}})->name(), "Split{axis=0, sizes=[2, 3]}");
  EXPECT_THROW(read("Concatenate", Json::object()), IOError);
  EXPECT_THROW(read("Concatenate", {{"axis", "0"}}), IOError);
  EXPECT_THROW(read("Stack", {{"axis", true}}), IOError);
  EXPECT_THROW(read("Stack", {{"axis", int64_t{1} << 40}}), IOError);
  EXPECT_THROW(read("Split", {{"axis", 0}}), IOError);
  EXPECT_THROW(read("Split", {{"axis", 0}, {"sizes", 2}}), IOError);
  EXPECT_THROW(read("Split", {{"axis", 0}, {"sizes", Json::array({2, 0.5})}}), IOError);
  EXPECT_THROW(read("SplitLike", {{"axis", 0}}), IOError);
  EXPECT_THROW(read("SplitLike", {{"axis", 0}, {"n", -1}}), IOError);
}

}  // namespace
}  // namespace tgc
