// The random-draw kernels as one C-family translation unit: the Philox4x32-10 helper, then one
// entry per (distribution, dtype). See render_random.h for the ABI; ops/random/philox.h is the
// host's arithmetic this follows exactly (the same words, the same exact conversions).
#include "backends/c_family/render_random.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/c_family/dialect.h"
#include "backends/c_family/render_template.h"
#include "runtime/error.h"

namespace tgc::cfam {

namespace {

using tmpl::Ptr;
using tmpl::Tokens;

std::vector<RandomKernel> make_list() {
  std::vector<RandomKernel> l;
  for (DType t : {DType::Float32, DType::Float64}) l.push_back({RandomDist::Uniform, t});
  for (DType t : {DType::Float32, DType::Float64}) l.push_back({RandomDist::Normal, t});
  for (DType t : {DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8})
    l.push_back({RandomDist::Integers, t});
  l.push_back({RandomDist::Permutation, DType::Int64});
  return l;
}

const char* dist_name(RandomDist d) {
  switch (d) {
    case RandomDist::Uniform: return "uniform";
    case RandomDist::Normal: return "normal";
    case RandomDist::Integers: return "randint";
    case RandomDist::Permutation: return "permutation";
  }
  return "?";
}

// Philox4x32-10 on (counter (lo, hi, 0, 0), key (k0, k1)): the paper's constants; each 32x32
// product as its high word ($MULHI: __umulhi, mul_hi) and its low word, and the rounds
// unrolled. A 64-bit product per round, as written first, made the float32 draw of 2^28
// values take 0.318 ms on an H200 against 0.260 ms this way (docs/performance.md).
const char* kPhilox = R"(typedef struct { unsigned int x, y, z, w; } tgc_words;
$HELPER tgc_words tgc_philox($U64 counter, $U64 key) {
  unsigned int c0 = (unsigned int)counter, c1 = (unsigned int)(counter >> 32), c2 = 0u, c3 = 0u;
  unsigned int k0 = (unsigned int)key, k1 = (unsigned int)(key >> 32);
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    if (r > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    const unsigned int m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
    const unsigned int h0 = $MULHI(m0, c0), l0 = m0 * c0, h1 = $MULHI(m1, c2), l1 = m1 * c2;
    const unsigned int n0 = h1 ^ c1 ^ k0, n2 = h0 ^ c3 ^ k1;
    c1 = l1; c3 = l0; c0 = n0; c2 = n2;
  }
  tgc_words w; w.x = c0; w.y = c1; w.z = c2; w.w = c3;
  return w;
}
$HELPER double tgc_unit53(unsigned int hi, unsigned int lo) {
  return (double)((($U64)(hi >> 5)) << 26 | ($U64)(lo >> 6)) * (1.0 / 9007199254740992.0);
}
)";

// The loop over a thread's blocks and the final state; $BODY makes block b's elements from w.
const char* kEntry = R"(  const $U64 n = ($U64)P.v[0];
  const $U64 key = ($U64)state[0], base = ($U64)state[1];
  const $U64 nb = (n + $E - 1) / $E;
  const $U64 stride = ($U64)$GDIM * ($U64)$BDIM;
  for ($U64 b = ($U64)$BID * ($U64)$BDIM + ($U64)$TID; b < nb; b += stride) {
    const tgc_words w = tgc_philox(base + b, key);
    const $U64 i = b * $E;
$BODY  }
  if ($BID == 0 && $TID == 0) { next[0] = state[0]; next[1] = ($I64)(base + nb); }
}
)";

// The shuffle of ops/random/random_permutation.h on one thread: step k swaps position
// n-1-k with the index of words (2(k%2)+1, 2(k%2)) of block base + k/2.
std::string permutation_entry(const DialectHooks& d) {
  const std::string mulhi = d.cuda() ? "__umul64hi" : "mul_hi";
  return R"(  if ($BID != 0 || $TID != 0) return;
  const $U64 n = ($U64)P.v[0];
  const $U64 key = ($U64)state[0], base = ($U64)state[1];
  for ($U64 i = 0; i < n; ++i) out[i] = ($I64)i;
  const $U64 steps = n > 1 ? n - 1 : 0;
  tgc_words w; w.x = w.y = w.z = w.w = 0u;
  for ($U64 k = 0; k < steps; ++k) {
    if ((k & 1) == 0) w = tgc_philox(base + k / 2, key);
    const $U64 i = n - 1 - k;
    const $U64 bits = (k & 1) ? ((($U64)w.w << 32) | ($U64)w.z) : ((($U64)w.y << 32) | ($U64)w.x);
    const $U64 j = )" + mulhi + R"((bits, i + 1);
    const $I64 t = out[i]; out[i] = out[j]; out[j] = t;
  }
  next[0] = state[0]; next[1] = ($I64)(base + (steps + 1) / 2);
}
)";
}

