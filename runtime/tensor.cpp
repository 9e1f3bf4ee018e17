// Tensor construction, element access, views and copies.
#include "runtime/tensor.h"

#include <cmath>
#include <cstring>
#include <numeric>

#include "runtime/convert.h"
#include "runtime/device_kernels.h"
#include "runtime/device_lock.h"
#include "runtime/pending_value.h"
#include "runtime/strided_loop.h"

namespace tgc {

Tensor Tensor::empty(DType dtype, const Shape& shape, Device& device) {
  for (int64_t d : shape)
    if (d < 0)
      throw ShapeError("negative dimension in shape " + shape_str(shape), "",
                       "every dimension must be >= 0");
  Tensor t;
  t.buffer_ = std::make_shared<Buffer>(device, static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype));
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.strides_ = contiguous_strides(shape);
  return t;
}

Tensor Tensor::zeros(DType dtype, const Shape& shape) {
  Tensor t = empty(dtype, shape);
  if (t.nbytes()) std::memset(t.raw_data(), 0, t.nbytes());
  return t;
}

Tensor Tensor::full(DType dtype, const Shape& shape, double value) {
  Tensor t = empty(dtype, shape);
  dispatch_dtype(dtype, [&]<typename T>() {
    T v = convert_value<T>(value);
    T* p = t.data<T>();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = v;
  });
  return t;
}

