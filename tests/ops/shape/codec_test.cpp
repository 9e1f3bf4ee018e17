// Codecs of the shape family: every op and its parameters survive a saved function's JSON,
// and malformed fields are IOErrors.
#include <gtest/gtest.h>

#include "ops/core/op_codec.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "ops/shape/reshape_like.h"
#include "ops/shape/shape_of.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

TEST(ShapeCodec, Flatten) {
  for (int ndim : {1, 2, 4}) expect_codec_round_trip(Flatten(ndim));
}

TEST(ShapeCodec, ShapeOfAndReshapeLike) {
  expect_codec_round_trip(ShapeOf());
  expect_codec_round_trip(ReshapeLike());
}

TEST(ShapeCodec, Reshape) {
  expect_codec_round_trip(Reshape({5, -1}));
  expect_codec_round_trip(Reshape({}));
  expect_codec_round_trip(Reshape({0, 3, 1}));
  expect_codec_round_trip(Reshape({-1}));
}

TEST(ShapeCodec, DimShuffleKeepsPatternAndUserName) {
  expect_codec_round_trip(DimShuffle({1, 0}));
  expect_codec_round_trip(DimShuffle({-1, 0, -1}, "expand_dims"));
  expect_codec_round_trip(DimShuffle({}, "squeeze"));
  expect_codec_round_trip(DimShuffle({2, 0, 1}, "transpose"));
  // The function the user called is not in the name, but error messages say it.
  EXPECT_EQ(codec_round_trip(DimShuffle({1, 0}, "transpose"))->user_name(), "transpose");
  EXPECT_EQ(codec_round_trip(DimShuffle({0, -1}))->user_name(), "dimshuffle");
}

TEST(ShapeCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  auto read = [&](const char* tag, const Json& fields) { return read_op(Json{{"op", tag}, {"fields", fields}}, ctx); };
  EXPECT_EQ(read("Flatten", {{"ndim", 2}})->name(), "Flatten{2}");
  EXPECT_THROW(read("Flatten", Json::object()), IOError);
  EXPECT_THROW(read("Flatten", {{"ndim", "2"}}), IOError);
  EXPECT_THROW(read("Flatten", {{"ndim", 1.5}}), IOError);
  EXPECT_THROW(read("Reshape", {{"target", 5}}), IOError);
  EXPECT_THROW(read("Reshape", {{"target", Json::array({2, true})}}), IOError);
  EXPECT_EQ(read("DimShuffle", {{"pattern", {1, 0}}, {"user_name", "transpose"}})->name(), "DimShuffle{1,0}");
  EXPECT_THROW(read("DimShuffle", {{"pattern", {1, 0}}}), IOError);
  EXPECT_THROW(read("DimShuffle", {{"pattern", {1, 0}}, {"user_name", 3}}), IOError);
  EXPECT_THROW(read("DimShuffle", {{"pattern", Json::array({int64_t{1} << 40})}, {"user_name", "t"}}), IOError);
}

}  // namespace
}  // namespace tgc
