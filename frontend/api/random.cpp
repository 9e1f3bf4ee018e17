// RandomStreams: each draw makes a state shared variable (int64 [key, counter], its key from
// the streams' seed and the draw's number), a RandomDraw node reading it, and registers the
// node's second output as the state's default update. Parameters (low/high, avg/std, p) are
// ordinary elementwise graph ops around the standard draw, so they broadcast, may be Vars and
// fuse with what follows.
#include <tgc/random.h>

#include <fmt/format.h>

#include <functional>
#include <mutex>

#include <tgc/indexing.h>
#include <tgc/linalg.h>
#include <tgc/reductions.h>
#include <tgc/shape.h>

#include "frontend/api/default_updates.h"
#include "ops/core/apply.h"
#include "ops/random/philox.h"
#include "ops/random/random_draw.h"
#include "ops/random/random_permutation.h"
#include "ops/shape/shape_of.h"
#include "runtime/error.h"

namespace tgc {

struct RandomStreams::Impl {
  std::mutex mutex;
  uint64_t seed = 0;
  std::vector<Shared> states;
};

namespace {

Tensor state_value(uint64_t seed, uint64_t index) {
  return Tensor::from_vector(std::vector<int64_t>{static_cast<int64_t>(philox::stream_key(seed, index)), 0}, {2});
}

// The draw's node: (draws, new state), the new state registered as the state's default update.
// The op (whose constructor checks the arguments) and `like` are checked before the state is
// made, so a draw that fails takes no stream number: later draws keep their keys.
Var draw(const std::function<Shared()>& make_state, std::shared_ptr<const Op> op, const DrawSize& size) {
  VarPtr like = size.like.defined() ? checked_ptr(size.like) : nullptr;
  // Theano's size=x.shape (shape_of(x)): x's shape, not the shape of the shape vector.
  if (like && like->owner() && reads_only_metadata(like->owner()->op())) like = like->owner()->inputs()[0];
  const Shared state = make_state();
  std::vector<VarPtr> inputs = {state.ptr()};
  if (like) inputs.push_back(like);
  std::vector<VarPtr> outs = apply(std::move(op), std::move(inputs));
  register_default_update(state.ptr(), outs[1], /*weak=*/true);
  return Var(outs[0]);
}

std::optional<Shape> static_size(const DrawSize& size) {
  if (size.like.defined()) return std::nullopt;
  return Shape(size.dims.begin(), size.dims.end());
}

bool is_number(const Operand& o, double v) { return o.is_literal() && o.value() == v; }

}  // namespace

RandomStreams::RandomStreams(uint64_t seed) : impl_(std::make_shared<Impl>()) { impl_->seed = seed; }

Shared RandomStreams::new_state(const std::string& what) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const uint64_t index = impl_->states.size();
  Shared s = shared(state_value(impl_->seed, index), fmt::format("{}_rng_{}", what, index));
  impl_->states.push_back(s);
  return s;
}

// A half dtype is drawn as float32 and rounded once at the end, as NumPy's
// rng.uniform(...).astype(numpy.float16) gives (docs/precision.md).
static DType draw_dtype(DType t) { return is_half(t) ? DType::Float32 : t; }

Var RandomStreams::uniform(const DrawSize& size, const Operand& low, const Operand& high, std::optional<DType> dtype) {
  const DType t = dtype.value_or(floatX());
  Var u = draw([this] { return new_state("uniform"); },
               std::make_shared<RandomDraw>(Distribution::Uniform, draw_dtype(t), static_size(size)), size);
  if (is_number(low, 0) && is_number(high, 1)) return u.dtype() == t ? u : cast(u, t);
  // Two numbers: their difference in double, so a float64 draw's scale is not a floatX literal.
  const Operand scale = low.is_literal() && high.is_literal() ? Operand(high.value() - low.value()) : Operand(sub(high, low));
  Var out = add(low, mul(scale, u));
  return out.dtype() == t ? out : cast(out, t);
}

Var RandomStreams::normal(const DrawSize& size, const Operand& avg, const Operand& std, std::optional<DType> dtype) {
  const DType t = dtype.value_or(floatX());
  Var z = draw([this] { return new_state("normal"); },
               std::make_shared<RandomDraw>(Distribution::Normal, draw_dtype(t), static_size(size)), size);
  if (is_number(avg, 0) && is_number(std, 1)) return z.dtype() == t ? z : cast(z, t);
  Var out = add(avg, mul(std, z));
  return out.dtype() == t ? out : cast(out, t);
}

