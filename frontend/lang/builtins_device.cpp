// Builtin rows: concrete values on devices — moving a value to a device and back (PyCUDA's
// to_gpu and get(), mxnet's copyto), and print, which shows a value once it is computed.
#include <fmt/format.h>

#include <iostream>

#include "frontend/lang/builtins.h"
#include "frontend/lang/concrete.h"

namespace tgc::lang {

namespace {

// The value of `x` as a concrete tensor; a symbolic one is an error saying why.
Tensor concrete_arg(Args& a, std::string_view name) {
  const Value& v = a.value(name);
  if (v.is_var())
    a.fail(name, fmt::format("{}() needs a value, got {}", a.fn.name, v.describe()),
           "a symbolic tensor has no value yet: a function computes it on its --device");
  return a.tensor(name);
}

Value to_device_(Args& a) {
  Tensor t = concrete_arg(a, "x");
  Device* d = device_of_name(a.value("device"), a.ctx, a.arg("device").pos, a.what("device"));
  if (!d) d = &host_device();
  if (&t.device() == d) return t;  // already there: the value itself, as Tensor::to keeps no copy either
  return to_device(t, *d);
}

Value to_host_(Args& a) { return concrete_arg(a, "x").to_host(); }

// print's text of one value: NumPy's for tensors, Python's for the rest.
std::string text_of(const Value& v) {
  if (v.is_tensor()) return v.as_tensor().to_host().str();  // waits for the device's work
  if (v.is_none()) return "None";
  if (v.is_bool()) return v.as_bool() ? "True" : "False";
  if (v.is_int()) return std::to_string(v.as_int());
  if (v.is_float()) {
    std::string s = fmt::format("{}", v.as_double());
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // Python writes 1.0, not 1
    return s;
  }
  if (v.is_string()) return v.as_string();
  if (v.is_sequence()) {
    std::string out = v.is_tuple() ? "(" : "[";
    for (size_t i = 0; i < v.items().size(); ++i) out += (i ? ", " : "") + text_of(v.items()[i]);
    if (v.is_tuple() && v.items().size() == 1) out += ",";
    return out + (v.is_tuple() ? ")" : "]");
  }
  return "<" + v.describe() + ">";
}

Value print_(Args& a) {
  std::string line;
  for (size_t i = 0; i < a.rest().size(); ++i) line += (i ? " " : "") + text_of(a.rest()[i].value);
  std::cout << line << "\n" << std::flush;
  return Value();
}

}  // namespace

std::vector<BuiltinRow> device_builtins() {
  return {
      {"to_device", "x, device", "a copy of the value x on device (\"cpu\", \"cuda\", \"cuda:1\", \"opencl\"), as PyCUDA's to_gpu; x itself when already there",
       to_device_},
      {"to", "x, device", "x.to(device): the same as to_device(x, device)", to_device_, kTensorMethod},
      {"get", "x", "x.get(): the value on the host, once computed (PyCUDA's name; x itself on the host)", to_host_,
       kTensorMethod},
      {"to_host", "x", "the same as get(x)", to_host_, kTensorMethod},
      {"print", "*values", "writes the values on one line (a tensor's elements once computed, NumPy-style); gives None",
       print_},
  };
}

}  // namespace tgc::lang
