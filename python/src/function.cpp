// tgc.function: compiles inputs -> outputs (plus updates) into a callable, as Theano's
// theano.function. The GIL is released while compiling and while a call runs; arguments are
// NumPy arrays used in place where their dtype and layout allow, results are NumPy arrays
// that own their memory (or share it with nothing else the caller can see).
#include <map>
#include <optional>
#include <string>

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/pair.h>

#include <tgc/printing.h>
#include <tgc/save.h>

#include "ops/core/graph.h"
#include "python/src/bindings.h"
#include "python/src/device_array.h"

namespace tgc::python {
namespace {

// A compiled Function plus what the call needs to behave like Theano's: whether outputs was
// one variable (the call then returns one array, not a list), and the inputs' dtypes (a
// Python number argument is converted to its input's dtype, as Theano does).
struct PyFunction {
  Function f;
  bool single = false;
  std::vector<DType> input_dtypes;
  std::vector<std::string> input_names;  // for keyword arguments, f(x=...)
};

Tensor argument(nb::handle arg, DType dtype) {
  if (PyBool_Check(arg.ptr()) || PyLong_Check(arg.ptr()) || PyFloat_Check(arg.ptr()))
    return Tensor::full(dtype, {}, nb::cast<double>(arg));
  // A DeviceArray is bound as it is: on the function's device, no copy (docs/eager.md).
  if (std::optional<Tensor> t = device_array_tensor(arg)) return *t;
  return to_tensor(arg, true);
}

nb::object call(PyFunction& pf, nb::args args) {
  if (args.size() != pf.input_dtypes.size())
    throw InputError(pf.f.name() + " takes " + std::to_string(pf.input_dtypes.size()) + " argument(s), got " +
                         std::to_string(args.size()),
                     "", "pass one array per input, in the order of the inputs list");
  std::vector<Tensor> in;
  in.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) in.push_back(argument(args[i], pf.input_dtypes[i]));
  std::vector<Tensor> out;
  {
    nb::gil_scoped_release released;
    out = pf.f(in);
  }
  if (pf.single) return to_result(out.at(0));
  nb::list results;
  for (const Tensor& t : out) results.append(to_result(t));
  return results;
}

// For each node of toposort(), whether it runs on the function's device (not the host): what
// tgc.theano needs to name a device node GpuElemwise as Theano did. Function::host_reason is
// "" for device nodes and transfers, and for every node of a host function.
std::vector<bool> on_device(const PyFunction& pf) {
  bool host_function = pf.f.config().device == "cpu";
  std::vector<bool> out;
  for (Node* n : pf.f.graph().toposort()) out.push_back(!host_function && pf.f.host_reason(*n).empty());
  return out;
}

// f(a, y=b): the keyword arguments put at their inputs' positions (by the inputs' names),
// then the ordinary call. A separate overload, so that calls without keywords pay nothing.
nb::object call_with_keywords(PyFunction& pf, nb::args args, nb::kwargs kwargs) {
  size_t n = pf.input_names.size();
  std::vector<nb::object> slots(n);
  if (args.size() > n) return call(pf, args);  // the count error, worded once
  for (size_t i = 0; i < args.size(); ++i) slots[i] = nb::borrow(args[i]);
  std::string names;
  for (const std::string& name : pf.input_names) names += (names.empty() ? "" : ", ") + name;
  for (auto [key, value] : kwargs) {
    std::string name = nb::cast<std::string>(key);
    size_t i = 0;
    while (i < n && (pf.input_names[i].empty() || pf.input_names[i] != name)) ++i;
    if (i == n)
      throw InputError(pf.f.name() + " has no input named '" + name + "'", "",
                       "its inputs are named: " + (names.empty() ? std::string("(none named)") : names));
    if (slots[i].is_valid())
      throw InputError(pf.f.name() + " got input '" + name + "' twice (by position and by name)");
    slots[i] = nb::borrow(value);
  }
  nb::list ordered;
  for (size_t i = 0; i < n; ++i) {
    if (!slots[i].is_valid())
      throw InputError(pf.f.name() + ": no value for input " + std::to_string(i + 1) +
                           (pf.input_names[i].empty() ? "" : " ('" + pf.input_names[i] + "')"),
                       "", "pass it by position or by name");
    ordered.append(slots[i]);
  }
  return call(pf, nb::borrow<nb::args>(nb::tuple(ordered)));
}

Updates as_updates(nb::handle updates) {
  Updates out;
  if (updates.is_none()) return out;
  nb::object items = nb::borrow(updates);
  if (nb::isinstance<nb::dict>(updates)) items = nb::borrow<nb::dict>(updates).items();
  for (nb::handle pair : items) {
    nb::sequence p = nb::borrow<nb::sequence>(pair);
    if (nb::len(p) != 2)
      throw TypeError("an update must be a (shared variable, new value) pair", "",
                      "write updates=[(w, w - 0.1 * gw), ...]");
    nb::handle target = p[0];
    if (!nb::isinstance<Shared>(target))
      throw TypeError("the target of an update must be a shared variable, got " +
                          std::string(nb::repr(target).c_str()),
                      "", "create it with tgc.shared(value)");
    out.emplace_back(nb::cast<Shared>(target), as_var(p[1]));
  }
  return out;
}

GraphStage graph_stage(const std::string& stage) {
  if (stage == "optimized") return GraphStage::Optimized;
  if (stage == "raw") return GraphStage::Raw;
  throw ValueError("stage must be 'optimized' or 'raw', got '" + stage + "'", "", "");
}

// givens as Theano takes them: a dict {variable: replacement} or (variable, replacement)
// pairs; a replacement may be a number or array (made a constant of the variable's dtype).
Givens as_givens(nb::handle givens) {
  Givens out;
  if (givens.is_none()) return out;
  nb::object items = nb::borrow(givens);
  if (nb::isinstance<nb::dict>(givens)) items = nb::borrow<nb::dict>(givens).items();
  for (nb::handle pair : items) {
    nb::sequence p = nb::borrow<nb::sequence>(pair);
    if (nb::len(p) != 2 || !nb::isinstance<Var>(p[0]))
      throw TypeError("givens must map symbolic variables to replacements, got " + std::string(nb::repr(pair).c_str()),
                      "", "write givens={x: data[i]} or givens=[(x, data[i])]");
    out.emplace_back(nb::cast<Var>(p[0]), as_var(p[1]));
  }
  return out;
}

PyFunction compile(nb::handle inputs, nb::handle outputs, nb::handle updates, nb::handle givens, std::string name,
                   bool profile, nb::handle device, bool borrow, bool device_result,
                   std::map<std::string, std::string> flags, bool no_default_updates) {
  bool single = false;
  std::vector<DType> dtypes;
  std::vector<std::string> names;
  std::vector<Var> ins;
  for (nb::handle h : inputs) {
    if (!nb::isinstance<Var>(h))
      throw TypeError("function inputs must be symbolic variables, got " + std::string(nb::repr(h).c_str()), name,
                      "create them with tgc.tensor.matrix('x'), vector, scalar, ...");
    ins.push_back(nb::cast<Var>(h));
    dtypes.push_back(ins.back().dtype());
    names.push_back(ins.back().name());
  }
  std::vector<Var> outs;  // none: a function run for its updates, returning []
  if (nb::isinstance<nb::list>(outputs) || nb::isinstance<nb::tuple>(outputs)) {
    for (nb::handle h : outputs) outs.push_back(as_var(h));
  } else if (!outputs.is_none()) {
    outs.push_back(as_var(outputs));
    single = true;
  }
  FunctionOptions options;
  options.name = std::move(name);
  options.borrow_outputs = borrow;
  options.device_result = device_result;
  options.no_default_updates = no_default_updates;
  options.config = std::move(flags);
  if (profile) options.config["profile"] = "true";
  if (!device.is_none()) options.config["device"] = nb::cast<std::string>(device);
  Updates ups = as_updates(updates);
  options.givens = as_givens(givens);
  std::optional<Function> f;
  {
    nb::gil_scoped_release released;
    f.emplace(function(ins, outs, ups, options));
  }
  return PyFunction{std::move(*f), single, std::move(dtypes), std::move(names)};
}

// A loaded function as tgc.function makes them: its inputs' dtypes and names from its graph;
// one output is returned as one array (whether it was saved from a list is not in the file).
PyFunction wrap_loaded(Function f) {
  std::vector<DType> dtypes;
  std::vector<std::string> names;
  for (const VarPtr& in : f.raw_graph().inputs()) {
    dtypes.push_back(in->type().dtype);
    names.push_back(in->name());
  }
  const bool single = f.num_outputs() == 1;
  return PyFunction{std::move(f), single, std::move(dtypes), std::move(names)};
}

std::vector<const Function*> functions_of(nb::handle fns) {
  std::vector<const Function*> out;
  if (nb::isinstance<PyFunction>(fns)) {
    out.push_back(&nb::cast<PyFunction&>(fns).f);
    return out;
  }
  if (!nb::isinstance<nb::list>(fns) && !nb::isinstance<nb::tuple>(fns))
    throw TypeError("save takes a tgc.Function or a list of them, got " + std::string(nb::repr(fns).c_str()), "save",
                    "pass the function made by tgc.function");
  for (nb::handle h : fns) {
    if (!nb::isinstance<PyFunction>(h))
      throw TypeError("save takes tgc.Function objects, got " + std::string(nb::repr(h).c_str()), "save",
                      "pass functions made by tgc.function");
    out.push_back(&nb::cast<PyFunction&>(h).f);
  }
  return out;
}

LoadOptions load_options(const std::map<std::string, std::string>& flags, const std::vector<Shared>& shared) {
  LoadOptions options;
  options.config = flags;
  options.shared = shared;
  return options;
}

}  // namespace

