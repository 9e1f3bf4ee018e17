// The backend end to end: function() on device=cpu runs fused kernels JIT-compiled and
// agrees with the reference per-op evaluation (optimizer=none); tgc emit's LLVM IR shows
// vectorized loops calling libmvec; the description names the path.
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/libmvec_table.h"
#include "backends/cpu/llvm_jit.h"
#include "cpu_test_util.h"

namespace tgc {
namespace {

using test::random_tensor;

TEST(CpuBackend, FunctionMatchesTheReferenceEvaluation) {
  Var a = vector("a"), b = vector("b"), m = matrix("m");
  Var chain = a * exp(-b) + tanh(a) - 0.5 * b;
  Var reduced = sum(exp(m) * 2.0, 1) + a;
  Function fast = function({a, b, m}, {chain, reduced});
  Function reference = function({a, b, m}, {chain, reduced}, {}, FunctionOptions{.config = {{"optimizer", "none"}}});
  bool fused = false;
  for (const Node* n : fast.graph().toposort()) fused = fused || n->op().op_class() == "Composite";
  EXPECT_TRUE(fused) << "the optimizer fused nothing: this test checks nothing of the LLVM backend";
  std::vector<Tensor> args{random_tensor({9}, DType::Float32, 1), random_tensor({9}, DType::Float32, 2),
                           random_tensor({9, 9}, DType::Float32, 3)};
  std::vector<Tensor> got = fast(args), want = reference(args);
  for (size_t j = 0; j < got.size(); ++j) EXPECT_TRUE(test::same_values(got[j], want[j], 1e-6)) << j;
}

TEST(CpuBackend, EmittedIrCallsLibmvecInAVectorLoop) {
  Var a = vector("a", DType::Float64);
  test::WholeGroup w = test::whole_group({a}, {exp(a) + tanh(a)});
  const std::string ir = emit_llvm_ir(lower_group(w.group).kernel);
  EXPECT_NE(ir.find("define"), std::string::npos);
  EXPECT_NE(ir.find("_ZGV"), std::string::npos) << "no libmvec vector call:\n" << ir;
  EXPECT_NE(ir.find("x double>"), std::string::npos) << "no vector code:\n" << ir;
}

// cpu_vector_width picks the libmvec variant of the main loop: 8 float lanes (AVX2's) at 256
// bits; 16 (AVX-512's) at 512 and by default, where the host has AVX-512.
TEST(CpuBackend, VectorWidthPicksTheLibmvecVariant) {
  Var a = vector("a", DType::Float32);
  test::WholeGroup w = test::whole_group({a}, {exp(a)});
  const Kernel& kernel = lower_group(w.group).kernel;
  Config narrow;
  narrow.cpu_vector_width = "256";
  const std::string ir256 = emit_llvm_ir(kernel, narrow);
  EXPECT_NE(ir256.find("call <8 x float> @_ZGVdN8v_expf"), std::string::npos) << ir256;
  EXPECT_EQ(ir256.find("call <16 x float> @_ZGVeN16v_expf"), std::string::npos) << ir256;
  if (!cpu::has_avx512f(cpu::host_target().features)) GTEST_SKIP() << "this CPU has no AVX-512: no 16-lane variants";
  Config wide;
  wide.cpu_vector_width = "512";
  for (const Config& config : {Config{}, wide}) {
    const std::string ir = emit_llvm_ir(kernel, config);
    EXPECT_NE(ir.find("call <16 x float> @_ZGVeN16v_expf"), std::string::npos) << ir;
  }
  EXPECT_NE(cpu_backend_description().find("512-bit vectors"), std::string::npos) << cpu_backend_description();
  EXPECT_NE(cpu_backend_description(narrow).find("256-bit vectors"), std::string::npos);
}

TEST(CpuBackend, DescriptionNamesTheLlvmPath) {
  EXPECT_TRUE(llvm_backend_available());
  EXPECT_EQ(cpu_backend_description().rfind("llvm: LLVM ", 0), 0u) << cpu_backend_description();
}

}  // namespace
}  // namespace tgc
