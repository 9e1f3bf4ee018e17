// NumPy arrays in and out: a Tensor over a NumPy array's memory (borrowed, no copy) or a
// copy of it, and a NumPy array over a Tensor's memory (the array keeps the Tensor alive).
#include <atomic>
#include <string>

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include "python/src/bindings.h"

namespace tgc::python {
namespace {

namespace dl = nb::dlpack;

// Host memory that a Python object owns, seen through tgc's Device interface so that a
// Buffer can use it in place (runtime/device.h's Buffer always allocates; a constructor that
// adopts memory would make this class unnecessary: docs/python.md, API gaps). The first
// allocate() hands out the adopted memory, exactly once, from the Buffer made over it; any
// later allocate() (Tensor::copy of the view, which allocates on the tensor's device) is
// plain host memory. The object deletes itself when the last block it handed out is freed.
class BorrowedMemory final : public Device {
 public:
  BorrowedMemory(void* data, nb::ndarray<nb::ro> owner) : data_(data), owner_(std::move(owner)) {}

  DeviceKind kind() const override { return DeviceKind::Host; }
  std::string name() const override { return "cpu"; }
  Stream& default_stream() override { return host_device().default_stream(); }

  void* allocate(size_t bytes, Stream& stream) override {
    live_.fetch_add(1);
    if (!handed_out_) {
      handed_out_ = adopted_ = true;
      return data_;
    }
    return host_device().allocate(bytes, stream);
  }
  void deallocate(void* ptr, size_t bytes, Stream& stream) override {
    // Once the array is released, its address may come back from the host allocator.
    if (ptr == data_ && adopted_) {
      adopted_ = false;
      release_owner();
    } else {
      host_device().deallocate(ptr, bytes, stream);
    }
    if (live_.fetch_sub(1) == 1) delete this;
  }
  void copy_to_host(void* dst, const void* src, size_t bytes, Stream& s) override {
    host_device().copy_to_host(dst, src, bytes, s);
  }
  void copy_from_host(void* dst, const void* src, size_t bytes, Stream& s) override {
    host_device().copy_from_host(dst, src, bytes, s);
  }
  void copy_on_device(void* dst, const void* src, size_t bytes, Stream& s) override {
    host_device().copy_on_device(dst, src, bytes, s);
  }

 private:
  // The array is released where the last Tensor over it dies, which may be a thread that
  // does not hold the GIL (a call runs without it). After the interpreter finalized, the
  // reference is leaked: there is nothing left to return it to.
  void release_owner() {
    if (!Py_IsInitialized()) {
      new nb::ndarray<nb::ro>(std::move(owner_));  // leaked on purpose
      return;
    }
    nb::gil_scoped_acquire gil;
    owner_ = nb::ndarray<nb::ro>();
  }

