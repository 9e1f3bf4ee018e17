// NumPy arrays in and out: a Tensor over a NumPy array's memory (borrowed, no copy) or a
// copy of it, and a NumPy array over a Tensor's memory (the array keeps the Tensor alive).
#include <functional>
#include <memory>
#include <string>

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/pair.h>

#include "python/src/bindings.h"

namespace tgc::python {
namespace {

namespace dl = nb::dlpack;

// An imported array (nanobind's handle on its DLPack capsule) kept alive by the Tensor over
// its memory, and released where the last Tensor dies, which may be a thread that does not
// hold the GIL (a call runs without it). After the interpreter finalized, the reference is
// leaked: there is nothing left to return it to.
std::function<void()> keeps(const nb::ndarray<nb::ro>& array) {
  auto owner = std::make_shared<nb::ndarray<nb::ro>>(array);
  return [owner]() mutable {
    if (!Py_IsInitialized()) {
      new std::shared_ptr<nb::ndarray<nb::ro>>(std::move(owner));  // leaked on purpose
      return;
    }
    nb::gil_scoped_acquire gil;
    owner.reset();
  };
}

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

namespace {

[[noreturn]] void no_tgc_dtype(const std::string& name) {
  throw TypeError("arrays of dtype " + name + " have no tgc dtype", "",
                  "convert with .astype(): tgc has bool, int8, int16, int32, int64, uint8, float16, float32, "
                  "float64 and ml_dtypes' bfloat16");
}

// A Tensor over an imported array's memory on `device`; with `borrow` the array itself,
// otherwise a copy on the same device.
Tensor adopt(const nb::ndarray<nb::ro>& array, DType dtype, Device& device, bool borrow) {
  Shape shape(array.ndim());
  Strides strides(array.ndim());
  for (size_t i = 0; i < array.ndim(); ++i) {
    shape[i] = static_cast<int64_t>(array.shape(i));
    strides[i] = array.stride(i);
  }
  Tensor view = adopt_memory(const_cast<void*>(array.data()), dtype, shape, strides, device, keeps(array));
  return borrow ? view : view.copy();
}

// An array in CUDA memory (PyTorch, CuPy, JAX, Numba), used in place on tgc's device of the
// same ordinal. DLPack's handshake: asked again with tgc's stream, the producer makes that
// stream wait for its own pending work on the array.
Tensor cuda_tensor(nb::handle obj, const nb::ndarray<nb::ro>& first, bool borrow) {
  using namespace nb::literals;
  const int type = first.device_type();
  if (type != nb::device::cuda::value && type != nb::device::cuda_managed::value)
    throw TypeError("an array in memory of DLPack device type " + std::to_string(type) +
                        " was passed; tgc takes host arrays and CUDA arrays",
                    "", "copy it to the host first (numpy.asarray, .cpu())");
  Device& dev = device("cuda:" + std::to_string(first.device_id()));
  nb::ndarray<nb::ro> array = first;
  const uintptr_t stream = native_stream(dev);
  if (stream != 0 && nb::hasattr(obj, "__dlpack__")) {
    nb::object capsule;
    try {
      capsule = obj.attr("__dlpack__")("stream"_a = stream);
    } catch (const nb::python_error&) {
      // A producer older than the stream argument: its work is ordered by the legacy default
      // stream only, which the first import asked for.
    }
    if (capsule.is_valid()) array = nb::cast<nb::ndarray<nb::ro>>(capsule);
  }
  DType dtype;
  if (!dtype_of_dlpack(array.dtype(), dtype))
    no_tgc_dtype("code " + std::to_string(array.dtype().code) + " of " + std::to_string(array.dtype().bits) + " bits");
  return adopt(array, dtype, dev, borrow);
}

}  // namespace

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
  if (array.device_type() != nb::device::cpu::value && array.device_type() != nb::device::cuda_host::value)
    return cuda_tensor(obj, array, borrow);
  DType dtype;
  if (!dtype_of_dlpack(array.dtype(), dtype)) {
    if (is_ml_dtypes_bfloat16(obj)) return bfloat16_tensor(obj, borrow);
    no_tgc_dtype(nb::cast<std::string>(numpy().attr("asarray")(source).attr("dtype").attr("name")));
  }
  bool plain = reinterpret_cast<uintptr_t>(array.data()) % dtype_size(dtype) == 0;
  for (size_t i = 0; i < array.ndim(); ++i) plain = plain && array.stride(i) >= 0;
  // Negative strides or unaligned memory: NumPy makes an ordinary copy, which tgc borrows.
  if (!plain) return to_tensor(numpy().attr("ascontiguousarray")(source), true);
  return adopt(array, dtype, host_device(), borrow);
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
