// Codecs of the random family: RandomDraw (each distribution, dtype, a static or a `like`
// size, integer bounds) and RandomPermutation survive a saved function's JSON and draw the
// same numbers from the same state; malformed or out-of-range fields are IOErrors.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "ops/core/op_codec.h"
#include "ops/random/random_draw.h"
#include "ops/random/random_permutation.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

Tensor state(int64_t key, int64_t counter) { return Tensor::from_vector(std::vector<int64_t>{key, counter}, {2}); }

std::vector<Tensor> run(const Op& op, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out(static_cast<size_t>(op.num_outputs()));
  op.perform(inputs, out);
  return out;
}

TEST(RandomCodec, RandomDrawEveryDistribution) {
  const std::vector<RandomDraw> draws{
      RandomDraw(Distribution::Uniform, DType::Float32, Shape{3, 4}),
      RandomDraw(Distribution::Uniform, DType::Float64, std::nullopt),
      RandomDraw(Distribution::Normal, DType::Float32, Shape{}),
      RandomDraw(Distribution::Normal, DType::Float64, Shape{0, 5}),
      RandomDraw(Distribution::Integers, DType::Int64, Shape{7}, -3, 9),
      RandomDraw(Distribution::Integers, DType::UInt8, std::nullopt, 0, 256),
      RandomDraw(Distribution::Integers, DType::Int32, Shape{2, 2}, -(int64_t{1} << 31), int64_t{1} << 31),
  };
  for (const RandomDraw& op : draws) {
    SCOPED_TRACE(op.name());
    expect_codec_round_trip(op);
    auto back = std::dynamic_pointer_cast<const RandomDraw>(codec_round_trip(op));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->distribution(), op.distribution());
    EXPECT_EQ(back->dtype(), op.dtype());
    EXPECT_EQ(back->size(), op.size());
    EXPECT_EQ(back->low(), op.low());
    EXPECT_EQ(back->high(), op.high());
  }
}

TEST(RandomCodec, TheOpReadBackDrawsTheSameNumbers) {
  const RandomDraw op(Distribution::Normal, DType::Float64, Shape{5});
  const std::shared_ptr<const Op> back = codec_round_trip(op);
  const std::vector<Tensor> a = run(op, {state(11, 3)}), b = run(*back, {state(11, 3)});
  EXPECT_EQ(a[0].to_vector<double>(), b[0].to_vector<double>());
  EXPECT_EQ(a[1].to_vector<int64_t>(), b[1].to_vector<int64_t>());
  const RandomPermutation perm(9);
  EXPECT_EQ(run(perm, {state(5, 0)})[0].to_vector<int64_t>(),
            run(*codec_round_trip(perm), {state(5, 0)})[0].to_vector<int64_t>());
}

TEST(RandomCodec, RandomPermutation) {
  for (int64_t n : {0, 1, 10, 1000}) expect_codec_round_trip(RandomPermutation(n));
}

TEST(RandomCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  const Json good = write_op(RandomDraw(Distribution::Integers, DType::Int64, Shape{3}, 0, 10), ctx);
  EXPECT_NO_THROW(read_op(good, ctx));
  EXPECT_THROW(read_op(Json{{"op", "RandomDraw"}, {"fields", Json::object()}}, ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "distribution", "poisson"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "dtype", "float33"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "size", 3), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "size", {3, 1.5}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "low", "0"), ctx), IOError);
  // Out of range: the checks the draw's constructor makes.
  EXPECT_THROW(read_op(with_field(good, "size", {-2}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "high", 0), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "dtype", "float32"), ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "RandomPermutation"}, {"fields", {{"n", -1}}}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "RandomPermutation"}, {"fields", {{"n", 2.5}}}}, ctx), IOError);
}

}  // namespace
}  // namespace tgc
