// Codecs of the alloc family: every op with its shapes, bounds and dtypes survives a saved
// function's JSON (bounds exactly), and malformed fields are IOErrors.
#include <gtest/gtest.h>

#include <memory>

#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/arange_like.h"
#include "ops/alloc/eye.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

TEST(AllocCodec, AllocAndFill) {
  expect_codec_round_trip(Alloc({}));
  expect_codec_round_trip(Alloc({2, 3}));
  expect_codec_round_trip(Alloc({0, 5, 1}));
  expect_codec_round_trip(Fill());
}

TEST(AllocCodec, ArangeKeepsBoundsExactlyAndDType) {
  for (DType dtype : kAllDTypes) expect_codec_round_trip(Arange(0, 10, 3, dtype));
  expect_codec_round_trip(Arange(1.5, -2.25, -0.5, DType::Float32));
  expect_codec_round_trip(Arange(-7, 7, 2, DType::Int8));
  const Arange op(0.1, 1.0 / 3.0, 1e-300, DType::Float64);
  const std::shared_ptr<const Op> read = codec_round_trip(op);
  const auto& back = dynamic_cast<const Arange&>(*read);
  EXPECT_EQ(back.start(), 0.1);
  EXPECT_EQ(back.stop(), 1.0 / 3.0);
  EXPECT_EQ(back.step(), 1e-300);
  EXPECT_EQ(back.dtype(), DType::Float64);
}

TEST(AllocCodec, ArangeLike) {
  for (int axis : {0, 1, 5}) expect_codec_round_trip(ArangeLike(axis));
}

TEST(AllocCodec, Eye) {
  for (DType dtype : kAllDTypes) expect_codec_round_trip(Eye(3, 4, 1, dtype));
  expect_codec_round_trip(Eye(2, 2, -1, DType::Int8));
  expect_codec_round_trip(Eye(0, 0, 0, DType::Float32));
  expect_codec_round_trip(Eye(5, 3, -7, DType::Float64));
}

TEST(AllocCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  auto read = [&](const char* tag, const Json& fields) { return read_op(Json{{"op", tag}, {"fields", fields}}, ctx); };
  const Json arange = {{"start", 0}, {"stop", 4}, {"step", 1}, {"dtype", "int32"}};
  EXPECT_EQ(read("Arange", arange)->name(), "Arange{start=0, stop=4, step=1, dtype=int32}");
  for (const char* key : {"start", "stop", "step", "dtype"}) {
    Json missing = arange;
    missing.erase(key);
    EXPECT_THROW(read("Arange", missing), IOError) << key;
    Json wrong = arange;
    wrong[key] = true;
    EXPECT_THROW(read("Arange", wrong), IOError) << key;
  }
  Json bad_dtype = arange;
  bad_dtype["dtype"] = "float13";
  EXPECT_THROW(read("Arange", bad_dtype), IOError);
  EXPECT_THROW(read("Alloc", {{"shape", "2, 3"}}), IOError);
  EXPECT_THROW(read("Alloc", Json::object()), IOError);
  EXPECT_THROW(read("ArangeLike", {{"axis", -1}}), IOError);
  EXPECT_THROW(read("ArangeLike", {{"axis", 0.5}}), IOError);
  EXPECT_THROW(read("Eye", {{"n", 3}, {"m", 3}, {"dtype", "float32"}}), IOError);
  EXPECT_THROW(read("Eye", {{"n", 3}, {"m", "3"}, {"k", 0}, {"dtype", "float32"}}), IOError);
}

}  // namespace
}  // namespace tgc
