// tgc._tgc: the compiled half of the tgc Python package, a thin nanobind layer over the C++
// API (frontend/include/tgc). The Python half (python/tgc) arranges it into Theano's modules.
#include "python/src/bindings.h"

NB_MODULE(_tgc, m) {
  namespace py = tgc::python;
  m.doc() = "tgc's C++ API for Python (use the tgc package, not this module).";
  py::bind_errors(m);
  py::bind_arrays(m);
  py::bind_var(m);
  py::bind_ops(m);
  py::bind_device_array(m);
  py::bind_function(m);
  py::bind_config(m);
  py::bind_scan(m);
  py::bind_random(m);
  py::bind_conv(m);
  py::bind_log(m);
  py::bind_interrupts(m);
}