void bind_function(nb::module_& m) {
  nb::class_<PyFunction>(m, "Function", nb::dynamic_attr(),
                         "A compiled function (tgc.function's result). Call it with one NumPy array (or "
                         "number) per input; it returns one array, or a list when outputs was a list.")
      .def("__call__", &call, "Runs the function: arrays in, arrays out; shared-variable updates applied after.")
      .def("__call__", &call_with_keywords,
           "Runs the function with some arguments given by their input's name: f(x, y=b).")
      .def_prop_ro("name", [](const PyFunction& pf) { return pf.f.name(); }, "The function's name.")
      .def("toposort", [](const PyFunction& pf) { return pf.f.toposort(); },
           "The compiled graph's nodes in execution order, Theano-style: ['Elemwise{exp}(x)'].")
      .def("on_device", &on_device,
           "For each node of toposort(), whether it runs on the function's device (False for "
           "every node of a cpu function; True for transfers of a device function).")
      .def(
          "graph_text",
          [](const PyFunction& pf, const std::string& stage) { return graph_text(pf.f, graph_stage(stage)); },
          nb::arg("stage") = "optimized",
          "The graph as `tgc show` lists it, one line per node; stage 'optimized' (as run) or 'raw' (as built).")
      .def(
          "graph_dot",
          [](const PyFunction& pf, const std::string& stage) { return graph_dot(pf.f, graph_stage(stage)); },
          nb::arg("stage") = "optimized",
          "The graph as Graphviz dot text (pydotprint's drawing); stage 'optimized' or 'raw'.")
      .def("profile_report", [](const PyFunction& pf) { return pf.f.profile_report(); },
           "The profile so far (profile=True), as tgc prints it; '' when not profiled.")
      .def_prop_ro("compiled_programs", [](const PyFunction& pf) { return pf.f.compiled_programs(); },
                   "Programs held: 1, plus one per new set of shared-variable shapes seen in calls.")
      .def_prop_ro("optimizer_warnings", [](const PyFunction& pf) { return pf.f.optimizer_warnings(); },
                   "The optimizer's reports for the user (warn_float64).")
      .def_prop_ro("cuda_graph_status", [](const PyFunction& pf) { return pf.f.cuda_graph_status(); },
                   "How calls used CUDA graphs, in words ('' off the GPU).")
      .def_prop_ro("shared_variables", [](const PyFunction& pf) { return pf.f.shared_variables(); },
                   "The shared variables the function reads or updates (a loaded function's own ones).")
      .def("__repr__", [](const PyFunction& pf) { return "<tgc.Function '" + pf.f.name() + "'>"; });

  m.def(
      "save",
      [](nb::handle fns, const std::string& path) {
        std::vector<const Function*> list = functions_of(fns);
        nb::gil_scoped_release released;
        save(list, path);
      },
      nb::arg("functions"), nb::arg("path"), "Writes functions to one file (docs/save.md).");
  m.def(
      "load_function",
      [](const std::string& path, const std::string& name, const std::map<std::string, std::string>& flags,
         const std::vector<Shared>& shared) {
        std::optional<Function> f;
        {
          nb::gil_scoped_release released;
          f.emplace(load_function(path, name, load_options(flags, shared)));
        }
        return wrap_loaded(std::move(*f));
      },
      nb::arg("path"), nb::arg("name") = "", nb::arg("flags") = std::map<std::string, std::string>{},
      nb::arg("shared") = std::vector<Shared>{}, "Loads one function of a saved file (docs/save.md).");
  m.def(
      "load_functions",
      [](const std::string& path, const std::map<std::string, std::string>& flags, const std::vector<Shared>& shared) {
        std::vector<Function> fns;
        {
          nb::gil_scoped_release released;
          fns = load_functions(path, load_options(flags, shared));
        }
        nb::list out;
        for (Function& f : fns) out.append(nb::cast(wrap_loaded(std::move(f))));
        return out;
      },
      nb::arg("path"), nb::arg("flags") = std::map<std::string, std::string>{},
      nb::arg("shared") = std::vector<Shared>{}, "Loads every function of a saved file (docs/save.md).");
  m.def("saved_function_names", &saved_function_names, nb::arg("path"), "The names of a saved file's functions.");
  m.def(
      "save_tg",
      [](nb::handle fns, const std::string& path) {
        std::vector<const Function*> list = functions_of(fns);
        save_tg(list, path);
      },
      nb::arg("functions"), nb::arg("path"),
      "Writes functions as a readable .tg program, their arrays as .npy files beside it (docs/save.md).");
  m.def(
      "save_shared", [](const std::vector<Shared>& vars, const std::string& path) { save_shared(vars, path); },
      nb::arg("variables"), nb::arg("path"), "Writes a checkpoint of named shared variables (docs/save.md).");
  m.def(
      "load_shared", [](const std::vector<Shared>& vars, const std::string& path) { load_shared(vars, path); },
      nb::arg("variables"), nb::arg("path"), "Sets named shared variables from a checkpoint, all or none.");

  m.def("function", &compile, nb::arg("inputs"), nb::arg("outputs") = nb::none(), nb::arg("updates") = nb::none(),
        nb::arg("givens") = nb::none(), nb::arg("name") = "", nb::arg("profile") = false,
        nb::arg("device") = nb::none(), nb::arg("borrow") = false, nb::arg("device_result") = false,
        nb::arg("flags") = std::map<std::string, std::string>{}, nb::arg("no_default_updates") = false,
        "Compiles a function from symbolic inputs to outputs (Theano's theano.function).\n\n"
        "updates: (shared variable, new value) pairs or a dict, applied together after a call.\n"
        "name: shown in errors and profiles. profile: time every node (report printed when the\n"
        "function is freed; also f.profile_report()). device: 'cpu', 'cuda', 'opencl' (default:\n"
        "config.device). borrow: results may alias inputs or shared values. device_result: on a\n"
        "GPU, results stay there as tgc.DeviceArray (DLPack, no copy). flags: config keys for\n"
        "this function only. no_default_updates: leave out the shared variables' default updates\n"
        "(a RandomStreams draw repeats). givens: {variable: replacement} (or pairs), each read of\n"
        "the variable replaced by the replacement, e.g. givens={x: data[i]} for a minibatch.");
}

}  // namespace tgc::python