  void* data_;
  nb::ndarray<nb::ro> owner_;
  bool handed_out_ = false;  // the adopted memory was given to its Buffer
  bool adopted_ = false;     // ... and that Buffer still lives
  std::atomic<int> live_{0};
};

bool dtype_of_dlpack(dl::dtype t, DType& out) {
  if (t.lanes != 1) return false;
  switch (static_cast<dl::dtype_code>(t.code)) {
    case dl::dtype_code::Bool: out = DType::Bool; return t.bits == 8;
    case dl::dtype_code::Float:
      if (t.bits == 16) out = DType::Float16;
      else if (t.bits == 32) out = DType::Float32;
      else if (t.bits == 64) out = DType::Float64;
      else return false;
      return true;
    case dl::dtype_code::Bfloat: out = DType::BFloat16; return t.bits == 16;
    case dl::dtype_code::Int:
      if (t.bits == 8) out = DType::Int8;
      else if (t.bits == 16) out = DType::Int16;
      else if (t.bits == 32) out = DType::Int32;
      else if (t.bits == 64) out = DType::Int64;
      else return false;
      return true;
    case dl::dtype_code::UInt: out = DType::UInt8; return t.bits == 8;
    default: return false;
  }
}

}  // namespace

dl::dtype dlpack_dtype(DType t) {
  switch (t) {
    case DType::Bool: return dl::dtype{static_cast<uint8_t>(dl::dtype_code::Bool), 8, 1};
    case DType::Int8: return nb::dtype<int8_t>();
    case DType::Int16: return nb::dtype<int16_t>();
    case DType::Int32: return nb::dtype<int32_t>();
    case DType::Int64: return nb::dtype<int64_t>();
    case DType::UInt8: return nb::dtype<uint8_t>();
    case DType::Float32: return nb::dtype<float>();
    case DType::Float64: return nb::dtype<double>();
    case DType::Float16: return dl::dtype{static_cast<uint8_t>(dl::dtype_code::Float), 16, 1};
    case DType::BFloat16: return dl::dtype{static_cast<uint8_t>(dl::dtype_code::Bfloat), 16, 1};
  }
  return nb::dtype<float>();
}

namespace {

nb::object numpy() { return nb::module_::import_("numpy"); }

}  // namespace

// Whether `obj` is a NumPy array of ml_dtypes' bfloat16 (NumPy and DLPack carry it as no
// type they know: it is read as its 16-bit pattern).
static bool is_ml_dtypes_bfloat16(nb::handle obj) {
  if (!nb::hasattr(obj, "dtype") || !nb::hasattr(obj, "view")) return false;
  nb::object dtype = obj.attr("dtype");
  return nb::hasattr(dtype, "name") && nb::cast<std::string>(nb::str(dtype.attr("name"))) == "bfloat16";
}

// An ml_dtypes bfloat16 array as a bfloat16 tensor over its int16 view.
static Tensor bfloat16_tensor(nb::handle obj, bool borrow) {
  Tensor bits = to_tensor(obj.attr("view")(numpy().attr("int16")), borrow);
  return Tensor::view_of(bits.buffer(), DType::BFloat16, bits.shape(), bits.strides(), bits.offset());
}

Tensor to_tensor(nb::handle obj, bool borrow) {
  nb::object source = nb::borrow(obj);
  nb::ndarray<nb::ro> array;
  if (!nb::try_cast(source, array)) {
    // Off the common path (DLPack carries every other dtype): ml_dtypes' bfloat16 arrays,
    // read as their 16-bit patterns.
    if (is_ml_dtypes_bfloat16(obj)) return bfloat16_tensor(obj, borrow);
    // Lists, numbers, arrays of dtypes DLPack cannot carry (NumPy's object arrays).
    source = numpy().attr("asarray")(obj);
    if (!nb::try_cast(source, array))
      throw TypeError("cannot convert a " + std::string(nb::type_name(obj.type()).c_str()) + " to a tensor", "",
                      "pass a NumPy array (or a number or list NumPy can convert) of a tgc dtype");
  }
  if (array.device_type() != nb::device::cpu::value)
    throw TypeError("a device array was passed where a host array is expected", "",
                    "copy it to the host first (numpy.asarray, .cpu())");
  DType dtype;
  if (!dtype_of_dlpack(array.dtype(), dtype)) {
    if (is_ml_dtypes_bfloat16(obj)) return bfloat16_tensor(obj, borrow);
    std::string name = nb::cast<std::string>(numpy().attr("asarray")(source).attr("dtype").attr("name"));
    throw TypeError("arrays of dtype " + name + " have no tgc dtype", "",
                    "convert with .astype(): tgc has bool, int8, int16, int32, int64, uint8, float16, float32, "
                    "float64 and ml_dtypes' bfloat16");
  }
  Shape shape(array.ndim());
  Strides strides(array.ndim());
  int64_t last = 0;  // the largest element offset, for the extent of the memory
  bool positive = true;
  for (size_t i = 0; i < array.ndim(); ++i) {
    shape[i] = static_cast<int64_t>(array.shape(i));
    strides[i] = array.stride(i);
    positive = positive && strides[i] >= 0;
    if (shape[i] > 0) last += (shape[i] - 1) * strides[i];
  }
  size_t item = dtype_size(dtype);
  bool aligned = reinterpret_cast<uintptr_t>(array.data()) % item == 0;
  if (!positive || !aligned) {
    // Negative strides or unaligned memory: NumPy makes an ordinary copy, which tgc borrows.
    nb::object copy = numpy().attr("ascontiguousarray")(source);
    return to_tensor(copy, true);
  }
  bool empty = shape_numel(shape) == 0;
  size_t bytes = empty ? 0 : static_cast<size_t>(last + 1) * item;
  auto* memory = new BorrowedMemory(const_cast<void*>(array.data()), array);
  auto buffer = std::make_shared<Buffer>(*memory, bytes);
  Tensor view = Tensor::view_of(std::move(buffer), dtype, shape, strides, 0);
  return borrow ? view : view.copy();
}

nb::object to_numpy(const Tensor& value) {
  Tensor t = value.to_host();
  if (t.dtype() == DType::BFloat16) {
    // NumPy has no bfloat16: ml_dtypes' (JAX's) is the one NumPy users have.
    nb::object ml_dtypes;
    try {
      ml_dtypes = nb::module_::import_("ml_dtypes");
    } catch (const nb::python_error&) {
      throw TypeError("a bfloat16 result needs ml_dtypes to be a NumPy array", "",
                      "pip install ml_dtypes (JAX installs it), or cast the result to float32 in the graph");
    }
    Tensor bits = Tensor::view_of(t.buffer(), DType::Int16, t.shape(), t.strides(), t.offset());
    return to_numpy(bits).attr("view")(ml_dtypes.attr("bfloat16"));
  }
  auto* owner = new Tensor(t);
  nb::capsule keep(owner, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  std::vector<size_t> shape(t.shape().begin(), t.shape().end());
  std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  nb::ndarray<nb::numpy> array(t.raw_data(), shape.size(), shape.data(), keep, strides.data(),
                               dlpack_dtype(t.dtype()));
  return array.cast();
}

void bind_arrays(nb::module_& m) {
  m.def("_roundtrip", [](nb::handle a, bool borrow) { return to_numpy(to_tensor(a, borrow)); }, nb::arg("array"),
        nb::arg("borrow") = false,
        "Converts an array to a tgc tensor and back (for tests of the NumPy interop): with "
        "borrow=True the result shares the array's memory when its dtype and layout allow.");
}

}  // namespace tgc::python
