// RandomDraw's type rule and its reference perform: Philox blocks in counter order, each
// element from its own block's words (ops/random/philox.h), on the host's threads when the draw
// is large. Any split of the elements gives the same numbers.
#include "ops/random/random_draw.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <thread>

#include "ops/core/node.h"
#include "ops/random/philox.h"
#include "runtime/convert.h"
#include "runtime/error.h"

namespace tgc {

std::string_view distribution_name(Distribution d) {
  switch (d) {
    case Distribution::Uniform: return "uniform";
    case Distribution::Normal: return "normal";
    case Distribution::Integers: return "randint";
  }
  return "?";
}

namespace {

// The inclusive range of an integer dtype, as int64 (uint64's upper end is clipped: the
// bounds are int64).
std::pair<int64_t, int64_t> dtype_range(DType t) {
  return dispatch_dtype(t, [&]<typename T>() -> std::pair<int64_t, int64_t> {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const int64_t lo = static_cast<int64_t>(std::numeric_limits<T>::min());
      const int64_t hi = std::numeric_limits<T>::max() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                             ? std::numeric_limits<int64_t>::max()
                             : static_cast<int64_t>(std::numeric_limits<T>::max());
      return {lo, hi};
    } else {
      return {0, 0};
    }
  });
}

}  // namespace

RandomDraw::RandomDraw(Distribution dist, DType dtype, std::optional<Shape> size, int64_t low, int64_t high)
    : dist_(dist), dtype_(dtype), size_(std::move(size)), low_(low), high_(high) {
  const std::string op(distribution_name(dist));
  if (dist == Distribution::Integers) {
    if (!is_integer(dtype))
      throw TypeError(fmt::format("{}: dtype {} is not an integer dtype", op, dtype_name(dtype)), "",
                      "draw integers as int64 (the default) or another integer dtype");
    if (low >= high)
      throw ValueError(fmt::format("{}: low ({}) must be below high ({})", op, low, high), "",
                       "the draws lie in [low, high): give high > low");
    const auto [lo, hi] = dtype_range(dtype);
    // high is exclusive: high - 1 must fit, as NumPy's randint requires.
    if (low < lo || high - 1 > hi)
      throw ValueError(fmt::format("{}: [{}, {}) does not fit dtype {}", op, low, high, dtype_name(dtype)), "",
                       "choose a wider integer dtype or a smaller range");
  } else if (dtype != DType::Float32 && dtype != DType::Float64) {
    throw TypeError(fmt::format("{}: dtype {} is not float32 or float64", op, dtype_name(dtype)), "",
                    "draw floats as float32 or float64 and cast the result");
  }
  if (size_)
    for (int64_t d : *size_)
      if (d < 0)
        throw ValueError(fmt::format("{}: size {} has a negative dim", op, shape_str(*size_)), "",
                         "give each dim as a count >= 0");
}

int RandomDraw::per_block() const {
  return philox::elements_per_block(dist_ == Distribution::Uniform && dtype_ == DType::Float32);
}

std::string RandomDraw::name() const {
  std::string s = fmt::format("Random{{{}, {}", distribution_name(dist_), dtype_name(dtype_));
  if (dist_ == Distribution::Integers) s += fmt::format(", low={}, high={}", low_, high_);
  s += size_ ? ", size=" + shape_str(*size_) : std::string(", size=like");
  return s + "}";
}

std::string RandomDraw::user_name() const { return std::string(distribution_name(dist_)); }

void check_random_state_type(const Type& state, const std::string& op) {
  if (state.dtype != DType::Int64 || state.ndim() != 1 || (state.shape[0] != kUnknownDim && state.shape[0] != 2))
    throw TypeError(op + ": the random state is a " + state.str() + ", not an int64 vector of 2 elements", "",
                    "pass the state shared variable a RandomStreams made (tgc::RandomStreams, docs/random.md)");
}

std::pair<uint64_t, uint64_t> read_random_state(const Tensor& state, const std::string& op) {
  if (state.dtype() != DType::Int64 || state.ndim() != 1 || state.shape()[0] != 2)
    throw ValueError(op + ": the random state has shape " + shape_str(state.shape()) + " and dtype " +
                         std::string(dtype_name(state.dtype())) + ", not int64 (2,)",
                     "", "set the state's value to int64 [key, counter] (RandomStreams::seed does)");
  const Tensor s = state.to_host().contiguous();
  const int64_t* p = s.data<int64_t>();
  return {static_cast<uint64_t>(p[0]), static_cast<uint64_t>(p[1])};
}

