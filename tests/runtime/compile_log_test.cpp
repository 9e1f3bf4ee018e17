// CompileLog: times summed per backend, the scope that makes a log current on its thread
// (and only there), and the lines log_compiles prints.
#include "runtime/compile_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace tgc {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CompileLog, SumsTimesPerBackend) {
  CompileLog log;
  log.add_codegen("llvm", 0.010);
  log.add_codegen("llvm", 0.020);
  log.add_codegen("cuda", 0.001, /*kernels=*/0);  // rendering a source: no kernel compiled
  log.add_load("cuda", 0.002);
  EXPECT_DOUBLE_EQ(log.codegen_seconds(), 0.031);
  EXPECT_DOUBLE_EQ(log.load_seconds(), 0.002);
  const auto b = log.backends();
  EXPECT_EQ(b.at("llvm").compiled, 2);
  EXPECT_EQ(b.at("cuda").compiled, 0);
  EXPECT_EQ(b.at("cuda").loaded, 1);
}

TEST(CompileLog, ScopeIsPerThreadAndNests) {
  EXPECT_EQ(current_compile_log(), nullptr);
  CompileLog outer, inner;
  {
    CompileLogScope a(&outer);
    EXPECT_EQ(current_compile_log(), &outer);
    {
      CompileLogScope b(&inner);
      EXPECT_EQ(current_compile_log(), &inner);
    }
    EXPECT_EQ(current_compile_log(), &outer);
    CompileLog* seen = &outer;
    std::thread([&] { seen = current_compile_log(); }).join();
    EXPECT_EQ(seen, nullptr) << "another thread reports to its own log";
  }
  EXPECT_EQ(current_compile_log(), nullptr);
}

TEST(CompileLog, PrintsPhasesBackendsAndMisses) {
  CompileLog log(/*explain_misses=*/true);
  log.add_codegen("llvm", 0.0125);
  log.add_load("llvm", 0.0005);
  log.add_miss({"llvm", "tgc_kernel_00ff (out = exp(x))", "new key: no entry for this kernel in /c"});
  log.add_library_setup("cuBLAS handle on cuda:0", 0.0123);
  CompilePhases p;
  p.setup_s = 0.001;
  p.optimize_s = 0.002;
  p.codegen_s = 0.0125;
  p.link_s = 0.003;
  p.load_s = 0.0005;
  p.passes = {{"merge", 0.00025}, {"fuse_elemwise", 0.001}};
  const std::string text = format_compile_log("train", p, log, /*with_passes=*/false);
  EXPECT_THAT(text, HasSubstr("tgc: compile 'train': 19.0 ms (setup 1.0 ms, optimize 2.0 ms, codegen 12.5 ms, "
                              "link 3.0 ms, load 0.5 ms)\n"));
  EXPECT_THAT(text, HasSubstr("tgc: compile 'train':   codegen llvm: 1 kernel compiled, 12.5 ms\n"));
  EXPECT_THAT(text, HasSubstr("tgc: compile 'train':   load llvm: 1 kernel loaded, 0.5 ms\n"));
  EXPECT_THAT(text, HasSubstr("tgc: compile 'train':   cache miss llvm tgc_kernel_00ff (out = exp(x)): new key: "
                              "no entry for this kernel in /c\n"));
  EXPECT_THAT(text, HasSubstr("tgc: compile 'train':   link: cuBLAS handle on cuda:0 made, 12.3 ms\n"));
  EXPECT_THAT(text, Not(HasSubstr("pass merge")));
  const std::string with_passes = format_compile_log("train", p, log, /*with_passes=*/true);
  EXPECT_THAT(with_passes, HasSubstr("tgc: compile 'train':   pass merge: 0.25 ms\n"));
  // A backend that rendered sources but loaded nothing (OpenCL builds at the first launch).
  log.add_codegen("opencl", 0.0004, /*kernels=*/0);
  const std::string rendered = format_compile_log("train", p, log, false);
  EXPECT_THAT(rendered, HasSubstr("codegen opencl: 0 kernels compiled, 0.4 ms\n"));
  EXPECT_THAT(rendered, Not(HasSubstr("load opencl")));
  EXPECT_THAT(with_passes, HasSubstr("tgc: compile 'train':   pass fuse_elemwise: 1.00 ms\n"));
}

}  // namespace
}  // namespace tgc
