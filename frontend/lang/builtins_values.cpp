// Builtin rows: concrete values — NumPy-compatible random generators (module-level with
// seed=, or methods of a RandomState), empty/zeros/ones/full/arange/eye, arrays and load(),
// each on the host or on the device its device= argument names.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "frontend/lang/builtins.h"
#include "frontend/lang/concrete.h"
#include "frontend/lang/convert.h"

namespace tgc::lang {

namespace {

// The stream a generator draws from: the RandomState of rng.rand(...), a fresh one for
// seed=, else the program's default stream.
RandomState& stream(Args& a, std::unique_ptr<RandomState>& owned) {
  if (a.rng) {
    if (!a.is_none("seed"))
      a.fail("seed", "seed= is for the module-level generators", "a RandomState keeps its own stream: drop seed=");
    return *a.rng;
  }
  if (a.is_none("seed")) return a.ctx.stream;
  const int64_t seed = a.integer("seed");
  if (seed < 0 || seed > int64_t{0xFFFFFFFF})
    a.fail("seed", fmt::format("seed {} is out of range", seed), "a seed is an integer from 0 to 2**32 - 1, as in NumPy");
  owned = std::make_unique<RandomState>(seed);
  return *owned;
}

// The shape of `size` (None: a 0-d value), checked against the limits.
Shape size_shape(Args& a, std::string_view param) {
  Shape shape;
  if (!a.is_none(param)) shape = a.int_list(param);
  check_shape(shape, a.ctx, a.arg(param).pos, a.fn.name);
  return shape;
}

Shape rest_shape(Args& a) {
  Shape shape = a.rest_ints();
  check_shape(shape, a.ctx, a.rest().empty() ? a.pos : a.rest()[0].pos, a.fn.name);
  return shape;
}

Tensor with_dtype(Args& a, Tensor t) {
  if (auto d = a.dtype("dtype")) return t.astype(*d);
  return t;
}

// The device= argument's device; null for the host.
Device* device_arg(Args& a) {
  Device* d = device_of_name(a.value("device"), a.ctx, a.arg("device").pos, a.what("device"));
  return d && d->kind() == DeviceKind::Host ? nullptr : d;
}

// A value made on the host, moved to the device= argument's device. The generators draw on the
// host, so a seed gives NumPy's numbers on every device.
Value placed(Args& a, Tensor t) {
  if (Device* d = device_arg(a)) return to_device(t, *d);
  return t;
}

// zeros, ones and empty: on a device, filled there by a kernel (nd::full), not copied over.
template <int Fill>
Value filled(Args& a) {
  const Shape shape = rest_shape(a);
  const DType t = a.required_dtype("dtype");
  if (Device* d = device_arg(a)) return Fill < 0 ? nd::empty(shape, t, *d) : nd::full(shape, Fill, t, *d);
  return Fill < 0 ? Tensor::empty(t, shape) : Tensor::full(t, shape, Fill);
}

template <Tensor (RandomState::*Gen)(const Shape&)>
Value standard(Args& a) {
  std::unique_ptr<RandomState> owned;
  RandomState& rs = stream(a, owned);
  const Shape shape = rest_shape(a);
  return placed(a, with_dtype(a, (rs.*Gen)(shape)));
}

Value random_sample_(Args& a) {
  std::unique_ptr<RandomState> owned;
  RandomState& rs = stream(a, owned);
  const Shape shape = size_shape(a, "size");
  return placed(a, with_dtype(a, rs.random_sample(shape)));
}

Value uniform_(Args& a) {
  std::unique_ptr<RandomState> owned;
  RandomState& rs = stream(a, owned);
  const Shape shape = size_shape(a, "size");
  return placed(a, with_dtype(a, rs.uniform(a.number("low"), a.number("high"), shape)));
}

Value normal_(Args& a) {
  std::unique_ptr<RandomState> owned;
  RandomState& rs = stream(a, owned);
  const Shape shape = size_shape(a, "size");
  if (a.number("scale") < 0) a.fail("scale", "normal(): scale must be >= 0", "scale is a standard deviation");
  return placed(a, with_dtype(a, rs.normal(a.number("loc"), a.number("scale"), shape)));
}

Value randint_(Args& a) {
  std::unique_ptr<RandomState> owned;
  RandomState& rs = stream(a, owned);
  int64_t low = a.integer("low");
  int64_t high = 0;
  if (a.is_none("high")) {
    high = low;
    low = 0;
  } else {
    high = a.integer("high");
  }
  if (low >= high)
    a.fail_at(a.arg("low").pos, fmt::format("randint(): low ({}) must be less than high ({})", low, high),
              "randint(low, high) draws from [low, high); randint(n) from [0, n)");
  const Shape shape = size_shape(a, "size");
  return placed(a, rs.randint(low, high, shape, a.required_dtype("dtype")));
}

Value full_(Args& a) {
  Shape shape = a.int_list("shape");
  check_shape(shape, a.ctx, a.arg("shape").pos, "full");
  const Value& v = a.value("fill_value");
  if (!v.is_number()) a.fail("fill_value", "full(): fill_value must be a number, got " + v.describe(), "e.g. full((2, 3), 0.5)");
  DType t = v.is_bool() ? DType::Bool : v.is_int() ? DType::Int64 : DType::Float64;
  if (auto d = a.dtype("dtype")) t = *d;
  if (v.is_int() && t == DType::Int64) {  // exact beyond 2**53, where a double is not
    Tensor out = Tensor::empty(t, shape);
    int64_t* p = out.data<int64_t>();
    for (int64_t i = 0; i < out.numel(); ++i) p[i] = v.as_int();
    return placed(a, out);
  }
  if (Device* d = device_arg(a)) return nd::full(shape, v.as_double(), t, *d);
  return Tensor::full(t, shape, v.as_double());
}

Value arange_(Args& a) {
  // arange(shape_of(y)[0]): the indices of a dim known only when the function runs.
  if (a.value("start").is_var() && a.is_none("stop"))
    return tgc::arange(a.var("start"));
  double start = a.number("start"), stop = 0, step = a.number("step");
  if (a.is_none("stop")) {
    stop = start;
    start = 0;
  } else {
    stop = a.number("stop");
  }
  if (step == 0) a.fail("step", "arange(): step must not be 0", "e.g. arange(0, 10, 2)");
  const bool all_int = a.scalar_value("start").is_int() && (a.is_none("stop") || a.scalar_value("stop").is_int()) &&
                       a.scalar_value("step").is_int();
  const DType t = a.dtype("dtype").value_or(all_int ? DType::Int64 : DType::Float64);
  const double count = std::ceil((stop - start) / step);
  if (!std::isfinite(count))
    a.fail_at(a.pos, "arange(): the number of values is not finite", "give finite start, stop and step");
  const int64_t n = count > 0 ? (count > 9e18 ? INT64_MAX : static_cast<int64_t>(count)) : 0;
  check_shape({n}, a.ctx, a.pos, "arange");
  Tensor out = Tensor::empty(t, {n});
  if (all_int && t == DType::Int64) {
    const int64_t s = a.integer("start"), d = a.integer("step");
    const int64_t from = a.is_none("stop") ? 0 : s;
    int64_t* p = out.data<int64_t>();
    // Wrapping arithmetic: no overflow is possible within [start, stop), and none is UB.
    for (int64_t i = 0; i < n; ++i)
      p[i] = static_cast<int64_t>(static_cast<uint64_t>(from) + static_cast<uint64_t>(i) * static_cast<uint64_t>(d));
    return placed(a, out);
  }
  Tensor f = Tensor::empty(DType::Float64, {n});
  double* p = f.data<double>();
  for (int64_t i = 0; i < n; ++i) p[i] = start + static_cast<double>(i) * step;
  return placed(a, f.astype(t));
}

Value eye_(Args& a) {
  const int64_t n = a.integer("N");
  const int64_t m = a.opt_integer("M").value_or(n);
  const int64_t k = a.integer("k");
  check_shape({n, m}, a.ctx, a.arg("N").pos, "eye");
  Tensor out = Tensor::zeros(DType::Float64, {n, m});
  double* p = out.data<double>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = i + k;
    if (j >= 0 && j < m) p[i * m + j] = 1;
  }
  return placed(a, with_dtype(a, out));
}

Value load_(Args& a) {
  const std::string path = a.string("path");
  if (!a.ctx.limits.allow_load) a.fail("path", "load() is disabled here", "this evaluation may not read files");
  std::filesystem::path p(path);
  if (p.is_relative() && !a.ctx.base_dir.empty()) p = std::filesystem::path(a.ctx.base_dir) / p;
  std::error_code ec;
  if (!std::filesystem::exists(p, ec))
    a.fail("path", fmt::format("cannot read '{}': no such file", p.string()),
           "relative paths start at the .tg file's folder");
  if (!std::filesystem::is_regular_file(p, ec))
    a.fail("path", fmt::format("cannot read '{}': not a regular file", p.string()), "load() reads .npy files");
  try {
    Tensor t = read_npy(p.string());
    check_shape(t.shape(), a.ctx, a.arg("path").pos, "load");
    return t;
  } catch (const SourceError&) {
    throw;
  } catch (const Error& e) {
    a.fail("path", e.what_part(), e.hint().empty() ? "load() reads NumPy .npy files (np.save)" : e.hint());
  }
}

Value array_(Args& a) {
  const Value& v = a.value("object");
  if (v.is_number() || v.is_sequence()) return placed(a, array_from(v, a.dtype("dtype"), a.ctx, a.arg("object").pos));
  Tensor t = with_dtype(a, a.tensor("object"));  // a device value converts there
  Device* d = device_arg(a);
  return d && &t.device() != d ? to_device(t, *d) : t;
}

Value random_state_(Args& a) {
  const int64_t seed = a.integer("seed");
  if (seed < 0 || seed > int64_t{0xFFFFFFFF})
    a.fail("seed", fmt::format("seed {} is out of range", seed), "a seed is an integer from 0 to 2**32 - 1, as in NumPy");
  return std::make_shared<RandomState>(seed);
}

}  // namespace

