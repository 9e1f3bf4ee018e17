// Eager operations in Python (docs/eager.md, tgc.nd): tgc.DeviceArray's operators and
// methods, creation on a device, and _eager(fn, *arrays), which applies a function of tgc.Vars
// (anything tgc.tensor offers) to arrays now. Everything goes through <tgc/eager.h>, so the
// rules, the lazy fusion and the compiled calls are the C++ API's.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/device_array.h"

namespace tgc::python {
namespace {

nb::object wrap(Tensor t) { return nb::cast(DeviceArray{std::move(t), nb::object()}); }

// An operand of an eager operation: a DeviceArray's tensor, or a host copy of anything NumPy
// takes (on the host: mixing it with a GPU array is the eager layer's error naming both).
Tensor operand_tensor(nb::handle obj) {
  if (std::optional<Tensor> t = device_array_tensor(obj)) return *t;
  return to_tensor(obj, false);
}

bool is_number(nb::handle obj) {
  return PyBool_Check(obj.ptr()) || PyLong_Check(obj.ptr()) || PyFloat_Check(obj.ptr());
}

using Binary = Var (*)(const Operand&, const Operand&);

// a <op> b with a a DeviceArray; b a number (a weakly typed literal, as on Vars) or an array.
nb::object binary(const DeviceArray& a, nb::handle b, Binary fn, bool reflected) {
  if (is_number(b)) {
    const double x = nb::cast<double>(b);
    return wrap(eager(
        [&](const std::vector<Var>& v) { return reflected ? fn(Operand(x), Operand(v[0])) : fn(Operand(v[0]), Operand(x)); },
        {a.tensor}));
  }
  const Tensor other = operand_tensor(b);
  return wrap(eager(
      [&](const std::vector<Var>& v) { return reflected ? fn(Operand(v[1]), Operand(v[0])) : fn(Operand(v[0]), Operand(v[1])); },
      {a.tensor, other}));
}

Device& device_named(const std::string& name) { return device(name); }

// Before a write into `a` (a[key] = v, a += b): a lazy result gets memory of its own.
void make_concrete(DeviceArray& a) {
  if (!a.tensor.is_pending()) return;
  Tensor computed = a.tensor.eval();  // a copy: eval() refers into a.tensor's own value
  a.tensor = std::move(computed);
  a.view = nb::object();
}

}  // namespace

void bind_eager(nb::module_& m, nb::class_<DeviceArray>& cls) {
  auto op = [&](const char* name, const char* rname, Binary fn) {
    cls.def(name, [fn](const DeviceArray& a, nb::handle b) { return binary(a, b, fn, false); }, nb::is_operator());
    if (rname)
      cls.def(rname, [fn](const DeviceArray& a, nb::handle b) { return binary(a, b, fn, true); }, nb::is_operator());
  };
  op("__add__", "__radd__", &add);
  op("__sub__", "__rsub__", &sub);
  op("__mul__", "__rmul__", &mul);
  op("__truediv__", "__rtruediv__", &true_div);
  op("__floordiv__", "__rfloordiv__", &floor_div);
  op("__mod__", "__rmod__", &mod);
  op("__pow__", "__rpow__", &pow);
  // a += b writes into a's memory, as NumPy and mxnet do (every view of a sees it), under
  // NumPy's same_kind rule: an integer array does not take float results, nor a bool one
  // numbers.
  auto in_place = [&](const char* name, Binary fn) {
    cls.def(name,
            [fn](nb::handle self, nb::handle b) {
              DeviceArray& a = nb::cast<DeviceArray&>(self);
              make_concrete(a);
              const Tensor result = nb::cast<DeviceArray&>(binary(a, b, fn, false)).tensor;
              const DType to = a.tensor.dtype(), from = result.dtype();
              const bool widens_kind = (to == DType::Bool && from != DType::Bool) ||
                                       (is_integer(to) && is_float(from));
              if (widens_kind)
                throw TypeError("in-place operation: a " + std::string(dtype_name(from)) + " result cannot go into a " +
                                    std::string(dtype_name(to)) + " array (NumPy's same_kind rule)",
                                "", "write a = a <op> b to get a new array of the result's dtype");
              assign(a.tensor, result);
              return nb::borrow(self);
            },
            nb::is_operator());
  };
  in_place("__iadd__", &add);
  in_place("__isub__", &sub);
  in_place("__imul__", &mul);
  in_place("__itruediv__", &true_div);
  in_place("__ifloordiv__", &floor_div);
  in_place("__imod__", &mod);
  in_place("__ipow__", &pow);
  op("__lt__", nullptr, &lt);
  op("__le__", nullptr, &le);
  op("__gt__", nullptr, &gt);
  op("__ge__", nullptr, &ge);
  cls.def("__neg__", [](const DeviceArray& a) { return wrap(-a.tensor); })
      .def("__abs__", [](const DeviceArray& a) { return wrap(abs(a.tensor)); })
      .def("__matmul__", [](const DeviceArray& a, nb::handle b) { return wrap(dot(a.tensor, operand_tensor(b))); },
           nb::is_operator())
      .def("get", [](const DeviceArray& a) { return to_numpy(a.tensor.to_host()); },
           "The value on the host as a NumPy array (PyCUDA's get(); waits for the device).")
      .def("asnumpy", [](const DeviceArray& a) { return to_numpy(a.tensor.to_host()); },
           "The value on the host as a NumPy array (mxnet's asnumpy()).")
      .def("eval",
           [](nb::handle self) {
             nb::cast<DeviceArray&>(self).tensor.eval();
             return nb::borrow(self);
           },
           "Runs the recorded chain now (lazy fusion, docs/eager.md) and returns the array.")
      .def_prop_ro("is_pending", [](const DeviceArray& a) { return a.tensor.is_pending(); },
                   "Whether the value is a recorded chain not run yet.")
      .def_prop_ro("T", [](const DeviceArray& a) { return wrap(a.tensor.transpose()); }, "The transposed view.")
      .def("reshape", [](const DeviceArray& a, const std::vector<int64_t>& shape) { return wrap(a.tensor.reshape(shape)); },
           nb::arg("shape"), "A view of another shape (a copy when the layout needs one).")
      .def("astype", [](const DeviceArray& a, nb::handle dtype) { return wrap(cast(a.tensor, as_dtype(dtype))); },
           nb::arg("dtype"), "The values converted to dtype, on the array's device.")
      .def("__getitem__",
           [](const DeviceArray& a, nb::handle key) {
             nb::object k = nb::borrow(key);
             return wrap(eager([&](const std::vector<Var>& v) { return nb::cast<Var>(nb::cast(v[0])[k]); }, {a.tensor}));
           },
           "NumPy indexing, computed on the array's device.")
      .def("__setitem__",
           [](DeviceArray& a, nb::handle key, nb::handle value) {
             // mxnet's a[1:3] = v, PyCUDA's a_gpu[...] = v: written into the array's own memory.
             make_concrete(a);
             Tensor v = is_number(value) ? Tensor::full(a.tensor.dtype(), {}, nb::cast<double>(value))
                                         : operand_tensor(value);
             if (v.dtype() != a.tensor.dtype()) v = v.astype(a.tensor.dtype());
             if (&v.device() != &a.tensor.device()) v = v.to(a.tensor.device());
             // Any NumPy index (slices, integers, arrays): the array with those elements set,
             // computed on its device, then written over the array.
             nb::object k = nb::borrow(key);
             const Tensor updated = eager(
                 [&](const std::vector<Var>& t) { return set_subtensor(nb::cast<Var>(nb::cast(t[0])[k]), t[1]); },
                 {a.tensor, v});
             assign(a.tensor, updated);
           },
           "NumPy's assignment a[key] = value (value broadcast and cast to the array's dtype), written into "
           "the array's memory on its device: every view and DLPack importer of it sees the new values.");
  for (const char* name : {"sum", "mean", "max", "min", "prod"}) {
    const std::string n = name;
    cls.def(name,
            [n](const DeviceArray& a, nb::handle axis, bool keepdims) {
              const Axes axes = as_axes(axis);
              Tensor r = n == "sum"    ? sum(a.tensor, axes, keepdims)
                         : n == "mean" ? mean(a.tensor, axes, keepdims)
                         : n == "max"  ? max(a.tensor, axes, keepdims)
                         : n == "min"  ? min(a.tensor, axes, keepdims)
                                       : prod(a.tensor, axes, keepdims);
              return wrap(std::move(r));
            },
            nb::arg("axis") = nb::none(), nb::arg("keepdims") = false, "The reduction along axis (None: all).");
  }
  cls.attr("__array_ufunc__") = nb::none();  // array + a must call a.__radd__

  m.def(
      "_eager",
      [](nb::callable fn, nb::args arrays) {
        std::vector<Tensor> args;
        for (nb::handle a : arrays) args.push_back(operand_tensor(a));
        return wrap(eager(
            [&](const std::vector<Var>& v) {
              nb::list vars;
              for (const Var& x : v) vars.append(nb::cast(x));
              return as_var(fn(*vars));
            },
            args));
      },
      nb::arg("fn"), nb::arg("arrays"),
      "fn applied to the arrays now: fn takes one tgc Var per array and returns an expression.");
  m.def("_nd_array", [](nb::handle value, const std::string& dev) { return wrap(to_device(operand_tensor(value), device_named(dev))); },
        nb::arg("value"), nb::arg("device"));
  m.def("_nd_full",
        [](const std::vector<int64_t>& shape, double value, nb::handle dtype, const std::string& dev) {
          const std::optional<DType> d = dtype.is_none() ? std::nullopt : std::optional<DType>(as_dtype(dtype));
          return wrap(nd::full(shape, value, d, device_named(dev)));
        },
        nb::arg("shape"), nb::arg("value"), nb::arg("dtype").none(), nb::arg("device"));
  m.def("_nd_empty",
        [](const std::vector<int64_t>& shape, nb::handle dtype, const std::string& dev) {
          const std::optional<DType> d = dtype.is_none() ? std::nullopt : std::optional<DType>(as_dtype(dtype));
          return wrap(nd::empty(shape, d, device_named(dev)));
        },
        nb::arg("shape"), nb::arg("dtype").none(), nb::arg("device"));
  for (const char* name : {"_nd_uniform", "_nd_normal"}) {
    const bool uniform = std::string(name) == "_nd_uniform";
    m.def(name,
          [uniform](const std::vector<int64_t>& shape, double a, double b, nb::handle dtype, const std::string& dev) {
            const std::optional<DType> d = dtype.is_none() ? std::nullopt : std::optional<DType>(as_dtype(dtype));
            return wrap(uniform ? nd::uniform(shape, a, b, d, device_named(dev)) : nd::normal(shape, a, b, d, device_named(dev)));
          },
          nb::arg("shape"), nb::arg("a"), nb::arg("b"), nb::arg("dtype").none(), nb::arg("device"));
  }
  m.def("_nd_seed", [](uint64_t seed) { nd::seed(seed); }, nb::arg("seed"));
  m.def("_nd_arange",
        [](double start, double stop, double step, nb::handle dtype, const std::string& dev) {
          const std::optional<DType> d = dtype.is_none() ? std::nullopt : std::optional<DType>(as_dtype(dtype));
          return wrap(nd::arange(start, stop, step, d, device_named(dev)));
        },
        nb::arg("start"), nb::arg("stop"), nb::arg("step"), nb::arg("dtype").none(), nb::arg("device"));
}

}  // namespace tgc::python
