// What the binding files of tgc._tgc share: one bind_* function per subject (module.cpp
// calls them in order) and the conversions between Python objects and tgc values.
#pragma once

#include <nanobind/nanobind.h>

#include <tgc/tgc.h>

namespace tgc::python {

namespace nb = nanobind;

void bind_errors(nb::module_& m);
void bind_arrays(nb::module_& m);
void bind_var(nb::module_& m);
void bind_ops(nb::module_& m);
void bind_device_array(nb::module_& m);
void bind_function(nb::module_& m);
void bind_config(nb::module_& m);
void bind_scan(nb::module_& m);
void bind_random(nb::module_& m);
void bind_conv(nb::module_& m);
void bind_log(nb::module_& m);
void bind_interrupts(nb::module_& m);

// Raises tgc.IndexError (a tgc.ValueError and an IndexError) with the error's message.
void raise_index_error(const Error& e);

// NumPy (or anything numpy.asarray takes) to a host Tensor. With `borrow`, an array of a tgc
// dtype with element-aligned memory and non-negative strides (any other layout, transposed
// and sliced views included) is used in place, the Tensor keeping it alive; otherwise the
// values are copied.
Tensor to_tensor(nb::handle obj, bool borrow);
// A host Tensor as a NumPy array sharing its memory (the array keeps the Tensor alive); a
// device tensor is brought to the host first.
nb::object to_numpy(const Tensor& t);
// A function result: a NumPy array (to_numpy) for a host tensor, a tgc.DeviceArray (no copy;
// DLPack and __cuda_array_interface__) for one on a device.
nb::object to_result(const Tensor& t);
// The DLPack dtype of a tgc dtype.
nanobind::dlpack::dtype dlpack_dtype(DType t);

// A Python value as a Var: a Var itself, a number (a constant: float -> floatX, int ->
// int64, bool -> bool) or an array (a constant of its dtype).
Var as_var(nb::handle obj);
// A Python value as an operand of a math function: Python numbers stay weakly typed
// literals (x + 1 keeps x's dtype, as in C++); arrays become constants.
Operand as_operand(nb::handle obj);
// Axes from Python: None (all), an int, or a sequence of ints.
Axes as_axes(nb::handle obj);
// A shape from Python: an int or a sequence of ints. A symbolic entry (x.shape[0]) is a
// tgc.TypeError saying sizes are numbers; reject_symbolic_size checks one value the same way.
std::vector<int64_t> as_shape(nb::handle obj);
void reject_symbolic_size(nb::handle obj);
// A dtype from Python: a name ("float32"), a numpy.dtype or a numpy scalar type.
DType as_dtype(nb::handle obj);

}  // namespace tgc::python
