// The CI gate of the CUDA renderer: every kernel that the conformance suite's cases and
// random graphs make after optimization (the Composite nodes of Function::graph()) is
// rendered and compiled with NVRTC for sm_90 (every kernel) and sm_80 (every fourth: the
// renderer writes nothing per architecture, so sm_80 checks only that NVRTC's older target
// accepts the same spellings; the whole set would double this gate's two CI minutes).
// Needs no GPU and no driver.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <thread>

#include "backends/backend_registry.h"
#include "backends/c_family/kernel_render.h"
#include "backends/c_family/render_copy.h"
#include "backends/c_family/kernel_test_util.h"
#include "backends/cuda/nvrtc_compiler.h"
#include "compiler/kernel/composite_op.h"
#include "conformance/conformance.h"
#include "ops/core/graph.h"
#include "runtime/error.h"
#include "support/random_graph.h"

namespace tgc::conformance {

// This binary links the case families, whose TEST_Ps run in conformance_tests, not here.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Conformance);

namespace {


struct Collected {
  std::vector<Kernel> kernels;       // distinct
  std::vector<std::string> origins;  // the case that made each first
  int graphs = 0;
};

void collect(const std::string& name, const std::vector<Var>& inputs, const std::vector<Var>& outputs,
             const std::map<std::string, std::string>& config, Collected& c, std::set<uint64_t>& seen) {
  // The default optimizer, as conformance_tests compiles each case for a backend.
  ForcedBackendForTests force("reference");
  FunctionOptions options{.name = name, .config = config};
  Function f = function(inputs, outputs, {}, options);
  ++c.graphs;
  for (Node* node : f.graph().toposort()) {
    const auto* composite = dynamic_cast<const Composite*>(&node->op());
    if (!composite) continue;
    const Kernel& k = composite->kernel();
    if (!seen.insert(k.hash()).second) continue;
    c.kernels.push_back(k);
    c.origins.push_back(name);
  }
}

const Collected& conformance_kernels() {
  static const Collected all = [] {
    Collected c;
    std::set<uint64_t> seen;
    for (const auto& [family, build] : families())
      for (const Case& cs : build()) collect(family + ": " + cs.name, cs.inputs, cs.outputs, cs.config, c, seen);
    for (int seed = 0; seed < kRandomGraphSeeds; ++seed) {
      test::RandomGraph g = test::random_graph(static_cast<uint64_t>(seed));
      collect("random graph " + std::to_string(seed), g.inputs, g.outputs, {}, c, seen);
    }
    std::printf("[nvrtc] %zu distinct kernels from %d graphs\n", c.kernels.size(), c.graphs);
    return c;
  }();
  return all;
}

// Kernels per NVRTC program: one preamble, many bodies, so the whole set compiles in seconds.
constexpr size_t kBatch = 40;
constexpr size_t kFastMathStride = 8;
constexpr size_t kSm80Stride = 4;

// Fast math changes only the float32 rows' spelling: every `stride`-th kernel is enough.
std::string batch_source(const Collected& c, size_t begin, size_t end, bool fast_math, size_t stride = 1) {
  std::string code = cfam::render_preamble(cfam::Dialect::Cuda);
  for (size_t i = begin; i < end; i += stride)
    code += cfam::render_body(c.kernels[i], {.dialect = cfam::Dialect::Cuda, .fast_math = fast_math,
                                             .name_prefix = "k" + std::to_string(i)})
                .code;
  return code;
}

// Whether to assemble cubins (TGC_NVRTC_CUBIN=1, minutes) rather than stop at PTX (the
// default: NVRTC's front end and code generator, where every renderer bug shows, without
// ptxas; what keeps this gate within the CI budget).
bool assemble_cubins() {
  const char* v = std::getenv("TGC_NVRTC_CUBIN");
  return v && std::string(v) == "1";
}

// Compiles every kernel, batches on two threads (NVRTC is thread-safe); on a failing batch,
// finds the failing kernels one by one so the report names them with their NVRTC log.
void compile_all(int arch, bool fast_math, size_t stride = 1) {
  const Collected& c = conformance_kernels();
  ASSERT_FALSE(c.kernels.empty());
  const auto start = std::chrono::steady_clock::now();
  const cuda::NvrtcOptions options{.arch = arch, .fast_math = fast_math, .extra = {}, .ptx_only = !assemble_cubins()};
  if (fast_math) stride = kFastMathStride;
  std::atomic<size_t> next{0};
  std::atomic<int> failures{0};
  auto worker = [&] {
    for (size_t begin = next.fetch_add(kBatch); begin < c.kernels.size(); begin = next.fetch_add(kBatch)) {
      const size_t end = std::min(c.kernels.size(), begin + kBatch);
      try {
        const std::string source = batch_source(c, begin, end, fast_math, stride);
        EXPECT_GT(cuda::nvrtc_compile(source, "conformance_batch", options).size(), 0u);
        continue;
      } catch (const InternalError&) {
      }
      for (size_t i = begin; i < end && failures < 3; i += stride) {
        try {
          cuda::nvrtc_compile(batch_source(c, i, i + 1, fast_math), "kernel_" + std::to_string(i), options);
        } catch (const InternalError& e) {
          ++failures;
          std::string what = e.what();
          if (what.size() > 20000) what = what.substr(0, 20000) + "\n...";
          ADD_FAILURE() << "sm_" << arch << ": the kernel of " << c.origins[i] << " does not compile:\n"
                        << c.kernels[i].str() << "\n" << what;
        }
      }
    }
  };
  std::thread helper(worker);
  worker();
  helper.join();
  std::printf("[nvrtc] %s_%d%s: %zu kernels of %d graphs compiled in %.1f s\n", options.ptx_only ? "compute" : "sm", arch, fast_math ? " fast_math" : "",
              (c.kernels.size() + stride - 1) / stride, c.graphs,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

TEST(NvrtcKernels, TheConformanceSuiteMakesElementwiseAndReductionKernels) {
  const Collected& c = conformance_kernels();
  size_t reductions = 0;
  for (const Kernel& k : c.kernels) reductions += k.is_reduction() ? 1 : 0;
  EXPECT_GT(c.kernels.size(), 100u);
  EXPECT_GT(reductions, 20u);
  EXPECT_LT(reductions, c.kernels.size());
}

TEST(NvrtcKernels, EveryConformanceKernelCompilesForSm90) { compile_all(90, false); }
TEST(NvrtcKernels, EveryFourthConformanceKernelCompilesForSm80) { compile_all(80, false, kSm80Stride); }
TEST(NvrtcKernels, EveryConformanceKernelCompilesWithFastMath) { compile_all(90, true); }

// The GPU layer's copy kernels (c_family/render_copy.h), which CudaDevice loads before any
// recording: every entry compiles for both architectures.
TEST(NvrtcKernels, CopyKernelsCompile) {
  const std::string source = cfam::render_copy_kernels(cfam::Dialect::Cuda).code;
  for (int arch : {80, 90})
    EXPECT_GT(cuda::nvrtc_compile(source, "copy_kernels", {.arch = arch, .extra = {}, .ptx_only = false}).size(), 0u);
}

TEST(NvrtcKernels, CompileErrorsCarryTheLogAndTheNumberedSource) {
  try {
    cuda::nvrtc_compile("extern \"C\" __global__ void broken() { undefined_name; }", "broken", {});
    FAIL() << "a broken source compiled";
  } catch (const InternalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("undefined_name"), std::string::npos) << what;
    EXPECT_NE(what.find("    1 extern"), std::string::npos) << what;
  }
}

TEST(NvrtcKernels, VersionAndCache) {
  EXPECT_NE(cuda::nvrtc_version().find('.'), std::string::npos);
  const std::string src = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }";
  const std::string a = cuda::nvrtc_compile(src, "k", {.arch = 80, .extra = {}, .ptx_only = false});
  const std::string b = cuda::nvrtc_compile(src, "k", {.arch = 80, .extra = {}, .ptx_only = false});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, cuda::nvrtc_compile(src, "k", {.arch = 90, .extra = {}, .ptx_only = false}));
}

// The units a function misses build as one NVRTC program: whole units (each with its guarded
// preamble and its own entry prefix) concatenate, and the program's binary is cached under
// each unit's key, so that each unit's own build finds it.
TEST(NvrtcKernels, UnitsCompiledTogetherAreEachCached) {
  const Kernel add = test::binary_kernel(ScalarOpKind::Add, DType::Float32, 2);
  const Kernel sum = test::reduce_kernel(KernelReduceOp::Sum, 2, {1});
  cfam::RenderOptions a_options{.dialect = cfam::Dialect::Cuda, .name_prefix = "together_a"};
  cfam::RenderOptions b_options{.dialect = cfam::Dialect::Cuda, .name_prefix = "together_b"};
  const std::string a = cfam::render(add, a_options).code, b = cfam::render(sum, b_options).code;
  const cuda::NvrtcOptions options{.arch = 90, .fast_math = false, .extra = {"-DTOGETHER_TEST"}, .ptx_only = false};
  EXPECT_FALSE(cuda::nvrtc_cached(a, "a", options));
  EXPECT_FALSE(cuda::nvrtc_cached(b, "b", options));
  cuda::nvrtc_compile_together({a, b}, "a and b", options);
  ASSERT_TRUE(cuda::nvrtc_cached(a, "a", options));
  ASSERT_TRUE(cuda::nvrtc_cached(b, "b", options));
  const std::string cubin = cuda::nvrtc_compile(a, "a", options);
  EXPECT_EQ(cuda::nvrtc_compile(b, "b", options), cubin);
  for (const std::string& entry : {cfam::render(add, a_options).entries[0], cfam::render(sum, b_options).entries[0]})
    EXPECT_NE(cubin.find(entry), std::string::npos) << entry << " is not in the program's binary";
}

}  // namespace
}  // namespace tgc::conformance
