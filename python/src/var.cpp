// Symbolic variables from Python: the Var class (Theano's TensorVariable) with its
// operators, methods and NumPy indexing, SharedVariable, and the symbolic constructors.
#include <string>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"

namespace tgc::python {
namespace {

bool is_number(nb::handle h) { return PyBool_Check(h.ptr()) || PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr()); }

// One entry of a Python index: int, slice of ints, None (newaxis), a Var or an integer
// array (advanced indexing). Ellipsis is expanded by the caller.
Index index_entry(nb::handle h) {
  if (h.is_none()) return Index(newaxis);
  if (PySlice_Check(h.ptr())) {
    auto bound = [&](const char* name) -> std::optional<int64_t> {
      nb::object v = h.attr(name);
      if (v.is_none()) return std::nullopt;
      if (nb::isinstance<Var>(v))
        throw TypeError("a slice with a symbolic bound", "",
                        "tgc slices take Python ints; index with an integer tensor (x[idx]) for computed positions");
      return nb::cast<int64_t>(v);
    };
    return Index(slice(bound("start"), bound("stop"), bound("step")));
  }
  if (PyBool_Check(h.ptr()))
    throw TypeError("a bool index", "", "use an int, a slice, None or an integer tensor");
  // Python ints and NumPy integer scalars; NumPy arrays also have __index__ (for size 1), so
  // anything with dimensions is an array index instead.
  bool has_dims = nb::hasattr(h, "ndim") && nb::cast<int>(h.attr("ndim")) > 0;
  if (!has_dims && PyIndex_Check(h.ptr())) return Index(nb::cast<int64_t>(nb::int_(h)));
  return Index(as_var(h));
}

Var subscript(const Var& x, nb::handle key) {
  std::vector<nb::handle> keys;
  if (nb::isinstance<nb::tuple>(key)) {
    for (nb::handle k : nb::borrow<nb::tuple>(key)) keys.push_back(k);
  } else {
    keys.push_back(key);
  }
  // Ellipsis: as many full slices as the axes the other entries leave (None takes none).
  std::vector<Index> index;
  int used = 0;
  for (nb::handle k : keys)
    if (!k.is_none() && k.ptr() != Py_Ellipsis) ++used;
  bool seen = false;
  for (nb::handle k : keys) {
    if (k.ptr() == Py_Ellipsis) {
      if (seen) throw TypeError("an index can only have a single ellipsis ('...')");
      seen = true;
      for (int i = used; i < x.ndim(); ++i) index.emplace_back(colon);
    } else {
      index.push_back(index_entry(k));
    }
  }
  try {
    return x[index];
  } catch (const TypeError&) {
    throw;
  } catch (const Error& e) {  // out of range for a static dim, too many indices
    raise_index_error(e);
    throw nb::python_error();
  }
}

std::string type_str(const Var& x) {
  return "TensorType(" + std::string(dtype_name(x.dtype())) + ", " + rank_name(x.ndim()) + ")";
}

std::string repr(const Var& x) {
  if (!x.name().empty()) return x.name();
  return x.ptr()->label();
}

using Ctor = Var (*)(const std::string&, std::optional<DType>);

void def_ctor(nb::module_& m, const char* name, Ctor ctor, std::optional<DType> dtype, const char* doc) {
  m.def(
      name,
      [ctor, dtype](std::optional<std::string> n, nb::handle dt) {
        return ctor(n.value_or(""), dt.is_none() ? dtype : as_dtype(dt));
      },
      nb::arg("name") = nb::none(), nb::arg("dtype") = nb::none(), doc);
}

}  // namespace

DType as_dtype(nb::handle obj) {
  if (nb::isinstance<nb::str>(obj)) return parse_dtype(nb::cast<std::string>(obj));
  // numpy.dtype, numpy.float32 and the like: numpy.dtype(obj).name.
  nb::object dt = nb::module_::import_("numpy").attr("dtype")(obj);
  return parse_dtype(nb::cast<std::string>(dt.attr("name")));
}

Var as_var(nb::handle obj) {
  if (nb::isinstance<Var>(obj)) return nb::cast<Var>(obj);
  if (PyBool_Check(obj.ptr())) return constant(obj.ptr() == Py_True ? 1.0 : 0.0, DType::Bool);
  if (PyLong_Check(obj.ptr())) return constant(nb::cast<double>(obj), DType::Int64);
  if (PyFloat_Check(obj.ptr())) return constant(nb::cast<double>(obj), floatX());
  return constant(to_tensor(obj, false));
}

