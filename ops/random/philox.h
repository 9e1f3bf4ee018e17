// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011) and the conversions of its words to tgc's draws, on the host. Counter-based: the
// words of block j depend only on (key, counter j), so every backend and every thread layout
// draws the same numbers. backends/c_family/render_random.cpp renders the same arithmetic as
// CUDA C and OpenCL C; docs/random.md describes the counter layout both follow.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace tgc::philox {

using Words = std::array<uint32_t, 4>;

// The paper's multipliers and Weyl key increments (the golden ratio and sqrt(3) - 1 in 0.32
// fixed point) for four 32-bit words.
inline constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
inline constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
inline constexpr int kRounds = 10;

// One round: two 32x32->64 products; their high halves are mixed with the other two words and
// the round key, their low halves move into the odd positions.
constexpr Words round(const Words& c, uint32_t k0, uint32_t k1) {
  const uint64_t p0 = uint64_t{kM0} * c[0], p1 = uint64_t{kM1} * c[2];
  return {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
          static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
}

// Philox4x32 with `rounds` rounds (10 is tgc's; fewer only for the paper's test vectors).
constexpr Words philox4x32(Words c, uint32_t k0, uint32_t k1, int rounds = kRounds) {
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    c = round(c, k0, k1);
  }
  return c;
}

// The words of block `block` of a draw whose state holds `key`: the counter is the block's
// 64-bit number in words 0 and 1 (low first), words 2 and 3 zero; the key's low half is k0.
constexpr Words block_words(uint64_t key, uint64_t block) {
  return philox4x32({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0u, 0u},
                    static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32));
}

// ---- conversions (exact, so every backend rounds the same) --------------------------------

// A float32 in [0, 1) from a word's high 24 bits: k * 2^-24.
constexpr float to_float32(uint32_t w) { return static_cast<float>(w >> 8) * (1.0f / 16777216.0f); }
// A float64 in [0, 1) from 53 bits, 27 of `hi`'s and 26 of `lo`'s: k * 2^-53 (the integer is
// formed first, so no multiply-add is left to contract differently).
constexpr double to_float64(uint32_t hi, uint32_t lo) {
  const uint64_t k = (static_cast<uint64_t>(hi >> 5) << 26) | (lo >> 6);
  return static_cast<double>(k) * (1.0 / 9007199254740992.0);
}
// An integer in [low, low + range) from 64 bits: the high half of bits * range (Lemire's
// multiply-shift without rejection; the bias is at most range / 2^64).
inline int64_t to_integer(uint32_t hi, uint32_t lo, int64_t low, uint64_t range) {
  const uint64_t bits = (static_cast<uint64_t>(hi) << 32) | lo;
  const uint64_t scaled = static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * range) >> 64);
  return static_cast<int64_t>(static_cast<uint64_t>(low) + scaled);
}
// The Box-Muller pair of a block, in double: u1, u2 from words (0, 1) and (2, 3);
// r = sqrt(-2 log(1 - u1)) (1 - u1 is in (0, 1]), z0 = r cos(2 pi u2), z1 = r sin(2 pi u2).
// Every step is one rounded operation (no a*b+c), so only the libraries' log, sqrt, cos and sin
// can differ between backends (docs/random.md: float64 normals may differ in the last place).
inline std::array<double, 2> normal_pair(const Words& w) {
  const double u1 = to_float64(w[0], w[1]), u2 = to_float64(w[2], w[3]);
  const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
  const double a = 6.283185307179586 * u2;
  return {r * std::cos(a), r * std::sin(a)};
}

// ---- the layout of a draw -----------------------------------------------------------------

// How many elements one block of four words makes, by what is drawn: float32 uniforms take a
// word each; float64 uniforms, integers and normals (a pair per block) take two words each.
constexpr int elements_per_block(bool one_word) { return one_word ? 4 : 2; }
// The blocks a draw of n elements consumes (the state's counter advances by this).
constexpr uint64_t blocks_for(uint64_t n, int per_block) { return (n + per_block - 1) / per_block; }

// ---- keys -----------------------------------------------------------------------------------

// A 64-bit finalizer (splitmix64's, Stafford's "mix13"): every input bit flips about half the
// output bits, so nearby seeds and stream numbers give unrelated keys.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// The key of stream `index` (the index-th draw made by a RandomStreams) for `seed`.
constexpr uint64_t stream_key(uint64_t seed, uint64_t index) {
  return mix64(mix64(seed) + (index + 1) * 0x9E3779B97F4A7C15ull);
}

}  // namespace tgc::philox
