// Tensor: a dtype, a shape, element strides and an offset into a reference-counted Buffer
// on some Device. Views (transpose, slices, broadcasts) share the buffer. A tensor made by an
// eager operation may be pending (runtime/pending_value.h): its dtype, shape and device are
// known, its value is computed the first time anything reads its storage.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/dtype.h"
#include "runtime/error.h"
#include "runtime/export.h"
#include "runtime/shape.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

class PendingValue;

class Tensor {
 public:
  Tensor() = default;  // undefined: defined() is false

  // A new, uninitialised, C-contiguous tensor.
  static Tensor empty(DType dtype, const Shape& shape, Device& device = host_device());
  static Tensor zeros(DType dtype, const Shape& shape);
  static Tensor full(DType dtype, const Shape& shape, double value);
  // Copies `values` (C order) into a new host tensor of `shape`.
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, const Shape& shape);
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values) {
    return from_vector(values, Shape{static_cast<int64_t>(values.size())});
  }
  template <typename T>
  static Tensor scalar(T value) { return from_vector(std::vector<T>{value}, Shape{}); }
  // A view over existing storage.
  static Tensor view_of(std::shared_ptr<Buffer> buffer, DType dtype, Shape shape,
                        Strides strides, int64_t offset);
  // A tensor of `dtype` and `shape` whose value `value` computes when first needed (eager
  // operations, docs/eager.md). Reading its storage (strides, data, buffer, views, copies)
  // computes it; dtype, shape and device do not.
  static Tensor pending(std::shared_ptr<PendingValue> value, DType dtype, Shape shape);

  bool defined() const { return buffer_ != nullptr || pending_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return eval().strides_; }
  int64_t offset() const { return eval().offset_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return shape_numel(shape_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  Device& device() const { return pending_ ? pending_device() : buffer_->device(); }
  bool on_host() const { return defined() && device().kind() == DeviceKind::Host; }
  const std::shared_ptr<Buffer>& buffer() const { return eval().buffer_; }
  bool is_contiguous() const;

  // The concrete tensor: itself, or for a pending tensor its value, computed now if it was
  // not yet (the fused kernel of the recorded chain runs; asynchronous on a device). Errors
  // of the recorded work surface here, naming the operation.
  const Tensor& eval() const { return pending_ ? pending_result() : *this; }
  // Whether the value is still to be computed (an eager chain recorded, not run).
  bool is_pending() const;
  // The recorded computation of a pending tensor (also once computed); null for others.
  const std::shared_ptr<PendingValue>& pending_value() const { return pending_; }

  // Pointer to element [0, ..., 0]; T must match dtype() (checked).
  template <typename T>
  T* data() const;
  void* raw_data() const;

  // The single element of a size-1 tensor, converted to T.
  template <typename T>
  T item() const;
  // Every element, in C order, converted to T.
  template <typename T>
  std::vector<T> to_vector() const;
  // One element by index, converted to double (for tests and printing).
  double at(const std::vector<int64_t>& index) const;

  // Views and copies.
  Tensor view(Shape shape, Strides strides, int64_t offset) const;  // same buffer
  Tensor transpose(const std::vector<int>& perm) const;
  Tensor transpose() const;  // reverse the axes, like NumPy's .T
  Tensor reshape(const Shape& shape) const;  // a view when contiguous, else a copy
  Tensor broadcast_to(const Shape& shape) const;  // stride-0 view; throws ShapeError
  Tensor contiguous() const;  // itself when already contiguous, else a copy
  Tensor copy() const;        // always a fresh contiguous copy on the same device
  Tensor astype(DType dtype) const;  // a converted copy (NumPy's astype)
  Tensor to(Device& device) const;   // a contiguous copy on `device`
  // A device result's value on the host (waits for the work producing it); a host tensor
  // is returned as it is.
  Tensor to_host() const { return on_host() ? *this : to(host_device()); }
  // Waits until the work producing this tensor has run (its device's stream); raises the
  // device's asynchronous errors. A no-op on the host.
  void sync() const {
    if (defined() && !on_host()) device().synchronize();
  }

  bool shares_buffer(const Tensor& other) const {
    const std::shared_ptr<Buffer>& mine = buffer();
    return mine && mine == other.buffer();
  }
  long buffer_use_count() const { return buffer().use_count(); }

  // NumPy-style text: "[1.23178029 1.61879337 ... 1.62323284]", summarised past 1000 elements.
  std::string str() const;

 private:
  void check_dtype(DType expected) const;
  const Tensor& pending_result() const;  // pending_->value(), checked against dtype and shape
  Device& pending_device() const;
  std::shared_ptr<Buffer> buffer_;
  // Set for a pending tensor (then buffer_ stays null: the value's fields are read through
  // eval(), so a Tensor shared by threads is never written to).
  std::shared_ptr<PendingValue> pending_;
  DType dtype_ = DType::Float32;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
};

// Copies the elements of `src` into `dst`: host tensors of the same shape with any strides
// (a stride-0 broadcast view as `src` included), converting the dtype as astype does when
// the dtypes differ. `dst` must not overlap `src`.
void copy_elements(const Tensor& src, const Tensor& dst);

// Elementwise equality of dtype, shape and values (NaN equals NaN): for tests.
bool tensors_equal(const Tensor& a, const Tensor& b);
// Same shape and |a-b| <= atol + rtol*|b| everywhere (NaNs must match).
bool tensors_allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

template <typename T>
Tensor Tensor::from_vector(const std::vector<T>& values, const Shape& shape) {
  if (static_cast<int64_t>(values.size()) != shape_numel(shape))
    throw ShapeError("Tensor::from_vector: " + std::to_string(values.size()) +
                         " values do not fill shape " + shape_str(shape),
                     "", "pass exactly as many values as the shape has elements");
  Tensor t = empty(dtype_of<T>, shape);
  T* p = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

template <typename T>
T* Tensor::data() const {
  check_dtype(dtype_of<T>);
  const Tensor& v = eval();
  return static_cast<T*>(v.buffer_->data()) + v.offset_;
}

TGC_API_END
}  // namespace tgc