std::vector<BuiltinRow> value_builtins() {
  return {
      {"rand", "*shape, seed=None, dtype=None, device=None", "uniform on [0, 1), as numpy.random.rand (float64 unless dtype=)",
       standard<&RandomState::rand>, kRngMethod},
      {"randn", "*shape, seed=None, dtype=None, device=None", "standard normal, as numpy.random.randn", standard<&RandomState::randn>,
       kRngMethod},
      {"random_sample", "size=None, seed=None, dtype=None, device=None", "uniform on [0, 1) of shape size, as numpy.random.random_sample",
       random_sample_, kRngMethod},
      {"randint", "low, high=None, size=None, dtype=\"int64\", seed=None, device=None",
       "integers on [low, high) (on [0, low) without high), as numpy.random.randint", randint_, kRngMethod},
      {"uniform", "low=0.0, high=1.0, size=None, seed=None, dtype=None, device=None", "uniform on [low, high)", uniform_, kRngMethod},
      {"normal", "loc=0.0, scale=1.0, size=None, seed=None, dtype=None, device=None", "normal with mean loc and deviation scale",
       normal_, kRngMethod},
      {"RandomState", "seed", "numpy.random.RandomState(seed): a stream with the methods rand, randn, randint, ...",
       random_state_},
      {"empty", "*shape, dtype=\"float64\", device=None", "a value of a shape whose elements are not set (NumPy's and mxnet's empty)",
       filled<-1>},
      {"zeros", "*shape, dtype=\"float64\", device=None", "zeros of a shape: zeros(3, 4) or zeros((3, 4)); device=\"cuda\" makes them there",
       filled<0>},
      {"ones", "*shape, dtype=\"float64\", device=None", "ones of a shape", filled<1>},
      {"full", "shape, fill_value, dtype=None, device=None", "fill_value everywhere; dtype from fill_value (int64, float64 or bool)", full_},
      {"arange", "start, stop=None, step=1, dtype=None, device=None",
       "evenly spaced values in [start, stop); int64 for integers; arange(shape_of(y)[0]): y's row indices, sized when the function runs",
       arange_},
      {"eye", "N, M=None, k=0, dtype=\"float64\", device=None", "N x M with ones on the k-th diagonal", eye_},
      {"array", "object, dtype=None, device=None", "an array from nested lists: bools give bool, integers int64, floats floatX",
       array_},
      {"asarray", "object, dtype=None, device=None", "object as an array of dtype: asarray(rand(10), floatX)", array_},
      {"load", "path", "the array in a NumPy .npy file (relative to the .tg file)", load_},
  };
}

}  // namespace tgc::lang
