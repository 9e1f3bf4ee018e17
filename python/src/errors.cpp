// tgc's exceptions as Python exceptions: tgc.Error is the base of all of them, and each kind
// also derives from the built-in exception a Python user would catch (tgc.TypeError is a
// TypeError, tgc.ShapeError a ValueError, ...). The message is the C++ what() unchanged;
// .what, .where and .hint give its three parts.
#include "python/src/bindings.h"

namespace tgc::python {
namespace {

struct Kinds {
  PyObject* error;
  PyObject* type_error;
  PyObject* shape_error;
  PyObject* value_error;
  PyObject* index_error;
  PyObject* input_error;
  PyObject* config_error;
  PyObject* io_error;
  PyObject* device_error;
  PyObject* comm_error;
  PyObject* internal_error;
};
Kinds kinds;

PyObject* make_kind(nb::module_& m, const char* name, PyObject* base, PyObject* builtin, const char* doc) {
  std::string qualified = std::string("tgc.") + name;
  PyObject* bases = builtin ? PyTuple_Pack(2, base, builtin) : PyTuple_Pack(1, base);
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  Py_DECREF(bases);
  if (!type) throw nb::python_error();
  m.attr(name) = nb::handle(type);
  return type;
}

// Raises `kind` with the error's message, its parts as attributes.
void raise(PyObject* kind, const Error& e) {
  nb::object instance = nb::borrow(kind)(nb::str(e.what()));
  instance.attr("what") = nb::str(e.what_part().c_str());
  instance.attr("where") = nb::str(e.where().c_str());
  instance.attr("hint") = nb::str(e.hint().c_str());
  PyErr_SetObject(kind, instance.ptr());
}

}  // namespace

void raise_index_error(const Error& e) { raise(kinds.index_error, e); }

void bind_errors(nb::module_& m) {
  kinds.error = make_kind(m, "Error", PyExc_Exception, nullptr,
                          "Base of every error tgc raises; .what, .where and .hint give the message's parts.");
  kinds.type_error = make_kind(m, "TypeError", kinds.error, PyExc_TypeError,
                               "Wrong dtype or rank, or operands that do not fit together.");
  kinds.shape_error =
      make_kind(m, "ShapeError", kinds.error, PyExc_ValueError, "Shapes that do not fit together.");
  kinds.value_error = make_kind(m, "ValueError", kinds.error, PyExc_ValueError,
                                "A value out of range for the operation (division by zero, a bad index at call time).");
  kinds.index_error = make_kind(m, "IndexError", kinds.value_error, PyExc_IndexError,
                                "An index that does not fit the tensor it indexes (raised while building a graph).");
  kinds.input_error = make_kind(m, "InputError", kinds.error, PyExc_TypeError,
                                "Bad arguments to a compiled function, or a graph input not given.");
  kinds.config_error =
      make_kind(m, "ConfigError", kinds.error, PyExc_ValueError, "An unknown configuration key or a bad value.");
  kinds.io_error = make_kind(m, "IOError", kinds.error, PyExc_OSError,
                             "A file that cannot be read or written, or is malformed.");
  kinds.device_error = make_kind(m, "DeviceError", kinds.error, PyExc_RuntimeError,
                                 "A failure reported by a device runtime or library (CUDA, OpenCL).");
  kinds.comm_error =
      make_kind(m, "CommError", kinds.error, PyExc_RuntimeError, "A collective that could not run.");
  kinds.internal_error = make_kind(m, "InternalError", kinds.error, PyExc_RuntimeError,
                                   "A broken invariant inside tgc: a bug, please report it.");

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const TypeError& e) {
      raise(kinds.type_error, e);
    } catch (const ShapeError& e) {
      raise(kinds.shape_error, e);
    } catch (const ValueError& e) {
      raise(kinds.value_error, e);
    } catch (const InputError& e) {
      raise(kinds.input_error, e);
    } catch (const ConfigError& e) {
      raise(kinds.config_error, e);
    } catch (const IOError& e) {
      raise(kinds.io_error, e);
    } catch (const DeviceError& e) {
      raise(kinds.device_error, e);
    } catch (const CommError& e) {
      raise(kinds.comm_error, e);
    } catch (const InternalError& e) {
      raise(kinds.internal_error, e);
    } catch (const InterruptedError&) {
      // Python's own SIGINT handler ran as well (interrupts.cpp chains to it): what it raises,
      // KeyboardInterrupt unless the user set another handler, is the exception.
      if (PyErr_CheckSignals() == 0 && !PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const Error& e) {
      raise(kinds.error, e);
    }
  });
}

}  // namespace tgc::python