std::string body(const DialectHooks& d, const RandomKernel& k) {
  switch (k.dist) {
    case RandomDist::Permutation: return "";
    case RandomDist::Uniform:
      if (k.dtype == DType::Float32) {
        const std::string v = "    const float f0 = (float)(w.x >> 8) * (1.0f / 16777216.0f), f1 = (float)(w.y >> 8) * "
                              "(1.0f / 16777216.0f),\n"
                              "                f2 = (float)(w.z >> 8) * (1.0f / 16777216.0f), f3 = (float)(w.w >> 8) * "
                              "(1.0f / 16777216.0f);\n";
        const std::string vec = d.cuda() ? "make_float4(f0, f1, f2, f3)" : "(float4)(f0, f1, f2, f3)";
        return v + "    if (P.v[3] && i + 4 <= n) { " + d.vector_store(DType::Float32, 4, "out", "b", vec) +
               " } else {\n"
               "      if (i < n) out[i] = f0;\n      if (i + 1 < n) out[i + 1] = f1;\n"
               "      if (i + 2 < n) out[i + 2] = f2;\n      if (i + 3 < n) out[i + 3] = f3;\n    }\n";
      }
      return "    out[i] = tgc_unit53(w.x, w.y);\n    if (i + 1 < n) out[i + 1] = tgc_unit53(w.z, w.w);\n";
    case RandomDist::Normal:
      // 1 - u1 is in (0, 1]; each step one rounded operation, as the host computes it.
      return "    const double u1 = tgc_unit53(w.x, w.y), u2 = tgc_unit53(w.z, w.w);\n"
             "    const double r = sqrt(-2.0 * log(1.0 - u1));\n"
             "    const double a = 6.283185307179586 * u2;\n"
             "    out[i] = ($T)(r * cos(a));\n"
             "    if (i + 1 < n) out[i + 1] = ($T)(r * sin(a));\n";
    case RandomDist::Integers: {
      const std::string mulhi = d.cuda() ? "__umul64hi" : "mul_hi";
      return "    const $U64 low = ($U64)P.v[1], range = ($U64)P.v[2];\n"
             "    out[i] = ($T)($I64)(low + " + mulhi + "((($U64)w.y << 32) | ($U64)w.x, range));\n"
             "    if (i + 1 < n) out[i + 1] = ($T)($I64)(low + " + mulhi + "((($U64)w.w << 32) | ($U64)w.z, range));\n";
    }
  }
  return "";
}

std::string entry(const DialectHooks& d, const RandomKernel& k) {
  const std::string T = memory_type(k.dtype, d.dialect());
  const std::string I64 = d.i64();
  std::string s = tmpl::open_entry(d, random_entry_name(k), {{T, false, "out"}, {I64, true, "state"}, {I64, false, "next"}},
                                   "tgc_random_params");
  Tokens t = tmpl::dialect_tokens(d);
  t.insert({{"T", T}, {"E", std::to_string(random_per_block(k))}, {"BODY", body(d, k)}});
  if (k.dist == RandomDist::Permutation) return tmpl::subst(s + permutation_entry(d), t);
  // $BODY's own tokens ($T, $U64, $I64) are filled by a second pass.
  return tmpl::subst(tmpl::subst(s + kEntry, t), t);
}

}  // namespace

const std::vector<RandomKernel>& random_kernels() {
  static const std::vector<RandomKernel> list = make_list();
  return list;
}

int random_entry(const RandomKernel& k) {
  const auto& l = random_kernels();
  const auto it = std::find(l.begin(), l.end(), k);
  return it == l.end() ? -1 : static_cast<int>(it - l.begin());
}

std::string random_entry_name(const RandomKernel& k) {
  return fmt::format("tgc_random_{}_{}", dist_name(k.dist), dtype_name(k.dtype));
}

int random_per_block(const RandomKernel& k) {
  return k.dist == RandomDist::Uniform && k.dtype == DType::Float32 ? 4 : 2;
}

std::string render_random(Dialect dialect, int only_entry) {
  const DialectHooks d(dialect);
  Tokens t = tmpl::dialect_tokens(d);
  t.insert({"HELPER", d.helper_qualifier()});
  t.insert({"MULHI", d.cuda() ? "__umulhi" : "mul_hi"});
  std::string s = d.prelude();
  s += fmt::format("typedef struct {{ {} v[{}]; }} tgc_random_params;\n", d.i64(), kRandomParams);
  s += tmpl::subst(kPhilox, t);
  const auto& list = random_kernels();
  for (size_t e = 0; e < list.size(); ++e)
    if (only_entry < 0 || static_cast<size_t>(only_entry) == e) s += "\n" + entry(d, list[e]);
  return s;
}

}  // namespace tgc::cfam
