// Random streams from Python: tgc.RandomStreams (Theano's RandomStreams: symbolic draws whose
// state advances on every call, the same numbers on every device) and the default-update
// functions, over <tgc/random.h> and <tgc/function.h>.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"

namespace tgc::python {
namespace {

// size: an int, a sequence of ints, or a symbolic tensor whose shape the draw takes.
DrawSize as_size(nb::handle size) {
  if (nb::isinstance<Var>(size)) return DrawSize::like_of(nb::cast<Var>(size));
  if (PyLong_Check(size.ptr())) return DrawSize(std::vector<int64_t>{nb::cast<int64_t>(size)});
  std::vector<int64_t> dims;
  for (nb::handle d : size) {
    if (nb::isinstance<Var>(d))
      throw TypeError("a draw's size with a symbolic entry", "RandomStreams",
                      "give ints, or the tensor itself to take its whole shape: rng.uniform(h)");
    dims.push_back(nb::cast<int64_t>(nb::int_(d)));
  }
  return DrawSize(dims);
}

std::optional<DType> opt_dtype(nb::handle d) {
  if (d.is_none()) return std::nullopt;
  return as_dtype(d);
}

}  // namespace

void bind_random(nb::module_& m) {
  nb::class_<RandomStreams>(m, "RandomStreams",
                            "Theano's RandomStreams(seed): symbolic draws (Philox4x32-10; the same numbers on "
                            "every device) whose state advances on every call of a function; seed() starts again.")
      .def(nb::init<uint64_t>(), nb::arg("seed") = 0)
      .def(
          "uniform",
          [](RandomStreams& r, nb::handle size, nb::handle low, nb::handle high, nb::handle dtype) {
            return r.uniform(as_size(size), as_operand(low), as_operand(high), opt_dtype(dtype));
          },
          nb::arg("size"), nb::arg("low") = 0.0, nb::arg("high") = 1.0, nb::arg("dtype") = nb::none(),
          "Uniform on [low, high) of shape size (ints, or a tensor to take the shape of); dtype floatX.")
      .def(
          "normal",
          [](RandomStreams& r, nb::handle size, nb::handle avg, nb::handle std, nb::handle dtype) {
            return r.normal(as_size(size), as_operand(avg), as_operand(std), opt_dtype(dtype));
          },
          nb::arg("size"), nb::arg("avg") = 0.0, nb::arg("std") = 1.0, nb::arg("dtype") = nb::none(),
          "Normal with mean avg and deviation std.")
      .def(
          "binomial",
          [](RandomStreams& r, nb::handle size, int64_t n, nb::handle p, nb::handle dtype) {
            return r.binomial(as_size(size), n, as_operand(p), dtype.is_none() ? DType::Int64 : as_dtype(dtype));
          },
          nb::arg("size"), nb::arg("n") = 1, nb::arg("p") = 0.5, nb::arg("dtype") = nb::none(),
          "Successes in n trials of probability p (int64 unless dtype).")
      .def(
          "randint",
          [](RandomStreams& r, nb::handle size, int64_t low, int64_t high, nb::handle dtype) {
            return r.randint(as_size(size), low, high, dtype.is_none() ? DType::Int64 : as_dtype(dtype));
          },
          nb::arg("size"), nb::arg("low"), nb::arg("high"), nb::arg("dtype") = nb::none(),
          "Integers on [low, high), as numpy's randint.")
      .def(
          "random_integers",
          [](RandomStreams& r, nb::handle size, int64_t low, int64_t high) {
            return r.randint(as_size(size), low, high + 1);
          },
          nb::arg("size"), nb::arg("low") = 0, nb::arg("high") = 1, "Theano's: integers on [low, high], int64.")
      .def(
          "choice",
          [](RandomStreams& r, nb::handle size, nb::handle a, bool replace, nb::handle p) {
            const Var weights = p.is_none() ? Var() : as_var(p);
            if (nb::isinstance<Var>(a)) return r.choice(as_size(size), nb::cast<Var>(a), replace, weights);
            return r.choice(as_size(size), nb::cast<int64_t>(a), replace, weights);
          },
          nb::arg("size"), nb::arg("a"), nb::arg("replace") = true, nb::arg("p") = nb::none(),
          "Elements of arange(a) (an int) or of the vector a, uniformly or with weights p (with "
          "replacement); replace=False: none twice.")
      .def("permutation", &RandomStreams::permutation, nb::arg("n"), "A random ordering of 0 .. n-1 (int64).")
      .def("seed", &RandomStreams::seed, nb::arg("seed"), "Starts every stream of these streams again from seed.")
      .def("states", &RandomStreams::states, "The state shared variable of each draw made, in order.");

  m.def("set_default_update", &set_default_update, nb::arg("var"), nb::arg("update"),
        "Theano's var.default_update = update: every function that reaches var and gives it no update "
        "of its own updates it so (unless no_default_updates).");
  m.def("clear_default_update", &clear_default_update, nb::arg("var"));
  m.def(
      "default_update",
      [](const Shared& var) -> std::optional<Var> {
        Var u = default_update(var);
        return u.defined() ? std::optional<Var>(u) : std::nullopt;
      },
      nb::arg("var"), "The default update of var, or None.");
}

}  // namespace tgc::python
