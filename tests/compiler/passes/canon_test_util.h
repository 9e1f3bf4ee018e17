// Shared by the tests of the canonicalize phase (merge, constant_fold, canonicalize): runs a
// pass on the graph of some Vars while keeping the graph as built, and compares the two by
// structure (the op names in toposort order) and by value (each op's reference perform on
// random inputs).
#pragma once

#include <gtest/gtest.h>

#include <source_location>
#include <string>
#include <vector>

#include <tgc/tgc.h>

#include "compiler/passes/pipeline.h"
#include "ops/core/graph.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc::test {

using PassFn = bool (*)(Graph&, const PassContext&);

struct PassRun {
  Graph before;  // the graph as built
  Graph after;   // the same graph after the pass
  bool changed = false;
};

// Copies the graph of `outputs` twice and runs `pass` on the second copy, then checks that
// every node still type-checks (what optimize() checks after each pass).
inline PassRun run_pass(PassFn pass, const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                        const PassContext& ctx = {}) {
  PassRun r;
  r.before = Graph::clone_of(to_ptrs(inputs), to_ptrs(outputs));
  r.after = Graph::clone_of(r.before.inputs(), r.before.outputs());
  r.changed = pass(r.after, ctx);
  verify_graph(r.after, "the pass under test");
  return r;
}

// The op names of the graph's nodes in toposort order ("Elemwise{exp}", "Alloc{(3, 4)}").
inline std::vector<std::string> op_names(const Graph& g) {
  std::vector<std::string> names;
  for (Node* n : g.toposort()) names.push_back(n->op().name());
  return names;
}

// A random value of type `t`, `unknown_dim` long along every dim the type leaves open:
// floats in [0.5, 2) (so log and sqrt stay real), integers in [1, 6), bools either way.
inline Tensor random_input(const Type& t, RandomState& rng, int64_t unknown_dim = 3) {
  Shape shape;
  for (int64_t d : t.shape) shape.push_back(d == kUnknownDim ? unknown_dim : d);
  if (is_float(t.dtype)) return rng.uniform(0.5, 2.0, shape).astype(t.dtype);
  if (t.dtype == DType::Bool) return rng.randint(0, 2, shape, DType::Bool);
  return rng.randint(1, 6, shape, t.dtype);
}

// Evaluates both graphs of `r` on the given inputs (one tensor per input) and expects every
// output to have the same dtype, shape and values (floats within rtol and atol).
inline void expect_same_on(const PassRun& r, const std::vector<Tensor>& values, double rtol, double atol = 0.0,
                           std::source_location at = std::source_location::current()) {
  std::vector<std::pair<Var, Tensor>> before_in, after_in;
  for (size_t i = 0; i < values.size(); ++i) {
    before_in.push_back({Var(r.before.inputs()[i]), values[i]});
    after_in.push_back({Var(r.after.inputs()[i]), values[i]});
  }
  GraphEval before(before_in), after(after_in);
  for (size_t o = 0; o < r.before.outputs().size(); ++o) {
    Tensor want = before(Var(r.before.outputs()[o]));
    Tensor got = after(Var(r.after.outputs()[o]));
    if (::testing::AssertionResult same = same_values(got, want, rtol, atol); !same)
      ADD_FAILURE_AT(at.file_name(), at.line()) << "output " << o << ": " << same.message() << "\n"
                                                << got.str() << "\nexpected\n" << want.str();
  }
}

// Evaluates both graphs of `r` on the same random inputs (a few draws) and expects every
// output to have the same dtype, shape and values (floats within `rtol`).
inline void expect_same_results(const PassRun& r, double rtol = 1e-6, int64_t unknown_dim = 3,
                                std::source_location at = std::source_location::current()) {
  RandomState rng(1234);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<std::pair<Var, Tensor>> before_in, after_in;
    for (size_t i = 0; i < r.before.inputs().size(); ++i) {
      Tensor v = random_input(r.before.inputs()[i]->type(), rng, unknown_dim);
      before_in.push_back({Var(r.before.inputs()[i]), v});
      after_in.push_back({Var(r.after.inputs()[i]), v});
    }
    GraphEval before(before_in), after(after_in);
    for (size_t o = 0; o < r.before.outputs().size(); ++o) {
      Tensor want = before(Var(r.before.outputs()[o]));
      Tensor got = after(Var(r.after.outputs()[o]));
      if (::testing::AssertionResult same = same_values(got, want, rtol); !same)
        ADD_FAILURE_AT(at.file_name(), at.line()) << "output " << o << ": " << same.message() << "\n"
                                                  << got.str() << "\nexpected\n" << want.str();
    }
  }
}

}  // namespace tgc::test
