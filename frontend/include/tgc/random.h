// Public API: random streams in the graph (Theano's RandomStreams). Each draw is a symbolic
// op whose state, an int64 [key, counter] shared variable, is advanced by the draw's default
// update, so every call of a function draws new numbers; seed() starts every stream again.
// Numbers come from Philox4x32-10 and are the same on every device (docs/random.md).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <vector>

#include <tgc/math.h>
#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// The shape of a draw: static dims ({64, 100}), or the run-time shape of a tensor (like), so
// a dropout mask follows the batch: rng.binomial(DrawSize::like(h), 1, 0.5).
struct DrawSize {
  std::vector<int64_t> dims{};
  Var like{};  // defined: take its shape when the function runs
  DrawSize(std::initializer_list<int64_t> d) : dims(d) {}  // NOLINT: implicit by design
  DrawSize(std::vector<int64_t> d) : dims(std::move(d)) {}  // NOLINT
  static DrawSize like_of(const Var& x) {
    DrawSize s{std::vector<int64_t>{}};
    s.like = x;
    return s;
  }
};

class RandomStreams {
 public:
  // Streams seeded with `seed`: the k-th draw made gets the key philox::stream_key(seed, k)
  // (a mixing hash of both), so draws are independent streams.
  explicit RandomStreams(uint64_t seed = 0);

  // Uniform in [low, high): low + (high - low) * u, u in [0, 1) (float32 from 24 random bits,
  // float64 from 53). low/high may be Vars (broadcast against the draw). dtype: floatX.
  Var uniform(const DrawSize& size, const Operand& low = 0.0, const Operand& high = 1.0,
              std::optional<DType> dtype = std::nullopt);
  // Normal: avg + std * z, z standard normal (Box-Muller in double, rounded to the dtype).
  Var normal(const DrawSize& size, const Operand& avg = 0.0, const Operand& std = 1.0,
             std::optional<DType> dtype = std::nullopt);
  // Binomial(n, p) counts: the sum of n Bernoulli(p) trials (u < p for n uniforms each); p may
  // be a Var. n > 1 needs a static size. dtype int64 by default (floatX for a dropout mask).
  Var binomial(const DrawSize& size, int64_t n = 1, const Operand& p = 0.5, DType dtype = DType::Int64);
  // Integers in [low, high) (NumPy's randint; Theano's random_integers is randint(low, high + 1)).
  Var randint(const DrawSize& size, int64_t low, int64_t high, DType dtype = DType::Int64);
  // Elements of arange(a) (int64), or of the 1-d tensor `a` (of static length), uniformly; with
  // replace=false no element twice (the first prod(size) of a permutation; needs a static size).
  // p (a vector of a weights, any float dtype; with replace only): element k with probability
  // p[k] / sum(p), by comparing a float64 uniform with the cumulated weights.
  Var choice(const DrawSize& size, int64_t a, bool replace = true, const Var& p = Var());
  Var choice(const DrawSize& size, const Var& a, bool replace = true, const Var& p = Var());
  // A random ordering of 0 .. n-1 (int64).
  Var permutation(int64_t n);

  // Starts every stream of these streams again from `seed` (made and future draws).
  void seed(uint64_t seed);
  // The shared state of each draw made so far, in order (its default update advances it).
  std::vector<Shared> states() const;

 private:
  struct Impl;
  Shared new_state(const std::string& what);
  Var weighted_choice(const DrawSize& size, int64_t a, bool replace, const Var& p);
  std::shared_ptr<Impl> impl_;
};

TGC_API_END
}  // namespace tgc
