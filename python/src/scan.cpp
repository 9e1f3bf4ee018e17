// tgc.scan and tgc.until: Theano's scan over the C++ API's scan() (<tgc/scan.h>). The step is
// a Python callable, called once with placeholders while the graph is built; Theano's
// conventions for its arguments and its return value are read here and nowhere else.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"

namespace tgc::python {
namespace {

// until(cond): returned by a step beside its results to end the loop.
struct UntilCondition {
  Var condition;
};

std::vector<int> as_taps(nb::handle obj) {
  if (PyLong_Check(obj.ptr())) return {nb::cast<int>(obj)};
  return nb::cast<std::vector<int>>(obj);
}

// A list of entries from None, one entry, or a list/tuple of them.
std::vector<nb::handle> entries(nb::handle obj) {
  std::vector<nb::handle> out;
  if (obj.is_none()) return out;
  if (nb::isinstance<nb::list>(obj) || nb::isinstance<nb::tuple>(obj)) {
    for (nb::handle h : obj) out.push_back(h);
    return out;
  }
  out.push_back(obj);
  return out;
}

ScanStep step_result(nb::handle returned) {
  std::vector<Var> outputs;
  Updates updates;
  Var until;
  auto add = [&](nb::handle item, auto& self) -> void {
    if (nb::isinstance<UntilCondition>(item)) {
      until = nb::cast<UntilCondition&>(item).condition;
    } else if (nb::isinstance<nb::dict>(item)) {
      for (auto [k, v] : nb::cast<nb::dict>(item)) {
        Var target = as_var(k);
        updates.push_back({Shared(target.ptr()), as_var(v)});
      }
    } else if (nb::isinstance<nb::list>(item) || nb::isinstance<nb::tuple>(item)) {
      for (nb::handle h : item) self(h, self);
    } else {
      outputs.push_back(as_var(item));
    }
  };
  add(returned, add);
  return ScanStep(outputs, updates, until);
}

nb::object scan_py(nb::callable fn, nb::handle sequences, nb::handle outputs_info, nb::handle non_sequences,
                   nb::handle n_steps, int64_t truncate_gradient, bool go_backwards, std::optional<std::string> name) {
  std::vector<Sequence> seqs;
  for (nb::handle e : entries(sequences)) {
    if (nb::isinstance<nb::dict>(e)) {
      nb::dict d = nb::cast<nb::dict>(e);
      if (!d.contains("input")) throw InputError("a sequence given as a dict needs 'input'", "scan()",
                                                 "dict(input=x, taps=[-1, 0])");
      Var v = as_var(d["input"]);
      seqs.push_back(d.contains("taps") ? Sequence(v, as_taps(d["taps"])) : Sequence(v));
    } else {
      seqs.emplace_back(as_var(e));
    }
  }
  std::vector<OutputInfo> infos;
  for (nb::handle e : entries(outputs_info)) {
    if (e.is_none()) {
      infos.push_back(OutputInfo::none());
    } else if (nb::isinstance<nb::dict>(e)) {
      nb::dict d = nb::cast<nb::dict>(e);
      if (!d.contains("initial") || nb::handle(d["initial"]).is_none()) {
        infos.push_back(OutputInfo::none());
        continue;
      }
      Var v = as_var(d["initial"]);
      infos.push_back(d.contains("taps") ? OutputInfo(v, as_taps(d["taps"])) : OutputInfo(v));
    } else {
      infos.emplace_back(as_var(e));
    }
  }
  std::vector<Var> non_seqs;
  for (nb::handle e : entries(non_sequences)) non_seqs.push_back(as_var(e));
  ScanOptions options;
  if (!n_steps.is_none()) {
    if (PyLong_Check(n_steps.ptr())) options.n_steps = nb::cast<int64_t>(n_steps);
    else options.n_steps_var = as_var(n_steps);
  }
  options.truncate_gradient = truncate_gradient;
  options.go_backwards = go_backwards;
  if (name) options.name = *name;
  StepFn step = [&fn](const std::vector<Var>& args) {
    nb::list py_args;
    for (const Var& a : args) py_args.append(nb::cast(a));
    return step_result(fn(*py_args));
  };
  ScanResult r = scan(step, seqs, infos, non_seqs, options);
  nb::object outs;
  if (r.outputs.size() == 1) {
    outs = nb::cast(r.outputs[0]);
  } else {
    nb::list l;
    for (const Var& v : r.outputs) l.append(nb::cast(v));
    outs = l;
  }
  nb::dict updates;
  for (const auto& [var, value] : r.updates) updates[nb::cast(var)] = nb::cast(value);
  return nb::make_tuple(outs, updates);
}

}  // namespace

void bind_scan(nb::module_& m) {
  nb::class_<UntilCondition>(m, "Until", "until(cond): a scan step's signal to stop after this step.")
      .def_ro("condition", &UntilCondition::condition);
  m.def("until", [](nb::handle cond) { return UntilCondition{as_var(cond)}; }, nb::arg("condition"),
        "Returned by a scan step beside its results: the loop ends after the step where condition is true.");
  m.def("scan", &scan_py, nb::arg("fn"), nb::arg("sequences") = nb::none(), nb::arg("outputs_info") = nb::none(),
        nb::arg("non_sequences") = nb::none(), nb::arg("n_steps") = nb::none(), nb::arg("truncate_gradient") = -1,
        nb::arg("go_backwards") = false, nb::arg("name") = nb::none(),
        "Theano's scan: fn maps each step's sequence taps, previous results (outputs_info) and "
        "non_sequences to the step's results (and optionally an updates dict and until(cond)). "
        "Returns (outputs, updates): each result stacked over the steps (one variable, or a "
        "list), and a dict of shared variables to their values after the loop for function(updates=). "
        "Sequences and outputs_info entries may be dict(input=x, taps=[...]) / dict(initial=h0, taps=[...]); "
        "None in outputs_info marks a result that is not fed back. Differentiable.");
}

}  // namespace tgc::python
