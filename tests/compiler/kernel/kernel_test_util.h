// Helpers of the Kernel IR tests: a fused group made of a whole small graph, random input
// tensors, and the check that a kernel computes what the unfused graph computes.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <unordered_set>
#include <vector>

#include <tgc/tgc.h>

#include "compiler/kernel/interpreter.h"
#include "compiler/kernel/interpreter_internal.h"
#include "compiler/kernel/lower.h"
#include "ops/core/graph.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc::test {

// A graph copy and the group of all its nodes, as fusion would hand it over.
struct WholeGroup {
  Graph graph;
  FusedGroup group;
};

inline WholeGroup whole_group(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  WholeGroup w{Graph::clone_of(to_ptrs(inputs), to_ptrs(outputs)), {}};
  w.group.nodes = w.graph.toposort();
  std::unordered_set<const Node*> in_group(w.group.nodes.begin(), w.group.nodes.end());
  std::unordered_set<const Variable*> seen;
  for (Node* n : w.group.nodes)
    for (const VarPtr& in : n->inputs())
      if ((!in->owner() || !in_group.count(in->owner())) && seen.insert(in.get()).second) w.group.inputs.push_back(in);
  w.group.outputs = w.graph.outputs();
  return w;
}

// Values in [-3, 3] for floats, [-20, 20] for signed integers, [0, 40] for uint8, 0/1 for
// bool; the same for the same seed.
inline Tensor random_tensor(const Shape& shape, DType dtype, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (double& x : v) {
    if (is_float(dtype)) x = std::uniform_real_distribution<double>(-3, 3)(gen);
    else if (dtype == DType::Bool) x = std::uniform_int_distribution<int>(0, 1)(gen);
    else if (dtype == DType::UInt8) x = std::uniform_int_distribution<int>(0, 40)(gen);
    else x = std::uniform_int_distribution<int>(-20, 20)(gen);
  }
  return Tensor::from_vector(v, shape).astype(dtype);
}

// The tensors a lowered kernel reads: the values given for the graph's inputs, constants'
// values for constants.
inline std::vector<Tensor> kernel_args(const WholeGroup& w, const LoweredGroup& lowered,
                                       const std::vector<Tensor>& values) {
  std::vector<Tensor> args;
  for (const VarPtr& in : lowered.inputs) {
    if (in->kind() == Variable::Kind::Constant) {
      args.push_back(in->constant_value());
      continue;
    }
    if (in->kind() == Variable::Kind::Shared) {
      args.push_back(in->storage()->current());
      continue;
    }
    size_t k = 0;
    while (k < w.graph.inputs().size() && w.graph.inputs()[k] != in) ++k;
    EXPECT_LT(k, values.size()) << "kernel input " << in->label() << " is no graph input";
    args.push_back(k < values.size() ? values[k] : Tensor());
  }
  return args;
}

enum class Path { Fast, General };

// Lowers the whole graph, runs the kernel (expecting `path` to be chosen) and, separately,
// the general path, and compares both with the unfused graph's reference evaluation:
// exactly, or within rtol for reductions where summation order could matter.
inline void expect_kernel_matches_graph(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                        const std::vector<Tensor>& values, Path path = Path::Fast,
                                        double rtol = 0) {
  WholeGroup w = whole_group(inputs, outputs);
  LoweredGroup lowered = lower_group(w.group);
  std::vector<std::pair<Var, Tensor>> givens;
  for (size_t k = 0; k < values.size(); ++k) givens.emplace_back(Var(w.graph.inputs()[k]), values[k]);
  GraphEval eval(givens);
  std::vector<Tensor> args = kernel_args(w, lowered, values);
  std::vector<Shape> shapes;
  for (const Tensor& t : args) shapes.push_back(t.shape());
  EXPECT_EQ(kernel_fast_path_applies(lowered.kernel, shapes), path == Path::Fast) << lowered.kernel.str();
  std::vector<Tensor> got(lowered.kernel.outputs.size()), general(lowered.kernel.outputs.size());
  run_kernel(lowered.kernel, args, got);
  run_kernel_general(lowered.kernel, args, general);
  std::vector<Shape> inferred = kernel_output_shapes(lowered.kernel, shapes);
  for (size_t j = 0; j < outputs.size(); ++j) {
    const Tensor want = eval(Var(w.graph.outputs()[j]));
    SCOPED_TRACE("output " + std::to_string(j) + " of\n" + lowered.kernel.str());
    EXPECT_EQ(inferred[j], want.shape());
    EXPECT_TRUE(same_values(got[j], want, rtol)) << got[j].str() << "\nexpected\n" << want.str();
    EXPECT_TRUE(same_values(general[j], want, rtol)) << "general path: " << general[j].str();
  }
}

}  // namespace tgc::test