Operand as_operand(nb::handle obj) {
  if (nb::isinstance<Var>(obj)) return Operand(nb::cast<Var>(obj));
  if (is_number(obj)) return Operand(nb::cast<double>(obj));
  return Operand(constant(to_tensor(obj, false)));
}

namespace {

// A symbolic value where a size must be a number (x.shape[0] given to reshape, zeros, arange):
// tgc's shapes are fixed when the graph is built.
[[noreturn]] void symbolic_size() {
  throw TypeError("a size is a symbolic value (such as x.shape[0]); sizes of new tensors, reshape targets and "
                  "arange bounds are numbers",
                  "", "use x.static_shape (the dims known while building), -1 in reshape, or zeros_like(x) / "
                      "ones_like(x); x.shape[i] itself works in arithmetic");
}

}  // namespace

void reject_symbolic_size(nb::handle obj) {
  if (nb::isinstance<Var>(obj)) symbolic_size();
}

std::vector<int64_t> as_shape(nb::handle obj) {
  if (PyLong_Check(obj.ptr())) return {nb::cast<int64_t>(obj)};
  reject_symbolic_size(obj);
  if (nb::isinstance<nb::sequence>(obj))
    for (nb::handle d : obj) reject_symbolic_size(d);
  return nb::cast<std::vector<int64_t>>(obj);
}


Axes as_axes(nb::handle obj) {
  if (obj.is_none()) return Axes();
  if (PyLong_Check(obj.ptr())) return Axes(nb::cast<int>(obj));
  return Axes(nb::cast<std::vector<int>>(obj));
}

