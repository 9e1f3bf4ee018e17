// tgc show, emit and devices through the binary: the optimized graphs of the examples (one
// fused node for two_outputs and for sumsq), the dot format, the rewrite trace, the Kernel
// IR listing and the errors for code generators this build lacks.
#include <gtest/gtest.h>

#include <sstream>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "cli/cli_runner.h"
#include "cli/dot_check.h"
#include "runtime/comm/mpi_library.h"

namespace tgc::test {
namespace {

// The node lines of tgc show's text format (between "inputs:" and "outputs:").
std::vector<std::string> node_lines(const std::string& text) {
  std::vector<std::string> nodes;
  std::istringstream in(text);
  std::string line;
  bool in_nodes = false;
  while (std::getline(in, line)) {
    if (line.starts_with("inputs:")) in_nodes = true;
    else if (line == "outputs:") in_nodes = false;
    else if (in_nodes) nodes.push_back(line);
  }
  return nodes;
}

CliResult show(std::vector<std::string> args) {
  args.insert(args.begin(), "show");
  CliResult r = run_tgc(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r;
}

TEST(CliShow, TwoOutputsFuseIntoOneNodeProducingBoth) {
  CliResult r = show({example("two_outputs.tg"), "--stage", "optimized"});
  std::vector<std::string> nodes = node_lines(r.out);
  ASSERT_EQ(nodes.size(), 1u) << r.out;
  EXPECT_TRUE(nodes[0].starts_with("t0, t1 = Composite{add(i0,i1), sub(i0,i1)}(x, y)")) << r.out;
  EXPECT_NE(r.out.find("  out0 = t0   # x + y\n  out1 = t1   # x - y\n"), std::string::npos) << r.out;
  EXPECT_TRUE(r.out.starts_with("# two_outputs(x: float32 matrix (?, ?), y: float32 matrix (?, ?)): "
                                "optimized graph, 1 node\n"))
      << r.out;
}

TEST(CliShow, RawStageIsTheGraphAsBuilt) {
  CliResult r = show({example("two_outputs.tg"), "--stage", "raw"});
  std::vector<std::string> nodes = node_lines(r.out);
  ASSERT_EQ(nodes.size(), 2u) << r.out;
  EXPECT_TRUE(nodes[0].starts_with("t0 = Elemwise{add}(x, y)")) << r.out;
  EXPECT_TRUE(nodes[1].starts_with("t1 = Elemwise{sub}(x, y)")) << r.out;
}

TEST(CliShow, SumOfSquaresIsOneFusedReduction) {
  CliResult r = show({"--stage", "optimized", example("sumsq.tg")});
  std::vector<std::string> nodes = node_lines(r.out);
  ASSERT_EQ(nodes.size(), 1u) << r.out;
  EXPECT_TRUE(nodes[0].starts_with("t0 = Composite{sum{axis=[0,1]}(square(i0))}(a)")) << r.out;
}

TEST(CliShow, OptimizerFlagsReachTheFunction) {
  // --optimizer none leaves the graph as built; excluding fusion keeps the two nodes.
  EXPECT_EQ(node_lines(show({example("two_outputs.tg"), "--optimizer", "none"}).out).size(), 2u);
  EXPECT_EQ(node_lines(show({example("sumsq.tg"), "--optimizer-excluding", "fuse_elemwise"}).out).size(), 2u);
}

TEST(CliShow, UpdatesAreListedAfterTheOutputs) {
  CliResult r = show({example("logreg.tg"), "--fn", "train"});
  EXPECT_NE(r.out.find("  out0 = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("   # prediction\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("   # xent\n  update 0 = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  update 1 = "), std::string::npos) << r.out;
}

TEST(CliShow, DotFormatOfEveryExampleIsWellFormed) {
  const std::vector<std::vector<std::string>> programs = {
      {"check1.tg"}, {"check2.tg"}, {"logreg.tg", "--fn", "train"}, {"sumsq.tg"}, {"two_outputs.tg"}, {"matmul.tg"}};
  for (const auto& p : programs) {
    for (const char* stage : {"raw", "optimized"}) {
      std::vector<std::string> args = {example(p[0]), "--format", "dot", "--stage", stage};
      args.insert(args.end(), p.begin() + 1, p.end());
      CliResult r = show(args);
      DotCounts counts;
      EXPECT_TRUE(well_formed_dot(r.out, &counts)) << p[0] << " " << stage << "\n" << r.out;
      EXPECT_GE(counts.ops, 1) << p[0];
    }
  }
  DotCounts two;
  ASSERT_TRUE(well_formed_dot(show({example("two_outputs.tg"), "--format", "dot"}).out, &two));
  EXPECT_EQ(two.ops, 1);
  EXPECT_EQ(two.variables, 4);
}

TEST(CliShow, InspectingNeverPrintsProfiles) {
  // show and emit never call the functions: an empty profile would be noise.
  CliResult r = run_tgc({"--profile", "show", example("check1.tg")}, {"TGC_FLAGS=profile=true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  CliResult e = run_tgc({"emit", example("check1.tg"), "--target", "kir", "--profile"});
  EXPECT_EQ(e.exit_code, 0) << e.err;
  EXPECT_EQ(e.err, "");
}

TEST(CliShow, TraceRewritesListsTheFusion) {
  CliResult text = show({example("two_outputs.tg"), "--trace-rewrites"});
  EXPECT_NE(text.out.find("rewrites (1):\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("fuse_elemwise"), std::string::npos) << text.out;
  // With --format dot the trace goes to stderr, so stdout stays a dot file.
  CliResult dot = show({example("two_outputs.tg"), "--trace-rewrites", "--format", "dot"});
  EXPECT_TRUE(well_formed_dot(dot.out)) << dot.out;
  EXPECT_NE(dot.err.find("fuse_elemwise"), std::string::npos) << dot.err;
  CliResult none = show({example("matmul.tg"), "--trace-rewrites", "--optimizer", "none"});
  EXPECT_NE(none.out.find("rewrites (0):\n"), std::string::npos) << none.out;
}

TEST(CliEmit, KernelIrOfEachFusedNode) {
  CliResult r = run_tgc({"emit", example("two_outputs.tg"), "--target", "kir"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "# kernel 0: t0, t1 = Composite{add(i0,i1), sub(i0,i1)}(x, y)\n"
            "kernel(i0: float32[?,?], i1: float32[?,?]) loop rank 2\n"
            "  v0 = load i0; v1 = load i1; v2 = add(v0, v1); v3 = sub(v0, v1)\n"
            "  out0 = v2; out1 = v3\n");
  CliResult sumsq = run_tgc({"emit", example("sumsq.tg"), "--target", "kir"});
  EXPECT_NE(sumsq.out.find("reduce axes [0, 1]"), std::string::npos) << sumsq.out;
  CliResult none = run_tgc({"emit", example("matmul.tg"), "--target", "kir"});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.out.find("no fused kernel in the optimized graph; its one node runs op by op"), std::string::npos)
      << none.out;
}

// On a GPU device, show marks each node left on the host with the placement's reason, in
// text and in dot; device nodes and transfers carry no mark. (OpenCL: PoCL runs without a GPU.)
// The host node: a gather with five index arrays, more than the device kernel takes.
TEST(CliShow, HostNodesOfAGpuFunctionSayWhyTheyStayOnTheHost) {
  if (!opencl_available()) GTEST_SKIP() << "no OpenCL device in this build or machine";
  ScratchDir dir;
  const std::string file = dir.write("am.tg",
                                     "x = tensor(\"float32\", 5, name=\"x\")\n"
                                     "i = vector(\"i\", dtype=\"int64\")\n"
                                     "am = function([x, i], [x[i, i, i, i, i], exp(x)])\n");
  CliResult r = show({file, "--device", "opencl"});
  std::vector<std::string> nodes = node_lines(r.out);
  int marked = 0;
  for (const std::string& n : nodes) {
    const bool host = n.find("# host: ") != std::string::npos;
    marked += host;
    if (n.find("AdvancedSubtensor") != std::string::npos)
      EXPECT_NE(n.find("  # host: more than 4 index arrays"), std::string::npos) << r.out;
    else
      EXPECT_FALSE(host) << n;
  }
  EXPECT_EQ(marked, 1) << r.out;
  CliResult dot = show({file, "--device", "opencl", "--format", "dot"});
  EXPECT_NE(dot.out.find("host: more than 4 index arrays"), std::string::npos) << dot.out;
  EXPECT_NE(dot.out.find("fillcolor=orange"), std::string::npos) << dot.out;
  // On the cpu nothing is marked.
  CliResult cpu = show({file});
  EXPECT_EQ(cpu.out.find("# host:"), std::string::npos) << cpu.out;
}

// Where CUDA cannot be used (no driver or device, as in CI), show still prints what a CUDA
// device would run: the CUDA rules decide placement over a device described but not opened.
// The logistic regression's step is then its three kernels on the device, with only its two
// results coming back, as on a GPU; running it is still the clear error naming the driver.
TEST(CliShow, ACudaGraphIsShownWithoutAGpu) {
  if (cuda_available()) GTEST_SKIP() << "CUDA works here: show --device cuda opens the device";
  CliResult r = show({example("logreg.tg"), "--fn", "train", "--device", "cuda"});
  if (r.err.find("this build of tgc has no CUDA backend") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int reductions = 0, to_host = 0;
  for (const std::string& n : node_lines(r.out)) {
    EXPECT_EQ(n.find("# host:"), std::string::npos) << n;
    reductions += n.find("GpuCAReduce") != std::string::npos;
    to_host += n.find("HostFromGpu") != std::string::npos;
  }
  EXPECT_EQ(reductions, 3) << r.out;
  EXPECT_EQ(to_host, 2) << r.out;
  CliResult run = run_tgc({"run", example("logreg.tg"), "--fn", "train", "--device", "cuda"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("is not available"), std::string::npos) << run.err;
}

// The MLP training step of examples/mlp.tg (the network benchmarks/compare times) stays on
// the device: no host node, and the only transfers bring the two scalar results back.
TEST(CliShow, MlpTrainingStepRunsWhollyOnTheDevice) {
  if (!opencl_available()) GTEST_SKIP() << "no OpenCL device in this build or machine";
  CliResult r = show({example("mlp.tg"), "--stage", "optimized", "--device", "opencl"});
  int to_host = 0;
  for (const std::string& n : node_lines(r.out)) {
    EXPECT_EQ(n.find("# host:"), std::string::npos) << n;
    to_host += n.find("HostFromGpu") != std::string::npos;
    const size_t up = n.find("GpuFromHost(");
    if (up != std::string::npos) {  // only constants (literal operands) go up
      const char c = n.at(up + 12);
      EXPECT_TRUE(c == '-' || (c >= '0' && c <= '9')) << n;
    }
  }
  EXPECT_EQ(to_host, 2) << r.out;
  EXPECT_NE(r.out.find("GpuArgmax"), std::string::npos) << r.out;
}

// The MLP's parameters and data are shared variables whose shapes function() reads (shape
// facts), so its gradients need no run-time shape op: the bias gradients' SumToLike are sums
// fused into kernels, the others identities, and the mean's ReduceCount is a constant. The
// same on the host and in the GPU graph (shown without running a kernel).
TEST(CliShow, MlpTrainingStepHasNoRunTimeShapeOps) {
  std::vector<std::string> devices{"cpu"};
  if (opencl_available()) devices.push_back("opencl");
  for (const std::string& device : devices) {
    CliResult r = show({example("mlp.tg"), "--stage", "optimized", "--device", device});
    const std::vector<std::string> nodes = node_lines(r.out);
    EXPECT_GT(nodes.size(), 10u) << r.out;
    int b1_update = 0;
    for (const std::string& n : nodes) {
      EXPECT_EQ(n.find("SumToLike"), std::string::npos) << device << ": " << n;
      EXPECT_EQ(n.find("ReduceCount"), std::string::npos) << device << ": " << n;
      // The gradient of b1 is a column sum, fused with b1's update.
      b1_update += n.find("sub(i1,mul(0.1,sum{axis=[0]}(i0)))") != std::string::npos && n.find(", b1)") != std::string::npos;
    }
    EXPECT_EQ(b1_update, 1) << device << ":\n" << r.out;
  }
}

// mixed dtypes meet on the device: concatenate and inc_subtensor cast their operands there
TEST(CliShow, MixedDtypeJoinsAndIncrementsRunOnTheDevice) {
  if (!opencl_available()) GTEST_SKIP() << "no OpenCL device in this build or machine";
  ScratchDir dir;
  const std::string file = dir.write("mixed.tg",
                                     "x = matrix(\"x\")\n"
                                     "i = matrix(\"i\", dtype=\"int32\")\n"
                                     "v = vector(\"v\", dtype=\"int32\")\n"
                                     "mixed = function([x, i, v], [concatenate([x, i], axis=0), "
                                     "inc_subtensor(x[0], v)])\n");
  CliResult r = show({file, "--device", "opencl"});
  EXPECT_EQ(r.out.find("# host:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GpuConcatenate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GpuIncSubtensor"), std::string::npos) << r.out;
}

TEST(CliEmit, CudaAndOpenclPrintTheRenderedKernelsWithoutAnyDevice) {
  CliResult cuda = run_tgc({"emit", example("check1.tg"), "--target", "cuda"});
  EXPECT_EQ(cuda.exit_code, 0) << cuda.err;
  EXPECT_NE(cuda.out.find("# kernel 0: "), std::string::npos) << cuda.out;
  EXPECT_NE(cuda.out.find("__global__"), std::string::npos) << cuda.out;
  CliResult opencl = run_tgc({"emit", example("sumsq.tg"), "--target", "opencl"});
  EXPECT_EQ(opencl.exit_code, 0) << opencl.err;
  EXPECT_NE(opencl.out.find("__kernel"), std::string::npos) << opencl.out;
}

TEST(CliEmit, Float32MathShapesTheRenderedKernels) {
  // check1's exp: float's expf by default, double's exp rounded once under float32_math=double.
  CliResult dflt = run_tgc({"emit", example("check1.tg"), "--target", "cuda"});
  // (The preamble defines float helpers either way; the kernel's own line is what changes.)
  EXPECT_NE(dflt.out.find("= expf(v0);"), std::string::npos) << dflt.out;
  CliResult dbl = run_tgc({"emit", example("check1.tg"), "--target", "cuda"}, {"TGC_FLAGS=float32_math=double"});
  EXPECT_EQ(dbl.exit_code, 0) << dbl.err;
  EXPECT_EQ(dbl.out.find("= expf(v0);"), std::string::npos) << dbl.out;
  EXPECT_NE(dbl.out.find("exp(((double)"), std::string::npos) << dbl.out;
}

TEST(CliEmit, CpuTargetNeedsLlvm) {
  CliResult cpu = run_tgc({"emit", example("sumsq.tg"), "--target", "cpu"});
  if (llvm_backend_available()) {
    EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_NE(cpu.out.find("# kernel 0: "), std::string::npos) << cpu.out;
    EXPECT_NE(cpu.out.find("define "), std::string::npos) << cpu.out;  // an LLVM IR function
  } else {
    EXPECT_EQ(cpu.exit_code, 2);
    EXPECT_NE(cpu.err.find("the cpu (LLVM) code generator is not built in this tgc"), std::string::npos) << cpu.err;
  }
}

TEST(CliDevices, SaysWhichCpuPathIsActive) {
  CliResult r = run_tgc({"devices"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("cpu      available  (" + cpu_backend_description() + ";"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(cuda_devices_description()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(opencl_devices_description()), std::string::npos) << r.out;
}

// NVRTC and cuBLAS are loaded at run time: where they cannot be, tgc still starts, and its
// devices say which library is missing and why; a CUDA function is refused with the reason.
TEST(CliDevices, SaysWhichCudaLibraryIsMissing) {
  if (cuda_devices_description().starts_with("cuda     not built")) GTEST_SKIP() << "this build has no CUDA backend";
  const std::vector<std::string> env = {"TGC_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13",
                                        "TGC_CUBLASLT_LIBRARY=/nonexistent/libcublasLt.so.13"};
  CliResult r = run_tgc({"devices"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nvrtc    unavailable  (libnvrtc.so.13 not found (/nonexistent/libnvrtc.so.13: cannot open "
                       "shared object file"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("cublas   unavailable  (libcublasLt.so.13 not found (/nonexistent/libcublasLt.so.13:"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("pip install nvidia-cuda-nvrtc nvidia-cublas"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cuda:0   available"), std::string::npos) << "CUDA without NVRTC cannot run:\n" << r.out;
  r = run_tgc({"run", "--device", "cuda", example("logreg.tg")}, env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("not available"), std::string::npos) << r.err;
  // With a driver and a GPU, the reason is the library; without, the driver.
  if (r.err.find("no NVIDIA driver found") == std::string::npos &&
      r.err.find("no CUDA device") == std::string::npos)
    EXPECT_NE(r.err.find("but NVRTC could not be loaded: libnvrtc.so.13 not found"), std::string::npos) << r.err;
}

// The cpu line follows the config: TGC_FLAGS=cpu_vector_width=256 is the width it names.
TEST(CliDevices, CpuLineFollowsTheConfig) {
  if (!llvm_backend_available()) GTEST_SKIP() << "built without LLVM: the cpu line names the interpreter";
  CliResult r = run_tgc({"devices"}, {"TGC_FLAGS=cpu_vector_width=256"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("256-bit vectors"), std::string::npos) << r.out;
}

// The mpi line: Open MPI's version where libmpi loads, else why not.
TEST(CliDevices, SaysWhetherMpiIsAvailable) {
  CliResult r = run_tgc({"devices"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const MpiStatus& mpi = mpi_status();
  if (mpi.available) {
    EXPECT_TRUE(mpi.version.starts_with("Open MPI v")) << mpi.version;
    EXPECT_NE(r.out.find("mpi      available  (" + mpi.version + ", " + mpi.library + ")"), std::string::npos) << r.out;
  } else {
    EXPECT_FALSE(mpi.reason.empty());
    EXPECT_NE(r.out.find("mpi      " + std::string(mpi.built ? "unavailable" : "not built") + "  (" + mpi.reason + ")"),
              std::string::npos)
        << r.out;
  }
}

}  // namespace
}  // namespace tgc::test
