// nd::uniform / nd::normal / nd::seed: random values made on a device by the same Philox draw
// (ops/random/random_draw.h) RandomStreams uses, from one eager stream per device whose state,
// an int64 [key, counter] tensor, lives on that device and is advanced by every draw. Every
// device starts from the same state for a seed, so the same sequence of draws gives the same
// numbers on each (docs/random.md's guarantee). The draw's shape comes from a `like` operand,
// a stride-0 view of one element (its values are never read): one compiled call per dtype and
// rank, whatever the size.
#include <tgc/eager.h>
#include <tgc/math.h>

#include <map>
#include <mutex>

#include "frontend/api/eager/eager_expr.h"
#include "ops/core/apply.h"
#include "ops/random/philox.h"
#include "ops/random/random_draw.h"

namespace tgc::nd {

namespace {

struct Streams {
  std::mutex mutex;
  uint64_t seed = 0;
  std::map<Device*, Tensor> state;  // per device, made from `seed` on first use
};

Streams& streams() {
  static Streams* s = new Streams;  // never destroyed: used until exit
  return *s;
}

Tensor initial_state(uint64_t seed, Device& device) {
  const Tensor host = Tensor::from_vector<int64_t>({static_cast<int64_t>(philox::stream_key(seed, 0)), 0});
  return device.kind() == DeviceKind::Host ? host : host.to(device);
}

// Draws `dist` values of `dtype` and `shape` on `device`, then `finish` (an expression of the
// draw: the scale and shift) applied in the same compiled call.
Tensor draw(Distribution dist, const Shape& shape, DType dtype, Device& device, const std::function<Var(const Var&)>& finish) {
  Device& d = eager_impl::eager_device(device);
  Streams& s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);  // two threads never draw the same numbers
  auto it = s.state.find(&d);
  if (it == s.state.end()) it = s.state.emplace(&d, initial_state(s.seed, d)).first;
  const Tensor like = eager_impl::shape_carrier(shape, d);
  auto op = std::make_shared<RandomDraw>(dist, dtype, std::nullopt);
  std::vector<Tensor> out = eager_multi(
      [&](const std::vector<Var>& v) {
        std::vector<VarPtr> r = apply(op, {v[0].ptr(), v[1].ptr()});
        return std::vector<Var>{finish(Var(r[0])), Var(r[1])};
      },
      {it->second, like});
  it->second = out.at(1);
  return out.at(0);
}

DType float_dtype(std::optional<DType> dtype, const char* what) {
  const DType t = dtype ? *dtype : global_config().floatX;
  if (t != DType::Float32 && t != DType::Float64)
    throw TypeError(std::string("nd::") + what + ": dtype " + std::string(dtype_name(t)) + " is not a float type", "",
                    "draw float32 or float64 values, then cast");
  return t;
}

}  // namespace

Tensor uniform(const Shape& shape, double low, double high, std::optional<DType> dtype, Device& device) {
  const DType t = float_dtype(dtype, "uniform");
  return draw(Distribution::Uniform, shape, t, device, [&](const Var& u) {
    if (low == 0 && high == 1) return u;
    Var out = low + (high - low) * u;
    return out.dtype() == t ? out : cast(out, t);
  });
}

Tensor normal(const Shape& shape, double mean, double stddev, std::optional<DType> dtype, Device& device) {
  const DType t = float_dtype(dtype, "normal");
  return draw(Distribution::Normal, shape, t, device, [&](const Var& z) {
    if (mean == 0 && stddev == 1) return z;
    Var out = mean + stddev * z;
    return out.dtype() == t ? out : cast(out, t);
  });
}

void seed(uint64_t value) {
  Streams& s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.seed = value;
  s.state.clear();
}

}  // namespace tgc::nd