Var RandomStreams::binomial(const DrawSize& size, int64_t n, const Operand& p, DType dtype) {
  if (n < 1)
    throw ValueError(fmt::format("binomial: n is {}", n), "RandomStreams.binomial",
                     "give the number of trials, n >= 1");
  if (n > 1 && size.like.defined())
    throw ValueError("binomial: n > 1 needs a static size", "RandomStreams.binomial",
                     "give the size as dims, or sum n draws with n = 1");
  // float64 uniforms: p itself is compared with 53 random bits, not 24.
  if (n == 1) {
    Var u = draw([this] { return new_state("binomial"); },
                 std::make_shared<RandomDraw>(Distribution::Uniform, DType::Float64, static_size(size)), size);
    return cast(lt(u, p), dtype);
  }
  std::vector<int64_t> dims = size.dims;
  dims.push_back(n);
  Var u = draw([this] { return new_state("binomial"); },
               std::make_shared<RandomDraw>(Distribution::Uniform, DType::Float64, Shape(dims)),
               DrawSize(dims));
  // A Var p gains the trials' axis to broadcast against them.
  Var trials;
  if (p.is_literal()) {
    trials = lt(u, p);
  } else {
    std::vector<int> pattern;
    for (int d = 0; d < p.var().ndim(); ++d) pattern.push_back(d);
    pattern.push_back(-1);
    trials = lt(u, dimshuffle(p.var(), pattern));
  }
  return sum(cast(trials, DType::Int64), Axes{static_cast<int>(dims.size()) - 1}).astype(dtype);
}

Var RandomStreams::randint(const DrawSize& size, int64_t low, int64_t high, DType dtype) {
  return draw([this] { return new_state("randint"); },
              std::make_shared<RandomDraw>(Distribution::Integers, dtype, static_size(size), low, high), size);
}

Var RandomStreams::permutation(int64_t n) {
  auto op = std::make_shared<RandomPermutation>(n);  // checks n before a stream number is taken
  Shared state = new_state("permutation");
  std::vector<VarPtr> outs = apply(std::move(op), {state.ptr()});
  register_default_update(state.ptr(), outs[1], /*weak=*/true);
  return Var(outs[0]);
}

Var RandomStreams::weighted_choice(const DrawSize& size, int64_t a, bool replace, const Var& p) {
  const VarPtr& w = checked_ptr(p);
  if (!replace)
    throw ValueError("choice with weights p draws with replacement only", "RandomStreams.choice",
                     "pass replace=true, or leave p out for a choice without replacement");
  if (w->type().ndim() != 1 || (w->type().shape[0] != kUnknownDim && w->type().shape[0] != a) ||
      !is_float(w->type().dtype))
    throw TypeError(fmt::format("choice: p is a {}, not a float vector of a = {} weights", w->type().str(), a),
                    "RandomStreams.choice(" + w->label() + ")", "give one weight per element to choose from");
  // c[j] = p[0] + ... + p[j] (a product with the upper-triangular ones), cdf = c / c[a-1] but
  // the last; element k is drawn when cdf[k-1] <= u < cdf[k], so the index is the number of
  // cdf entries at or below u (a zero weight's interval is empty).
  Tensor tri = Tensor::zeros(DType::Float64, {a, a});
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = i; j < a; ++j) tri.data<double>()[i * a + j] = 1.0;
  Var c = dot(cast(p, DType::Float64), constant(tri));
  Var cdf = true_div(c[{slice(0, a - 1)}], c[{slice(a - 1, a)}]);
  Var u = uniform(size, 0.0, 1.0, DType::Float64);
  std::vector<int> pattern;
  for (int d = 0; d < u.ndim(); ++d) pattern.push_back(d);
  pattern.push_back(-1);
  return sum(cast(ge(dimshuffle(u, pattern), cdf), DType::Int64), Axes{u.ndim()});
}

Var RandomStreams::choice(const DrawSize& size, int64_t a, bool replace, const Var& p) {
  if (a < 1)
    throw ValueError(fmt::format("choice: a is {}", a), "RandomStreams.choice",
                     "choose from arange(a) with a >= 1 elements");
  if (p.defined()) return weighted_choice(size, a, replace, p);
  if (replace) return randint(size, 0, a, DType::Int64);
  if (size.like.defined())
    throw ValueError("choice without replacement needs a static size", "RandomStreams.choice",
                     "give the size as dims");
  int64_t k = 1;
  for (int64_t d : size.dims) k *= d;
  if (k > a)
    throw ValueError(fmt::format("choice: {} elements without replacement from {}", k, a), "RandomStreams.choice",
                     "draw at most a elements, or pass replace=true");
  Var first = permutation(a)[{slice(0, k)}];
  return size.dims.size() == 1 ? first : reshape(first, size.dims);
}

Var RandomStreams::choice(const DrawSize& size, const Var& a, bool replace, const Var& weights) {
  const VarPtr& v = checked_ptr(a);
  if (v->type().ndim() != 1 || v->type().shape[0] == kUnknownDim)
    throw TypeError("choice: a is a " + v->type().str() + ", not a vector of static length",
                    "RandomStreams.choice(" + v->label() + ")",
                    "pass a vector whose length the type knows, or choose indices with choice(size, n)");
  return take(a, choice(size, v->type().shape[0], replace, weights));
}

void RandomStreams::seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->seed = seed;
  for (size_t k = 0; k < impl_->states.size(); ++k) impl_->states[k].set_value(state_value(seed, k));
}

std::vector<Shared> RandomStreams::states() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->states;
}

}  // namespace tgc
