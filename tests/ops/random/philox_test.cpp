// Philox4x32-10 against the known-answer vectors of Salmon et al.'s paper (the Random123
// distribution's kat_vectors: zero, all-ones and pi-digit counters and keys), and the exact
// conversions of its words to draws.
#include <gtest/gtest.h>

#include <set>

#include "ops/random/philox.h"

namespace tgc::philox {
namespace {

TEST(Philox, KnownAnswerVectors) {
  EXPECT_EQ(philox4x32({0, 0, 0, 0}, 0, 0), (Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, 0xffffffff, 0xffffffff),
            (Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, 0xa4093822, 0x299f31d0),
            (Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, IsConstexprSoTheVectorsHoldAtCompileTime) {
  static_assert(philox4x32({0, 0, 0, 0}, 0, 0)[0] == 0x6627e8d5u);
}

TEST(Philox, BlockWordsPutTheBlockInCounterWordsZeroAndOne) {
  const uint64_t key = 0x299f31d0a4093822ull, block = 0x85a308d3243f6a88ull;
  EXPECT_EQ(block_words(key, block), philox4x32({0x243f6a88, 0x85a308d3, 0, 0}, 0xa4093822, 0x299f31d0));
}

TEST(Philox, Float32UniformTakesTheHigh24BitsExactly) {
  EXPECT_EQ(to_float32(0), 0.0f);
  EXPECT_EQ(to_float32(0xffffffffu), 1.0f - 0x1p-24f);  // below 1: [0, 1)
  EXPECT_EQ(to_float32(0x00000100u), 0x1p-24f);
  EXPECT_EQ(to_float32(0x000000ffu), 0.0f);  // the low 8 bits are dropped
}

TEST(Philox, Float64UniformTakes53BitsExactly) {
  EXPECT_EQ(to_float64(0, 0), 0.0);
  EXPECT_EQ(to_float64(0xffffffffu, 0xffffffffu), 1.0 - 0x1p-53);
  EXPECT_EQ(to_float64(0, 0x40u), 0x1p-53);
  EXPECT_EQ(to_float64(0x20u, 0), 0x1p-27);
}

TEST(Philox, IntegersCoverTheRangeWithoutLeavingIt) {
  EXPECT_EQ(to_integer(0, 0, -3, 7), -3);
  EXPECT_EQ(to_integer(0xffffffffu, 0xffffffffu, -3, 7), 3);
  EXPECT_EQ(to_integer(0x80000000u, 0, 10, 2), 11);  // half the bits: the upper half of the range
  // Nearly the whole int64 range: 2^63 * (2^64 - 1) / 2^64 rounds down to 2^63 - 1.
  EXPECT_EQ(to_integer(0x80000000u, 0, INT64_MIN, ~uint64_t{0}), -1);
}

TEST(Philox, NormalPairIsBoxMuller) {
  const Words w = block_words(1, 2);
  const double u1 = to_float64(w[0], w[1]), u2 = to_float64(w[2], w[3]);
  const auto z = normal_pair(w);
  const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
  EXPECT_DOUBLE_EQ(z[0], r * std::cos(2 * M_PI * u2));
  EXPECT_DOUBLE_EQ(z[1], r * std::sin(2 * M_PI * u2));
  EXPECT_DOUBLE_EQ(z[0] * z[0] + z[1] * z[1], r * r);
}

TEST(Philox, StreamKeysOfNearbySeedsAndIndicesDiffer) {
  std::set<uint64_t> keys;
  for (uint64_t seed = 0; seed < 64; ++seed)
    for (uint64_t k = 0; k < 64; ++k) keys.insert(stream_key(seed, k));
  EXPECT_EQ(keys.size(), 64u * 64u);
  // A one-bit change of the seed flips about half the key's bits.
  const int flipped = __builtin_popcountll(stream_key(1, 0) ^ stream_key(0, 0));
  EXPECT_GT(flipped, 16);
  EXPECT_LT(flipped, 48);
}

}  // namespace
}  // namespace tgc::philox
