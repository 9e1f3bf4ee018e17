// Codecs of the blas family: Dot, BatchedDot, Outer, Gemm and Gemv with every flag survive a
// saved function's JSON, the user's call included, and malformed fields are IOErrors.
#include <gtest/gtest.h>

#include <memory>

#include "ops/blas/batched_dot.h"
#include "ops/blas/dot.h"
#include "ops/blas/gemm.h"
#include "ops/blas/outer.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

TEST(BlasCodec, DotAndBatchedDotKeepTheUsersCall) {
  expect_codec_round_trip(Dot());
  expect_codec_round_trip(Dot("matmul"));
  expect_codec_round_trip(BatchedDot());
  expect_codec_round_trip(BatchedDot("matmul"));
  // The call is not in the name, but error messages say it.
  EXPECT_EQ(codec_round_trip(Dot("matmul"))->user_name(), "matmul");
  EXPECT_EQ(codec_round_trip(Dot())->user_name(), "dot");
  EXPECT_EQ(codec_round_trip(BatchedDot("matmul"))->user_name(), "matmul");
  EXPECT_EQ(codec_round_trip(BatchedDot())->user_name(), "batched_dot");
}

TEST(BlasCodec, Outer) { expect_codec_round_trip(Outer()); }

TEST(BlasCodec, GemmEveryFlag) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (bool inplace : {false, true}) {
        expect_codec_round_trip(Gemm(ta, tb, inplace));
        auto back = std::dynamic_pointer_cast<const Gemm>(codec_round_trip(Gemm(ta, tb, inplace)));
        ASSERT_TRUE(back);
        EXPECT_EQ(back->trans_a(), ta);
        EXPECT_EQ(back->trans_b(), tb);
        EXPECT_EQ(back->inplace(), inplace);
        EXPECT_EQ(back->inplace_input(0), inplace ? ScaledMatmul::kC : -1);
      }
}

TEST(BlasCodec, GemvEveryFlag) {
  for (bool ta : {false, true})
    for (bool inplace : {false, true}) {
      expect_codec_round_trip(Gemv(ta, inplace));
      auto back = std::dynamic_pointer_cast<const Gemv>(codec_round_trip(Gemv(ta, inplace)));
      ASSERT_TRUE(back);
      EXPECT_EQ(back->trans_a(), ta);
      EXPECT_FALSE(back->trans_b());
      EXPECT_EQ(back->inplace(), inplace);
    }
}

TEST(BlasCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  EXPECT_THROW(read_op(Json{{"op", "Dot"}, {"fields", Json::object()}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "Dot"}, {"fields", {{"user_name", 3}}}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "BatchedDot"}, {"fields", {{"user_name", ""}}}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "Outer"}, {"fields", 7}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "Gemm"}, {"fields", {{"trans_a", true}, {"trans_b", false}}}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "Gemm"}, {"fields", {{"trans_a", 1}, {"trans_b", false}, {"inplace", false}}}}, ctx),
               IOError);
  EXPECT_THROW(read_op(Json{{"op", "Gemv"}, {"fields", {{"trans_a", "no"}, {"inplace", false}}}}, ctx), IOError);
}

}  // namespace
}  // namespace tgc
