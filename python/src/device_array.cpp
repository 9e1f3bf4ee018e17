// tgc.DeviceArray: a function result that stays on its device (device_result=True, or an
// output marked with gpu_from_host on a GPU). It keeps the tensor and hands its memory to
// other libraries without a copy -- DLPack (__dlpack__, __dlpack_device__: torch.from_dlpack,
// cupy.from_dlpack, jax.dlpack) and __cuda_array_interface__ (CuPy, Numba) -- while
// numpy.asarray(r) copies it to the host, as Theano's CudaNdarray did.
#include <string>

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include "python/src/bindings.h"
#include "python/src/device_array.h"

namespace tgc::python {
namespace {

int device_id(const Tensor& t) {
  std::string name = t.device().name();  // "cuda:1"
  size_t colon = name.find(':');
  return colon == std::string::npos ? 0 : std::stoi(name.substr(colon + 1));
}

int dlpack_device_type(const Tensor& t) {
  switch (t.device().kind()) {
    case DeviceKind::Host: return nb::device::cpu::value;
    case DeviceKind::Cuda: return nb::device::cuda::value;
    case DeviceKind::OpenCL: break;
  }
  throw TypeError("an OpenCL result cannot be shared through DLPack (its memory is an OpenCL buffer, not a pointer)",
                  "", "copy it to the host with numpy.asarray(r)");
}

// The view other libraries import. The device's queued work is waited for first, so the
// memory holds the result whatever stream the consumer reads it on.
nb::object view_of(DeviceArray& a) {
  if (!a.view.is_valid()) {
    int type = dlpack_device_type(a.tensor);
    a.tensor.sync();
    auto* owner = new Tensor(a.tensor);
    nb::capsule keep(owner, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
    std::vector<size_t> shape(a.tensor.shape().begin(), a.tensor.shape().end());
    std::vector<int64_t> strides(a.tensor.strides().begin(), a.tensor.strides().end());
    nb::ndarray<nb::array_api> array(a.tensor.raw_data(), shape.size(), shape.data(), keep, strides.data(),
                        dlpack_dtype(a.tensor.dtype()), type, device_id(a.tensor));
    a.view = nb::cast(array);
  }
  return a.view;
}

// NumPy's array-interface type string of a dtype: "<f4", "|b1", ...
std::string typestr(DType t) {
  switch (t) {
    case DType::Bool: return "|b1";
    case DType::Int8: return "|i1";
    case DType::Int16: return "<i2";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::UInt8: return "|u1";
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    case DType::Float16: return "<f2";
    case DType::BFloat16: return "<V2";  // the array interface has no bfloat16 (as .npy files)
  }
  return "";
}

nb::dict cuda_array_interface(DeviceArray& a) {
  if (a.tensor.device().kind() != DeviceKind::Cuda)
    throw TypeError("__cuda_array_interface__ is only for results on a CUDA device, this one is on " +
                        a.tensor.device().name(),
                    "", "use numpy.asarray(r) or DLPack (__dlpack__)");
  a.tensor.sync();  // so "stream": None (no synchronisation needed) holds
  nb::list shape, strides;
  size_t item = dtype_size(a.tensor.dtype());
  for (int64_t d : a.tensor.shape()) shape.append(d);
  for (int64_t s : a.tensor.strides()) strides.append(s * static_cast<int64_t>(item));
  nb::dict cai;
  cai["shape"] = nb::tuple(shape);
  cai["strides"] = nb::tuple(strides);
  cai["typestr"] = typestr(a.tensor.dtype());
  cai["data"] = nb::make_tuple(reinterpret_cast<uintptr_t>(a.tensor.raw_data()), false);
  cai["version"] = 3;
  cai["stream"] = nb::none();
  return cai;
}

}  // namespace

nb::object to_result(const Tensor& t) {
  if (t.on_host()) return to_numpy(t);
  return nb::cast(DeviceArray{t, nb::object()});
}

std::optional<Tensor> device_array_tensor(nb::handle obj) {
  DeviceArray* a = nullptr;
  if (!nb::try_cast(obj, a) || !a) return std::nullopt;
  return a->tensor;
}

void bind_device_array(nb::module_& m) {
  auto cls = nb::class_<DeviceArray>(m, "DeviceArray",
                          "A tensor on a device: a function result left there (device_result=True, or "
                          "gpu_from_host on a GPU), or an eager array (tgc.nd: mxnet's nd, PyCUDA's GPUArray) "
                          "computed with operators and tgc.nd's functions. torch.from_dlpack(r) / "
                          "cupy.from_dlpack(r) use its memory without a copy; numpy.asarray(r) and r.get() "
                          "copy it to the host.");
  cls
      .def_prop_ro("shape",
                   [](const DeviceArray& a) {
                     nb::list dims;
                     for (int64_t d : a.tensor.shape()) dims.append(d);
                     return nb::tuple(dims);
                   },
                   "The shape, as a tuple.")
      .def_prop_ro("dtype", [](const DeviceArray& a) { return std::string(dtype_name(a.tensor.dtype())); },
                   "The element type's NumPy name.")
      .def_prop_ro("ndim", [](const DeviceArray& a) { return a.tensor.ndim(); }, "The number of dimensions.")
      .def_prop_ro("device", [](const DeviceArray& a) { return a.tensor.device().name(); },
                   "Where the memory is: 'cuda:0', 'opencl:0:0', 'cpu'.")
      .def("__dlpack__", [](DeviceArray& a, nb::kwargs kwargs) { return view_of(a).attr("__dlpack__")(**kwargs); },
           "DLPack export (the array API's protocol): a capsule over the memory, no copy.")
      .def("__dlpack_device__", [](DeviceArray& a) { return view_of(a).attr("__dlpack_device__")(); },
           "(DLPack device type, device id).")
      .def_prop_ro("__cuda_array_interface__", &cuda_array_interface,
                   "The CUDA array interface (version 3) of a result on a CUDA device.")
      .def("__array__",
           [](const DeviceArray& a, nb::handle dtype, nb::handle /*copy*/) {
             nb::object host = to_numpy(a.tensor.to_host());
             return dtype.is_none() ? host : host.attr("astype")(dtype);
           },
           nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none(), "A host copy, as a NumPy array.")
      .def("__repr__", [](const DeviceArray& a) {
        return "<tgc.DeviceArray " + std::string(dtype_name(a.tensor.dtype())) + " " + shape_str(a.tensor.shape()) +
               " on " + a.tensor.device().name() + (a.tensor.is_pending() ? ", pending" : "") + ">";
      });
  bind_eager(m, cls);
  m.def("_device_array", [](nb::handle array) { return DeviceArray{to_tensor(array, false), nb::object()}; },
        nb::arg("array"),
        "A DeviceArray over a host copy of array: the protocols' code path without a device (for tests).");
}

}  // namespace tgc::python