Tensor Tensor::view_of(std::shared_ptr<Buffer> buffer, DType dtype, Shape shape, Strides strides,
                       int64_t offset) {
  TGC_INTERNAL_CHECK(shape.size() == strides.size(), "view_of: shape and strides differ in rank");
  Tensor t;
  t.buffer_ = std::move(buffer);
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

Tensor Tensor::pending(std::shared_ptr<PendingValue> value, DType dtype, Shape shape) {
  TGC_INTERNAL_CHECK(value != nullptr, "Tensor::pending: no pending value");
  Tensor t;
  t.pending_ = std::move(value);
  t.dtype_ = dtype;
  t.strides_ = contiguous_strides(shape);
  t.shape_ = std::move(shape);
  return t;
}

bool Tensor::is_pending() const { return pending_ && !pending_->computed(); }

Device& Tensor::pending_device() const { return pending_->device(); }

const Tensor& Tensor::pending_result() const {
  const Tensor& v = pending_->value();
  TGC_INTERNAL_CHECK(v.buffer_ && !v.pending_ && v.dtype_ == dtype_ && v.shape_ == shape_,
                     "the pending value of " + pending_->describe() + " is not the " +
                         std::string(dtype_name(dtype_)) + " " + shape_str(shape_) + " it promised");
  return v;
}

bool Tensor::is_contiguous() const {
  if (pending_) return eval().is_contiguous();

  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;  // a size-1 dim's stride never matters
    if (strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

void Tensor::check_dtype(DType expected) const {
  TGC_INTERNAL_CHECK(defined(), "access to an undefined tensor");
  if (expected != dtype_)
    throw TypeError("tensor holds " + std::string(dtype_name(dtype_)) + " but was read as " +
                        std::string(dtype_name(expected)),
                    "", "convert it first with astype(" + std::string(dtype_name(expected)) + ")");
}

void* Tensor::raw_data() const {
  if (pending_) return eval().raw_data();

  TGC_INTERNAL_CHECK(defined(), "access to an undefined tensor");
  return static_cast<char*>(buffer_->data()) + offset_ * static_cast<int64_t>(dtype_size(dtype_));
}

template <typename T>
T Tensor::item() const {
  if (pending_) return eval().item<T>();

  if (numel() != 1)
    throw ValueError("item() needs a tensor with exactly one element, got shape " +
                         shape_str(shape_), "", "index or reduce the tensor first");
  Tensor host = on_host() ? *this : to(host_device());
  return dispatch_dtype(dtype_, [&]<typename S>() { return convert_value<T>(*host.data<S>()); });
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  if (pending_) return eval().to_vector<T>();

  Tensor host = on_host() ? *this : to(host_device());
  std::vector<T> out;
  out.reserve(static_cast<size_t>(numel()));
  dispatch_dtype(dtype_, [&]<typename S>() {
    const S* p = host.data<S>();
    strided_loop(host.shape_, {host.strides_},
                 [&](const int64_t* off) { out.push_back(convert_value<T>(p[off[0]])); });
  });
  return out;
}

#define TGC_INSTANTIATE(T)                     \
  template T Tensor::item<T>() const;          \
  template std::vector<T> Tensor::to_vector<T>() const;
TGC_INSTANTIATE(bool)
TGC_INSTANTIATE(int8_t)
TGC_INSTANTIATE(int16_t)
TGC_INSTANTIATE(int32_t)
TGC_INSTANTIATE(int64_t)
TGC_INSTANTIATE(uint8_t)
TGC_INSTANTIATE(float)
TGC_INSTANTIATE(double)
#undef TGC_INSTANTIATE

double Tensor::at(const std::vector<int64_t>& index) const {
  if (pending_) return eval().at(index);

  if (index.size() != shape_.size())
    throw ShapeError("at(): " + std::to_string(index.size()) + " indices for a " +
                         std::to_string(ndim()) + "-d tensor");
  int64_t off = 0;
  for (size_t d = 0; d < index.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape_[d])
      throw ValueError("at(): index " + std::to_string(index[d]) + " out of bounds for axis " +
                       std::to_string(d) + " with size " + std::to_string(shape_[d]));
    off += index[d] * strides_[d];
  }
  Tensor host = on_host() ? *this : to(host_device());
  return dispatch_dtype(dtype_, [&]<typename S>() { return convert_value<double>(host.data<S>()[off]); });
}

Tensor Tensor::view(Shape shape, Strides strides, int64_t offset) const {
  if (pending_) return eval().view(std::move(shape), std::move(strides), offset);

  return view_of(buffer_, dtype_, std::move(shape), std::move(strides), offset);
}

Tensor Tensor::transpose(const std::vector<int>& perm) const {
  if (pending_) return eval().transpose(perm);

  if (static_cast<int>(perm.size()) != ndim())
    throw ShapeError("transpose: permutation of length " + std::to_string(perm.size()) +
                     " for a " + std::to_string(ndim()) + "-d tensor");
  std::vector<bool> seen(perm.size(), false);
  Shape s(perm.size());
  Strides st(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    int p = perm[i];
    if (p < 0 || p >= ndim() || seen[p])
      throw ShapeError("transpose: " + std::to_string(p) + " is not a valid, unused axis");
    seen[p] = true;
    s[i] = shape_[p];
    st[i] = strides_[p];
  }
  return view(s, st, offset_);
}

Tensor Tensor::transpose() const {
  std::vector<int> perm(ndim());
  std::iota(perm.rbegin(), perm.rend(), 0);
  return transpose(perm);
}

Tensor Tensor::reshape(const Shape& shape) const {
  if (pending_) return eval().reshape(shape);

  if (shape_numel(shape) != numel())
    throw ShapeError("cannot reshape a tensor of shape " + shape_str(shape_) + " (" +
                     std::to_string(numel()) + " elements) into shape " + shape_str(shape));
  if (is_contiguous()) return view(shape, contiguous_strides(shape), offset_);
  return contiguous().reshape(shape);
}

Tensor Tensor::broadcast_to(const Shape& shape) const {
  if (pending_) return eval().broadcast_to(shape);

  if (shape.size() < shape_.size())
    throw ShapeError("cannot broadcast shape " + shape_str(shape_) + " to " + shape_str(shape));
  size_t lead = shape.size() - shape_.size();
  Strides st(shape.size(), 0);
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] == shape[lead + i]) st[lead + i] = strides_[i];
    else if (shape_[i] == 1) st[lead + i] = 0;
    else throw ShapeError("cannot broadcast shape " + shape_str(shape_) + " to " + shape_str(shape));
  }
  return view(shape, st, offset_);
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : copy(); }

