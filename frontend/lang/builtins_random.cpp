// The .tg builtins of random streams: RandomStreams(seed) and its methods, the symbolic draws
// of <tgc/random.h> (srng.uniform(size, low, high), ...). Eager NumPy-style generators
// (rand, RandomState) are value builtins (builtins_values.cpp); these build graph ops whose
// numbers change on every call of a function.
#include <fmt/format.h>

#include "frontend/lang/builtins.h"
#include "frontend/lang/convert.h"

namespace tgc::lang {

namespace {

RandomStreams& streams(Args& a) { return *a.streams; }

// size: an int, a list/tuple of ints, or a tensor whose shape the draw takes when it runs.
DrawSize size_of(Args& a) {
  const Value& v = a.value("size");
  if (v.is_var()) return DrawSize::like_of(v.as_var());
  return DrawSize(a.int_list("size"));
}

Value random_streams_(Args& a) {
  const int64_t seed = a.integer("seed");
  if (seed < 0) a.fail("seed", fmt::format("seed {} is negative", seed), "a seed is an integer from 0 to 2**63 - 1");
  return std::make_shared<RandomStreams>(static_cast<uint64_t>(seed));
}

}  // namespace

std::vector<BuiltinRow> random_builtins() {
  constexpr Receiver kStreams = Receiver::Streams;
  return {
      {"RandomStreams", "seed=0",
       "Theano's RandomStreams(seed): symbolic draws (Philox4x32-10, the same numbers on every device) whose state "
       "advances on every call; docs/random.md",
       random_streams_},
      {"RandomStreams.uniform", "size, low=0.0, high=1.0, dtype=None",
       "uniform on [low, high) of shape size (ints, or a tensor to take the shape of); dtype floatX",
       [](Args& a) -> Value {
         return streams(a).uniform(size_of(a), a.operand("low"), a.operand("high"), a.dtype("dtype"));
       },
       kStreams},
      {"RandomStreams.normal", "size, avg=0.0, std=1.0, dtype=None", "normal with mean avg and deviation std",
       [](Args& a) -> Value {
         return streams(a).normal(size_of(a), a.operand("avg"), a.operand("std"), a.dtype("dtype"));
       },
       kStreams},
      {"RandomStreams.binomial", "size, n=1, p=0.5, dtype=\"int64\"",
       "successes in n trials of probability p (a dropout mask: binomial(h, 1, keep, floatX))",
       [](Args& a) -> Value {
         return streams(a).binomial(size_of(a), a.integer("n"), a.operand("p"), a.required_dtype("dtype"));
       },
       kStreams},
      {"RandomStreams.randint", "size, low, high, dtype=\"int64\"", "integers on [low, high), as numpy's randint",
       [](Args& a) -> Value {
         return streams(a).randint(size_of(a), a.integer("low"), a.integer("high"), a.required_dtype("dtype"));
       },
       kStreams},
      {"RandomStreams.choice", "size, a, replace=true, p=None",
       "elements of arange(a) (a an int) or of the vector a, uniformly or with weights p (with replacement); "
       "replace=false: no element twice",
       [](Args& a) -> Value {
         const Value& from = a.value("a");
         const Var p = a.is_none("p") ? Var() : a.var("p");
         if (from.is_var() || from.is_tensor())
           return streams(a).choice(size_of(a), a.var("a"), a.boolean("replace"), p);
         return streams(a).choice(size_of(a), a.integer("a"), a.boolean("replace"), p);
       },
       kStreams},
      {"RandomStreams.permutation", "n", "a random ordering of 0 .. n-1 (int64)",
       [](Args& a) -> Value { return streams(a).permutation(a.integer("n")); }, kStreams},
      {"RandomStreams.seed", "seed", "starts every stream of these streams again from seed; gives None",
       [](Args& a) -> Value {
         const int64_t seed = a.integer("seed");
         if (seed < 0) a.fail("seed", fmt::format("seed {} is negative", seed), "a seed is an integer from 0 to 2**63 - 1");
         streams(a).seed(static_cast<uint64_t>(seed));
         return Value();
       },
       kStreams},
  };
}

}  // namespace tgc::lang
