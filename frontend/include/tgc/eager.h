// Public API: eager operations on tensors (mxnet's nd, PyCUDA's GPUArray; docs/eager.md).
// A Tensor on any device can be computed with directly: c = a * 2 + b runs on a's device and
// gives a Tensor there. Each operation is a small graph compiled by the usual compiler and
// backends, its compiled form cached by structure, so eager code and function() share every
// kernel. Elementwise operations are recorded, not run (lazy fusion, ArrayFire's design):
// the chain runs as one fused kernel when its value is first needed (a read, a
// non-elementwise operation, Tensor::eval(), a size limit); eager_fusion=off runs each at once.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// ---- Devices ------------------------------------------------------------------------------
// A device by the name function()'s device key takes: "cpu", "cuda", "cuda:N", "opencl",
// "opencl:P:D". ConfigError when the name is malformed or the device is not available here
// (the message says why, as `tgc devices` does).
Device& device(const std::string& name);
// CUDA device N (mxnet's mx.gpu(N)); the host is host_device() (mx.cpu()).
Device& gpu_device(int ordinal = 0);
// The name device() takes for `d` ("cpu", "cuda:0", "opencl:0:1").
std::string device_name(const Device& d);

// ---- Creation (mxnet's nd.*, PyCUDA's gpuarray.*) -----------------------------------------
namespace nd {
// dtype defaults to floatX; device to the host.
Tensor empty(const Shape& shape, std::optional<DType> dtype = std::nullopt, Device& device = host_device());
Tensor zeros(const Shape& shape, std::optional<DType> dtype = std::nullopt, Device& device = host_device());
Tensor ones(const Shape& shape, std::optional<DType> dtype = std::nullopt, Device& device = host_device());
Tensor full(const Shape& shape, double value, std::optional<DType> dtype = std::nullopt, Device& device = host_device());
// NumPy's arange (dtype as tgc::arange chooses it), on `device`.
Tensor arange(double start, double stop, double step = 1, std::optional<DType> dtype = std::nullopt,
              Device& device = host_device());
// Uniform values in [low, high) / normal values (mean + stddev * z), float32 or float64,
// drawn on `device` with the Philox generator of <tgc/random.h> from one stream per device:
// every device starts from the same state for a seed, so the same sequence of draws gives
// the same numbers on each. seed() starts every device's stream again (the default seed is 0).
Tensor uniform(const Shape& shape, double low = 0, double high = 1, std::optional<DType> dtype = std::nullopt,
               Device& device = host_device());
Tensor normal(const Shape& shape, double mean = 0, double stddev = 1, std::optional<DType> dtype = std::nullopt,
              Device& device = host_device());
void seed(uint64_t seed);
// A copy of `value` on `device` (PyCUDA's to_gpu; mxnet's nd.array(..., ctx)).
Tensor array(const Tensor& value, Device& device);
}  // namespace nd

// A copy of `host` on `device`: nd::array under the name the issue tracker's users know.
Tensor to_device(const Tensor& host, Device& device);
// PyCUDA's GPUArray.get() is Tensor::to_host(): the value on the host, once the work
// producing it has run.

// ---- Any operation of the vocabulary ------------------------------------------------------
// Applies `f`, a function of one symbolic Var per tensor, to the tensors now: the graph f
// builds is compiled (or found in the cache) and run on the tensors' device. Elementwise
// graphs are recorded for lazy fusion. Every tensor must be on one device (an error names
// both otherwise). eager([](auto& v) { return softmax(v[0]); }, {x}).
Tensor eager(const std::function<Var(const std::vector<Var>&)>& f, const std::vector<Tensor>& args);
// The same for a graph of several results (one compiled call; not fused lazily).
std::vector<Tensor> eager_multi(const std::function<std::vector<Var>(const std::vector<Var>&)>& f,
                                const std::vector<Tensor>& args);

// ---- Operators and functions on tensors (NumPy broadcasting and dtype rules, as on Vars) ---
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, double b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, double b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, double b);
Tensor operator/(double a, const Tensor& b);
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, double b);
Tensor operator-(const Tensor& x);
// Comparisons give bool tensors (no == / != operators: tensors_equal compares whole tensors).
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, double b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, double b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, double b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, double b);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor neq(const Tensor& a, const Tensor& b);

Tensor maximum(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, double b);  // maximum(x, 0): relu
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, double b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor clip(const Tensor& x, double lo, double hi);
Tensor cast(const Tensor& x, DType dtype);

Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor square(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor sign(const Tensor& x);

// Reductions (not elementwise: they run at once, with any recorded chain feeding them fused
// into their kernel).
Tensor sum(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor mean(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor max(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor min(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor prod(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor argmax(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
Tensor argmin(const Tensor& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
Tensor softmax(const Tensor& x, int axis = -1);
Tensor log_softmax(const Tensor& x, int axis = -1);

Tensor dot(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);

// Shapes and indexing. Tensor's own reshape()/transpose() give views; these run as graphs.
Tensor flatten(const Tensor& x, int ndim = 1);
Tensor concatenate(const std::vector<Tensor>& xs, int axis = 0);
Tensor stack(const std::vector<Tensor>& xs, int axis = 0);
// NumPy's basic indexing, x[1, 2:5, newaxis]: index(x, {1, slice(2, 5), newaxis}).
Tensor index(const Tensor& x, const std::vector<Index>& index);
// NumPy's take: x[indices] along axis (flattened x without one); indices an integer tensor.
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int> axis = std::nullopt);

// ---- Writes (mxnet's a[:] = v and a[1:3] = v; PyCUDA's a_gpu[...] = v) ---------------------
// Writes `value` into the elements of `dst` that NumPy's basic index selects (all of them
// without an index), in place: broadcast to them and cast to dst's dtype as NumPy's
// assignment does. Every tensor sharing dst's memory sees the new values; recorded (lazily
// fused) results that read that memory are computed first, with the values from before the
// write. A value that shares dst's memory is copied first (a[1:] = a[:-1] works). On dst's
// device; a pending dst is a ValueError (eval() it first); an index array is a TypeError
// (write the result of set_subtensor instead).
void assign(const Tensor& dst, const Tensor& value);
void assign(const Tensor& dst, double value);
void assign(const Tensor& dst, const std::vector<Index>& index, const Tensor& value);
void assign(const Tensor& dst, const std::vector<Index>& index, double value);

TGC_API_END
}  // namespace tgc