Tensor Tensor::copy() const {
  if (pending_) return eval().copy();

  if (!on_host()) {
    DeviceUseLock use(device());
    if (is_contiguous()) {  // on the device, by its copy engine: no round trip through the host
      Tensor out = empty(dtype_, shape_, device());
      if (nbytes()) device().copy_on_device(out.raw_data(), raw_data(), nbytes(), device().default_stream());
      return out;
    }
    // A strided view: by the device's own copy kernel where its backend lent one.
    if (Tensor out = empty(dtype_, shape_, device()); dense_copy_on_device(*this, out)) return out;
    Tensor host = to(host_device());
    return host.to(device());
  }
  Tensor out = empty(dtype_, shape_, device());
  copy_elements(*this, out);
  return out;
}

Tensor Tensor::astype(DType dtype) const {
  if (pending_) return eval().astype(dtype);

  if (dtype == dtype_) return copy();
  // On a device, by the eager layer's cast kernel there (runtime/device_kernels.h); not from
  // inside a call (this thread holds a device's lock), whose own work it would wait behind.
  if (!on_host() && t_device_locks_held == 0)
    if (std::optional<Tensor> cast = device_cast(*this, dtype)) return *std::move(cast);
  DeviceUseLock use(device());
  Tensor src = on_host() ? *this : to(host_device());
  Tensor out = empty(dtype, shape_);
  copy_elements(src, out);
  return on_host() ? out : out.to(device());
}

namespace {

// From one device to another: a peer copy where the kind lends one (two GPUs), otherwise
// through the host (cuda to opencl, or a device pair without peer access).
Tensor between_devices(const Tensor& t, Device& device) {
  const Tensor src = t.contiguous();  // on t's device
  Tensor out = Tensor::empty(src.dtype(), src.shape(), device);
  {
    // Both devices' locks outside calls (a call holds its device's already), taken in one
    // order (by address) so that two copies in opposite directions cannot wait for each other.
    std::unique_lock<DeviceWorkMutex> first_lock, second_lock;
    if (t_device_locks_held == 0) {
      DeviceWorkMutex* first = &device_work_mutex(src.device());
      DeviceWorkMutex* second = &device_work_mutex(device);
      if (second < first) std::swap(first, second);
      first_lock = std::unique_lock<DeviceWorkMutex>(*first);
      second_lock = std::unique_lock<DeviceWorkMutex>(*second);
    }
    if (peer_copy(src, out)) return out;
  }
  return src.to(host_device()).to(device);
}

}  // namespace

Tensor Tensor::to(Device& device) const {
  if (pending_) return eval().to(device);

  if (&device == &this->device()) return copy();
  if (!on_host() && device.kind() != DeviceKind::Host) return between_devices(*this, device);
  // The device end of the copy (the other is the host), locked outside calls.
  DeviceUseLock use(on_host() ? device : this->device());
  if (!on_host() && !is_contiguous()) {
    // A strided device view: bring the span of memory it covers to the host (one copy, no
    // device kernel needed), view it there with the same strides, then make it dense.
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < ndim(); ++d) {
      if (shape_[d] == 0) return empty(dtype_, shape_, device);
      (strides_[d] < 0 ? lo : hi) += (shape_[d] - 1) * strides_[d];
    }
    const size_t esize = dtype_size(dtype_);
    auto span = std::make_shared<Buffer>(host_device(), static_cast<size_t>(hi - lo + 1) * esize);
    this->device().copy_to_host(span->data(), static_cast<char*>(raw_data()) + lo * static_cast<int64_t>(esize),
                                span->bytes(), this->device().default_stream());
    this->device().synchronize();
    Tensor host = view_of(std::move(span), dtype_, shape_, strides_, -lo).contiguous();
    return device.kind() == DeviceKind::Host ? host : host.to(device);
  }
  Tensor src = contiguous();
  Tensor out = empty(dtype_, shape_, device);
  if (device.kind() == DeviceKind::Host) {
    src.device().copy_to_host(out.raw_data(), src.raw_data(), nbytes(), src.device().default_stream());
    src.device().synchronize();
  } else {
    TGC_INTERNAL_CHECK(src.on_host(), "device-to-device copies across devices are not supported");
    device.copy_from_host(out.raw_data(), src.raw_data(), nbytes(), device.default_stream());
  }
  return out;
}

