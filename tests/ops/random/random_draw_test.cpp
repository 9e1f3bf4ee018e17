// RandomDraw and RandomPermutation's perform: each element from its own Philox block's words
// (the layout of docs/random.md), the state advanced by the blocks used, the same numbers
// whatever the split over threads, and the type rule's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "ops/random/philox.h"
#include "ops/random/random_draw.h"
#include "ops/random/random_permutation.h"
#include "runtime/error.h"

namespace tgc {
namespace {

Tensor state(uint64_t key, uint64_t counter) {
  return Tensor::from_vector(std::vector<int64_t>{static_cast<int64_t>(key), static_cast<int64_t>(counter)}, {2});
}

std::vector<Tensor> run(const Op& op, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out(static_cast<size_t>(op.num_outputs()));
  op.perform(inputs, out);
  return out;
}

TEST(RandomDraw, Float32UniformTakesOneWordPerElement) {
  RandomDraw op(Distribution::Uniform, DType::Float32, Shape{3, 3});
  const auto out = run(op, {state(42, 7)});
  const float* p = out[0].data<float>();
  for (int i = 0; i < 9; ++i) {
    const philox::Words w = philox::block_words(42, 7 + i / 4);
    EXPECT_EQ(p[i], philox::to_float32(w[i % 4])) << i;
  }
  // 9 elements: three blocks of four.
  EXPECT_EQ(out[1].data<int64_t>()[0], 42);
  EXPECT_EQ(out[1].data<int64_t>()[1], 10);
}

TEST(RandomDraw, Float64UniformAndIntegersTakeTwoWordsPerElement) {
  RandomDraw u(Distribution::Uniform, DType::Float64, Shape{5});
  const auto out = run(u, {state(3, 0)});
  for (int i = 0; i < 5; ++i) {
    const philox::Words w = philox::block_words(3, i / 2);
    EXPECT_EQ(out[0].data<double>()[i], philox::to_float64(w[2 * (i % 2)], w[2 * (i % 2) + 1])) << i;
  }
  EXPECT_EQ(out[1].data<int64_t>()[1], 3);
  RandomDraw r(Distribution::Integers, DType::Int16, Shape{5}, -4, 9);
  const auto ints = run(r, {state(3, 0)});
  for (int i = 0; i < 5; ++i) {
    const philox::Words w = philox::block_words(3, i / 2);
    EXPECT_EQ(ints[0].data<int16_t>()[i], philox::to_integer(w[2 * (i % 2) + 1], w[2 * (i % 2)], -4, 13)) << i;
  }
}

TEST(RandomDraw, NormalsArePairsOfABlock) {
  RandomDraw op(Distribution::Normal, DType::Float32, Shape{3});
  const auto out = run(op, {state(9, 100)});
  const auto z0 = philox::normal_pair(philox::block_words(9, 100));
  const auto z1 = philox::normal_pair(philox::block_words(9, 101));
  EXPECT_EQ(out[0].data<float>()[0], static_cast<float>(z0[0]));
  EXPECT_EQ(out[0].data<float>()[1], static_cast<float>(z0[1]));
  EXPECT_EQ(out[0].data<float>()[2], static_cast<float>(z1[0]));
  EXPECT_EQ(out[1].data<int64_t>()[1], 102);
}

TEST(RandomDraw, ALargeDrawOnThreadsEqualsItsPiecesDrawnAlone) {
  // 2^20 + 3 elements split over threads: element i still comes from block i / 4.
  const int64_t n = (1 << 20) + 3;
  RandomDraw all(Distribution::Uniform, DType::Float32, Shape{n});
  const auto big = run(all, {state(5, 0)});
  RandomDraw tail(Distribution::Uniform, DType::Float32, Shape{7});
  const auto small = run(tail, {state(5, (n - 7) / 4)});  // n - 7 is a multiple of 4
  for (int i = 0; i < 7; ++i) EXPECT_EQ(big[0].data<float>()[n - 7 + i], small[0].data<float>()[i]) << i;
  EXPECT_EQ(big[1].data<int64_t>()[1], (n + 3) / 4);
}

TEST(RandomDraw, LikeTakesTheShapeOfItsInputAtRunTime) {
  RandomDraw op(Distribution::Uniform, DType::Float64, std::nullopt);
  const auto types = op.infer_types({Type(DType::Int64, {2}), Type(DType::Float32, {-1, 4})});
  EXPECT_EQ(types[0], Type(DType::Float64, {-1, 4}));
  const auto out = run(op, {state(1, 0), Tensor::zeros(DType::Float32, {3, 4})});
  EXPECT_EQ(out[0].shape(), (Shape{3, 4}));
}

TEST(RandomDraw, AnEmptyDrawLeavesTheCounter) {
  RandomDraw op(Distribution::Normal, DType::Float64, Shape{0, 3});
  const auto out = run(op, {state(1, 5)});
  EXPECT_EQ(out[0].numel(), 0);
  EXPECT_EQ(out[1].data<int64_t>()[1], 5);
}

TEST(RandomDraw, BadArgumentsSayWhatAndHow) {
  EXPECT_THROW(RandomDraw(Distribution::Integers, DType::Int64, Shape{2}, 5, 5), ValueError);
  EXPECT_THROW(RandomDraw(Distribution::Integers, DType::UInt8, Shape{2}, 0, 300), ValueError);
  EXPECT_NO_THROW(RandomDraw(Distribution::Integers, DType::UInt8, Shape{2}, 0, 256));
  EXPECT_THROW(RandomDraw(Distribution::Integers, DType::Float32, Shape{2}, 0, 2), TypeError);
  EXPECT_THROW(RandomDraw(Distribution::Uniform, DType::Int32, Shape{2}), TypeError);
  EXPECT_THROW(RandomDraw(Distribution::Uniform, DType::Float32, Shape{-2}), ValueError);
  RandomDraw op(Distribution::Uniform, DType::Float32, Shape{2});
  try {
    op.infer_types({Type(DType::Int32, {2})});
    FAIL() << "an int32 state was accepted";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("int64 vector of 2"), std::string::npos) << e.what();
  }
  std::vector<Tensor> out(2);
  EXPECT_THROW(op.perform({Tensor::zeros(DType::Int64, {3})}, out), ValueError);
}

TEST(RandomPermutation, IsAPermutationAndFollowsItsWords) {
  RandomPermutation op(1000);
  const auto out = run(op, {state(11, 3)});
  std::vector<int64_t> v(out[0].data<int64_t>(), out[0].data<int64_t>() + 1000);
  std::vector<int64_t> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(1000);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(sorted, iota);
  EXPECT_NE(v, iota);
  EXPECT_EQ(out[1].data<int64_t>()[1], 3 + 500);  // 999 swaps, two per block
  // The first swap: position 999 with the index of block 3's words 1, 0.
  const philox::Words w = philox::block_words(11, 3);
  const int64_t j = philox::to_integer(w[1], w[0], 0, 1000);
  std::vector<int64_t> again(out[0].data<int64_t>(), out[0].data<int64_t>() + 1000);
  const auto replay = run(op, {state(11, 3)});
  EXPECT_EQ(std::vector<int64_t>(replay[0].data<int64_t>(), replay[0].data<int64_t>() + 1000), again);
  EXPECT_GE(j, 0);
  EXPECT_LT(j, 1000);
}

TEST(RandomPermutation, SmallCases) {
  const auto none = run(RandomPermutation(0), {state(1, 0)});
  EXPECT_EQ(none[0].numel(), 0);
  EXPECT_EQ(none[1].data<int64_t>()[1], 0);
  const auto one = run(RandomPermutation(1), {state(1, 0)});
  EXPECT_EQ(one[0].data<int64_t>()[0], 0);
  EXPECT_THROW(RandomPermutation(-1), ValueError);
}

}  // namespace
}  // namespace tgc