void bind_var(nb::module_& m) {
  auto var = nb::class_<Var>(m, "Var", nb::dynamic_attr(),
                             "A symbolic tensor (Theano's TensorVariable): a graph input, a constant, a shared "
                             "variable or the result of an operation. Build expressions with operators and the "
                             "functions of tgc.tensor, compile them with tgc.function.");
  var.def_prop_ro("dtype", [](const Var& x) { return std::string(dtype_name(x.dtype())); },
                  "The element type's NumPy name, e.g. 'float32'.")
      .def_prop_ro("ndim", &Var::ndim, "The number of dimensions.")
      .def_prop_ro("type", &type_str, "Theano's type string, e.g. 'TensorType(float32, vector)'.")
      .def_prop_ro("static_shape",
                   [](const Var& x) {
                     nb::list dims;
                     for (int64_t d : x.type().shape) dims.append(d < 0 ? nb::object(nb::none()) : nb::object(nb::int_(d)));
                     return nb::tuple(dims);
                   },
                   "The dims known while building the graph: ints, None where unknown.")
      .def_prop_rw("name", [](const Var& x) { return x.name(); },
                   [](Var& x, const std::string& n) { x.named(n); }, "The variable's name (errors and profiles use it).")
      .def_prop_ro("shape", [](const Var& x) { return shape_of(x); },
                   "Theano's x.shape: the shape as a symbolic int64 vector (x.shape[0] a symbolic scalar), "
                   "usable in arithmetic; a constant where the compiler knows it. static_shape gives the dims "
                   "known while building.")
      .def_prop_ro("T", &Var::T, "The tensor with its axes reversed (a view).")
      .def("transpose", [](const Var& x, nb::args axes) {
             std::vector<int> perm;
             if (axes.size() == 1 && !PyLong_Check(axes[0].ptr())) perm = nb::cast<std::vector<int>>(axes[0]);
             else for (nb::handle a : axes) perm.push_back(nb::cast<int>(a));
             return transpose(x, perm);
           }, "Permutes the axes (NumPy's transpose); none given reverses them.")
      .def("reshape", [](const Var& x, nb::args shape) {
             nb::object target = shape.size() == 1 ? nb::object(shape[0]) : nb::object(shape);
             return reshape(x, as_shape(target));
           }, "NumPy's reshape: x.reshape((2, -1)) or x.reshape(2, -1); one dim may be -1.")
      .def("flatten", &Var::flatten, nb::arg("ndim") = 1,
           "Keeps the first ndim-1 axes and merges the rest (ndim=1: a vector).")
      .def("dimshuffle", [](const Var& x, nb::args pattern) {
             nb::object items = pattern;
             if (pattern.size() == 1 && !PyLong_Check(pattern[0].ptr()) && !nb::isinstance<nb::str>(pattern[0]))
               items = pattern[0];
             std::vector<int> p;
             for (nb::handle a : items) p.push_back(nb::isinstance<nb::str>(a) ? -1 : nb::cast<int>(a));
             return dimshuffle(x, p);
           }, "Theano's dimshuffle: entries are input axes or 'x' for a new broadcastable axis.")
      .def("astype", [](const Var& x, nb::handle dt) { return cast(x, as_dtype(dt)); }, nb::arg("dtype"),
           "The tensor converted to dtype (x itself when it has it).")
      .def("__bool__", [](const Var&) -> bool {
             throw TypeError("the truth value of a symbolic tensor is unknown while building a graph", "",
                             "use tgc.tensor.switch (where) for a choice per element, or compare the results of a call");
           })
      .def("__getitem__", &subscript, nb::arg("key"),
           "NumPy indexing: ints, slices, None, ..., and integer tensors or arrays (advanced indexing).")
      .def_prop_ro("tag",
                   [](nb::handle_t<Var> self) {
                     // Theano's x.tag: a namespace of the user's notes about x (test_value, ...),
                     // kept with this Python object; tgc itself never reads it.
                     if (!nb::hasattr(self, "_tag"))
                       nb::setattr(self, "_tag", nb::module_::import_("types").attr("SimpleNamespace")());
                     return self.attr("_tag");
                   },
                   "Theano's tag: a namespace for notes about the variable (x.tag.test_value = ...); "
                   "tgc stores them and never reads them (test values are not computed).")
      .def("__repr__", &repr)
      .def("__str__", &repr);

  // Reductions as methods, with Theano's and NumPy's keywords.
  auto reduction = [&](const char* name, Var (*fn)(const Var&, Axes, bool), const char* doc) {
    var.def(name, [fn](const Var& x, nb::handle axis, bool keepdims) { return fn(x, as_axes(axis), keepdims); },
            nb::arg("axis") = nb::none(), nb::arg("keepdims") = false, doc);
  };
  reduction("sum", &sum, "The sum over axis (None: all axes).");
  reduction("prod", &prod, "The product over axis (None: all axes).");
  reduction("mean", &mean, "The mean over axis (None: all axes).");
  reduction("max", &max, "The largest element over axis (None: all axes).");
  reduction("min", &min, "The smallest element over axis (None: all axes).");
  reduction("all", &all, "Whether every element over axis is nonzero.");
  reduction("any", &any, "Whether some element over axis is nonzero.");
  var.def("argmax", [](const Var& x, std::optional<int> axis, bool keepdims) { return argmax(x, axis, keepdims); },
          nb::arg("axis") = nb::none(), nb::arg("keepdims") = false,
          "The index of the largest element along axis (None: of the flattened tensor).");
  var.def("argmin", [](const Var& x, std::optional<int> axis, bool keepdims) { return argmin(x, axis, keepdims); },
          nb::arg("axis") = nb::none(), nb::arg("keepdims") = false,
          "The index of the smallest element along axis (None: of the flattened tensor).");

  // Operators: the other operand may be a Var, a Python number (weakly typed, like a C++
  // literal: x * 0.5 keeps x's dtype) or an array (a constant of its own dtype).
  using Binary = Var (*)(const Operand&, const Operand&);
  auto binary = [&](const char* name, const char* rname, Binary fn) {
    var.def(name, [fn](const Var& a, nb::handle b) { return fn(Operand(a), as_operand(b)); }, nb::is_operator());
    if (rname)
      var.def(rname, [fn](const Var& a, nb::handle b) { return fn(as_operand(b), Operand(a)); }, nb::is_operator());
  };
  binary("__add__", "__radd__", &add);
  binary("__sub__", "__rsub__", &sub);
  binary("__mul__", "__rmul__", &mul);
  binary("__truediv__", "__rtruediv__", &true_div);
  binary("__floordiv__", "__rfloordiv__", &floor_div);
  binary("__mod__", "__rmod__", &mod);
  binary("__pow__", "__rpow__", &pow);
  binary("__lt__", nullptr, &lt);
  binary("__le__", nullptr, &le);
  binary("__gt__", nullptr, &gt);
  binary("__ge__", nullptr, &ge);
  binary("__and__", "__rand__", &logical_and);
  binary("__or__", "__ror__", &logical_or);
  binary("__xor__", "__rxor__", &logical_xor);
  var.def("__neg__", [](const Var& x) { return neg(x); })
      .def("__abs__", [](const Var& x) { return abs(x); })
      .def("__invert__", [](const Var& x) { return logical_not(x); });
  // Keep NumPy from broadcasting its own operator over a Var (array + x must call __radd__).
  var.attr("__array_ufunc__") = nb::none();

  nb::class_<Shared, Var>(m, "SharedVariable",
                          "A variable whose value lives across calls (Theano's shared variable); "
                          "functions read it without it being passed, and updates= change it.")
      .def("get_value",
           [](const Shared& s, bool borrow) {
             // Without the GIL while waiting for the variable's lock: a call holding it may
             // need the GIL to release a borrowed array (arrays.cpp).
             Tensor t;
             {
               nb::gil_scoped_release released;
               t = s.get_value(borrow);
             }
             return to_numpy(t);
           },
           nb::arg("borrow") = false,
           "The value as a NumPy array: a copy, or with borrow=True the value itself (a later call "
           "may write into it).")
      .def("set_value",
           [](const Shared& s, nb::handle value, bool borrow) {
             Tensor t = to_tensor(value, borrow);
             nb::gil_scoped_release released;  // as in get_value
             s.set_value(t, borrow);
           },
           nb::arg("value"), nb::arg("borrow") = false,
           "Replaces the value (copied; with borrow=True the array's memory is read in place when "
           "its dtype and layout allow, and never written: updates go to tgc's own memory). The "
           "dtype and rank must stay those of the variable.");

  m.def("shared",
        [](nb::handle value, std::optional<std::string> name, bool borrow) {
          Tensor t = to_tensor(value, borrow);
          return shared(t, name.value_or(""), borrow);
        },
        nb::arg("value"), nb::arg("name") = nb::none(), nb::arg("borrow") = false,
        "A shared variable holding value (a NumPy array or number), copied unless borrow=True "
        "(then read in place, never written). Its type is the value's dtype and rank; Python "
        "floats give float64 arrays, as in NumPy.");

  def_ctor(m, "scalar", &scalar, std::nullopt, "A symbolic 0-d tensor (dtype defaults to config.floatX).");
  def_ctor(m, "vector", &vector, std::nullopt, "A symbolic 1-d tensor (dtype defaults to config.floatX).");
  def_ctor(m, "matrix", &matrix, std::nullopt, "A symbolic 2-d tensor (dtype defaults to config.floatX).");
  def_ctor(m, "tensor3", &tensor3, std::nullopt, "A symbolic 3-d tensor (dtype defaults to config.floatX).");
  def_ctor(m, "tensor4", &tensor4, std::nullopt, "A symbolic 4-d tensor (dtype defaults to config.floatX).");
  m.def("tensor",
        [](nb::handle dtype, nb::handle shape, const std::string& name) {
          std::vector<int64_t> dims;
          for (nb::handle d : shape) dims.push_back(d.is_none() ? kUnknownDim : nb::cast<int64_t>(d));
          return tensor(name, dtype.is_none() ? floatX() : as_dtype(dtype), dims);
        },
        nb::arg("dtype") = nb::none(), nb::arg("shape") = nb::tuple(), nb::arg("name") = "",
        "A symbolic tensor of any rank: shape gives its static dims (None where unknown), "
        "e.g. tensor('float32', (None, 784)).");
  m.def("constant",
        [](nb::handle value, nb::handle dtype, const std::string& name) {
          Tensor t = to_tensor(value, false);
          if (!dtype.is_none()) t = t.astype(as_dtype(dtype));
          return constant(t, name);
        },
        nb::arg("value"), nb::arg("dtype") = nb::none(), nb::arg("name") = "",
        "A constant tensor holding a copy of value (NumPy's dtype rules unless dtype is given).");
}

}  // namespace tgc::python