std::vector<Type> RandomDraw::infer_types(const std::vector<Type>& inputs) const {
  const std::string op(distribution_name(dist_));
  const size_t want = size_ ? 1 : 2;
  if (inputs.size() != want)
    throw TypeError(fmt::format("{} takes {} input{}, got {}", op, want, want == 1 ? "" : "s", inputs.size()), "",
                    "the inputs are the state, then (without a static size) the tensor whose shape to draw");
  check_random_state_type(inputs[0], op);
  Type out = size_ ? Type(dtype_, *size_) : Type(dtype_, inputs[1].shape);
  return {out, Type(DType::Int64, {2})};
}

std::vector<Shape> RandomDraw::infer_shapes(const std::vector<Shape>& inputs) const {
  if (!size_ && inputs.size() < 2) throw ShapeError("random draw without a size or a like input", "", "");
  if (inputs.empty() || inputs[0] != Shape{2})
    throw ShapeError(std::string(distribution_name(dist_)) + ": the random state has shape " +
                         shape_str(inputs.empty() ? Shape{} : inputs[0]) + ", not (2,)",
                     "", "set the state's value to int64 [key, counter] (RandomStreams::seed does)");
  return {size_ ? *size_ : inputs[1], Shape{2}};
}

void RandomDraw::validate(const std::vector<Tensor>& inputs) const {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  infer_shapes(shapes);
}

namespace {

// Fills elements [first, last) of `out` (n elements) for blocks counted from `counter`.
template <typename T>
void fill_range(const RandomDraw& op, T* out, int64_t first, int64_t last, uint64_t key, uint64_t counter) {
  const int e = op.per_block();
  const uint64_t range = static_cast<uint64_t>(op.high()) - static_cast<uint64_t>(op.low());
  for (int64_t i = first; i < last;) {
    const int64_t b = i / e;
    const philox::Words w = philox::block_words(key, counter + static_cast<uint64_t>(b));
    const int64_t end = std::min<int64_t>(last, (b + 1) * e);
    std::array<double, 2> z{};
    if (op.distribution() == Distribution::Normal) z = philox::normal_pair(w);
    for (; i < end; ++i) {
      const int k = static_cast<int>(i - b * e);  // the element's place in its block
      if constexpr (is_float_type_v<T>) {
        if (op.distribution() == Distribution::Normal) out[i] = static_cast<T>(z[k]);
        else if constexpr (std::is_same_v<T, float>) out[i] = philox::to_float32(w[k]);
        else out[i] = static_cast<T>(philox::to_float64(w[2 * k], w[2 * k + 1]));
      } else if constexpr (!std::is_same_v<T, bool>) {
        out[i] = static_cast<T>(philox::to_integer(w[2 * k + 1], w[2 * k], op.low(), range));
      }
    }
  }
}

}  // namespace

void RandomDraw::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const std::string op(distribution_name(dist_));
  const auto [key, counter] = read_random_state(inputs.at(0), op);
  const Shape shape = size_ ? *size_ : inputs.at(1).shape();
  Tensor& out = ensure_output(outputs[0], dtype_, shape);
  const int64_t n = out.numel();
  dispatch_dtype(dtype_, [&]<typename T>() {
    T* p = out.data<T>();
    // Large draws split into whole blocks over a few threads; the numbers do not depend on it.
    constexpr int64_t kPerThread = 1 << 18;
    const int64_t e = per_block();
    const int threads = static_cast<int>(
        std::clamp<int64_t>(n / kPerThread, 1, std::max(1u, std::min(8u, std::thread::hardware_concurrency()))));
    if (threads == 1) return fill_range<T>(*this, p, 0, n, key, counter);
    const int64_t chunk = (n / threads + e - 1) / e * e;
    std::vector<std::thread> team;
    for (int t = 1; t < threads; ++t)
      team.emplace_back([&, t] { fill_range<T>(*this, p, std::min(n, t * chunk), std::min(n, (t + 1) * chunk), key, counter); });
    fill_range<T>(*this, p, 0, std::min(n, chunk), key, counter);
    for (std::thread& th : team) th.join();
  });
  Tensor& next = ensure_output(outputs[1], DType::Int64, {2});
  next.data<int64_t>()[0] = static_cast<int64_t>(key);
  next.data<int64_t>()[1] = static_cast<int64_t>(counter + philox::blocks_for(static_cast<uint64_t>(n), per_block()));
}

std::vector<std::shared_ptr<Variable>> RandomDraw::grad(const Node& node,
                                                        const std::vector<std::shared_ptr<Variable>>&) const {
  return std::vector<std::shared_ptr<Variable>>(node.inputs().size());
}

}  // namespace tgc