void copy_elements(const Tensor& src, const Tensor& dst) {
  TGC_INTERNAL_CHECK(src.on_host() && dst.on_host(), "copy_elements: tensors must be on the host");
  TGC_INTERNAL_CHECK(src.shape() == dst.shape(), "copy_elements: shapes " + shape_str(src.shape()) + " and " +
                                                     shape_str(dst.shape()) + " differ");
  if (src.dtype() != dst.dtype()) {
    dispatch_dtype(src.dtype(), [&]<typename S>() {
      dispatch_dtype(dst.dtype(), [&]<typename D>() {
        const S* in = src.data<S>();
        D* out = dst.data<D>();
        strided_loop(src.shape(), {src.strides(), dst.strides()},
                     [&](const int64_t* off) { out[off[1]] = convert_value<D>(in[off[0]]); });
      });
    });
    return;
  }
  if (src.is_contiguous() && dst.is_contiguous()) {
    if (src.nbytes()) std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
    return;
  }
  // Same dtype: move bytes, whatever the type.
  const size_t esize = dtype_size(src.dtype());
  const auto e = static_cast<int64_t>(esize);
  const char* in = static_cast<const char*>(src.raw_data());
  char* out = static_cast<char*>(dst.raw_data());
  const int nd = src.ndim();
  if (nd >= 2 && src.strides()[nd - 1] == 1 && dst.strides()[nd - 1] == 1) {
    // Rows contiguous in both (a bias row broadcast over a matrix, a slice of columns): one
    // memcpy per row instead of one per element (Gemm's addend: 256 x 512 floats took 0.4 ms).
    const Shape outer(src.shape().begin(), src.shape().end() - 1);
    const Strides src_outer(src.strides().begin(), src.strides().end() - 1);
    const Strides dst_outer(dst.strides().begin(), dst.strides().end() - 1);
    const size_t row = static_cast<size_t>(src.shape()[nd - 1]) * esize;
    strided_loop(outer, {src_outer, dst_outer},
                 [&](const int64_t* off) { std::memcpy(out + off[1] * e, in + off[0] * e, row); });
    return;
  }
  strided_loop(src.shape(), {src.strides(), dst.strides()},
               [&](const int64_t* off) { std::memcpy(out + off[1] * e, in + off[0] * e, esize); });
}

bool tensors_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  auto va = a.to_vector<double>(), vb = b.to_vector<double>();
  for (size_t i = 0; i < va.size(); ++i)
    if (!(va[i] == vb[i] || (std::isnan(va[i]) && std::isnan(vb[i])))) return false;
  return true;
}

bool tensors_allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (a.shape() != b.shape()) return false;
  auto va = a.to_vector<double>(), vb = b.to_vector<double>();
  for (size_t i = 0; i < va.size(); ++i) {
    if (std::isnan(va[i]) || std::isnan(vb[i])) {
      if (std::isnan(va[i]) != std::isnan(vb[i])) return false;
      continue;
    }
    if (va[i] == vb[i]) continue;  // equal infinities
    if (!(std::fabs(va[i] - vb[i]) <= atol + rtol * std::fabs(vb[i]))) return false;
  }
  return true;
}

}  // namespace tgc
