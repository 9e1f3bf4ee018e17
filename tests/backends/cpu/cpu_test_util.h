// Helpers of the LLVM CPU backend tests: lower a whole small graph to a kernel, run it through
// a JIT-compiled kernel, and compare with the unfused graph's reference evaluation.
#pragma once

#include <gtest/gtest.h>

#include "backends/cpu/kernel_launch.h"
#include "backends/cpu/llvm_jit.h"
#include "compiler/kernel/kernel_test_util.h"

namespace tgc::test {

// A compiler whose cache lives in memory only: every test compiles what it runs. The default
// options (float32_math=float32), or float32_math=double for bit-exact float32 libm rows.
inline cpu::KernelCompiler& memory_compiler(bool float32_math = true) {
  static KernelCache cache("");
  static cpu::KernelCompiler in_float(cache, cpu::CodegenOptions{});
  static cpu::KernelCompiler in_double(cache, cpu::CodegenOptions{.float32_math = false});
  return float32_math ? in_float : in_double;
}

inline std::vector<Tensor> run_llvm(const Kernel& kernel, const std::vector<Tensor>& args, bool float32_math = true) {
  std::vector<Tensor> out(kernel.outputs.size());
  cpu::launch_kernel(kernel, memory_compiler(float32_math).get(kernel), args, out);
  return out;
}

// Lowers the graph, runs its kernel compiled, compares every output with the unfused
// graph: within rtol (0: exactly), output j with tolerance rtols[j] when given, plus atol.
inline void expect_llvm_matches_graph(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                      const std::vector<Tensor>& values, double rtol = 0,
                                      const std::vector<double>& rtols = {},
                                      const std::vector<std::string>& names = {}, double atol = 0) {
  WholeGroup w = whole_group(inputs, outputs);
  LoweredGroup lowered = lower_group(w.group);
  std::vector<std::pair<Var, Tensor>> givens;
  for (size_t k = 0; k < values.size(); ++k) givens.emplace_back(Var(w.graph.inputs()[k]), values[k]);
  GraphEval eval(givens);
  std::vector<Tensor> got = run_llvm(lowered.kernel, kernel_args(w, lowered, values));
  for (size_t j = 0; j < outputs.size(); ++j) {
    const Tensor want = eval(Var(w.graph.outputs()[j]));
    SCOPED_TRACE("output " + std::to_string(j) + (j < names.size() ? " (" + names[j] + ")" : ""));
    const double tol = j < rtols.size() ? rtols[j] : rtol;
    EXPECT_TRUE(same_values(got[j], want, tol, atol)) << got[j].str() << "\nexpected\n" << want.str();
  }
}

}  // namespace tgc::test
