// --log-compiles and TGC_FLAGS=log_compiles=... through the tgc binary: `tgc run` and
// `tgc show` print each function's compile lines on stderr (and nothing on stdout), show's
// without kernels (it does not link), a second run on the same cache misses nothing, and a
// bad value names the flag.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/cpu_backend.h"
#include "cli/cli_runner.h"

namespace tgc::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char* kProgram =
    "x = shared(ones(5, dtype=\"float32\"), name=\"x\")\n"
    "f = function([], exp(x) * 3 + 1, name=\"f\")\n";

TEST(CliLogCompiles, RunPrintsTheCompileAndTheMissThenAWarmRunMissesNothing) {
  if (!llvm_backend_available()) GTEST_SKIP() << "built without LLVM: no kernel is compiled";
  ScratchDir scratch, cache;
  const std::string program = scratch.write("p.tg", kProgram);
  CliResult cold = run_tgc({"run", program, "--log-compiles", "--cache-dir", cache.path()});
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_THAT(cold.err, HasSubstr("tgc: compile 'f': ")) << cold.err;
  EXPECT_THAT(cold.err, HasSubstr("tgc: compile 'f':   codegen llvm: 1 kernel compiled")) << cold.err;
  EXPECT_THAT(cold.err, HasSubstr("new key: no entry for this kernel")) << cold.err;
  EXPECT_THAT(cold.out, Not(HasSubstr("tgc: compile"))) << "the log is not the program's output";

  CliResult warm = run_tgc({"run", program, "--cache-dir", cache.path()}, {"TGC_FLAGS=log_compiles=true"});
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_THAT(warm.err, HasSubstr("tgc: compile 'f':   load llvm: 1 kernel loaded")) << warm.err;
  EXPECT_THAT(warm.err, Not(HasSubstr("cache miss"))) << warm.err;
  EXPECT_THAT(warm.out, HasSubstr("Result is [9.15484524 9.15484524")) << warm.out;
}

TEST(CliLogCompiles, ShowTakesTheFlagWithPasses) {
  ScratchDir scratch;
  const std::string program = scratch.write("p.tg", kProgram);
  CliResult r = run_tgc({"show", program, "--log-compiles=passes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("tgc: compile 'f': ")) << r.err;
  EXPECT_THAT(r.err, HasSubstr("tgc: compile 'f':   pass fuse_elemwise: ")) << r.err;
}

// tgc show prints graphs: its functions are optimized, not linked, so no kernel is generated,
// compiled or loaded for them (a call would; frontend/api/graphs_only.h). A value the program
// computes while loading is still computed.
TEST(CliLogCompiles, ShowMakesNoKernel) {
  ScratchDir scratch;
  const std::string program = scratch.write("p.tg", kProgram);
  CliResult shown = run_tgc({"show", program, "--log-compiles"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.err, HasSubstr("tgc: compile 'f': ")) << shown.err;
  EXPECT_THAT(shown.err, Not(HasSubstr("kernel"))) << shown.err;
  CliResult ran = run_tgc({"run", program, "--log-compiles"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("kernel")) << "the same function, run, does make kernels:\n" << ran.err;
}

TEST(CliLogCompiles, ABadValueNamesTheFlag) {
  ScratchDir scratch;
  const std::string program = scratch.write("p.tg", kProgram);
  CliResult r = run_tgc({"run", program, "--log-compiles=loud"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("log_compiles")) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--log-compiles")) << r.err;
}

}  // namespace
}  // namespace tgc::test
