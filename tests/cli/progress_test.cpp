// Progress lines (frontend/cli/progress.h): their words, and none at all when stderr is not a
// terminal (tgc run through the test runner writes stderr to a file).
#include "frontend/cli/progress.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "cli/cli_runner.h"

namespace tgc::test {
namespace {

TEST(CliProgress, LinesSayHowFarAndHowLong) {
  EXPECT_EQ(cli::calls_progress_line(1200, 5000, 2.5), "call 1200 of 5000 (24%), 2.5 s, 2.1 ms per call, about 7.9 s left");
  EXPECT_EQ(cli::calls_progress_line(100000, 100000, 3.0), "call 100000 of 100000 (100%), 3.0 s, 30.0 us per call");
  EXPECT_EQ(cli::calls_progress_line(0, 10, 0.5), "call 0 of 10 (0%), 500 ms");
  EXPECT_EQ(cli::calls_progress_line(10, 1000, 125.0), "call 10 of 1000 (1%), 2 min 5 s, 12.5 s per call, about 3 h 26 min left");
  EXPECT_EQ(cli::compile_progress_line("train.tg", 3.42), "compiling train.tg: 3.4 s");
}

TEST(CliProgress, NothingIsDrawnWhenStderrIsNotATerminal) {
  ScratchDir dir;
  const std::string program = dir.write("p.tg", "x = vector(\"x\")\nf = function([x], [exp(x) + 1])\n");
  // About three seconds of calls: past the two after which a terminal would show the line.
  CliResult r = run_tgc({"run", program, "--iters", "6000000", "--input", "x=[0, 1]"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("call "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

// On a terminal (a pseudo-terminal made by util-linux's `script`) the line is drawn, redrawn
// in place and cleared before the results.
TEST(CliProgress, OnATerminalTheLineIsDrawnAndCleared) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "util-linux's script is not installed";
  ScratchDir dir;
  const std::string program = dir.write("p.tg", "x = vector(\"x\")\nf = function([x], [exp(x) + 1])\n");
  const std::string log = dir.path() + "/typescript";
  const std::string command = "TGC_FLAGS=cache_dir=" TGC_CLI_TEST_CACHE " script -qec '" + std::string(TGC_CLI_PATH) + " run " + program +
                              " --iters 6000000 --input x=[0,1]' " + log + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(log, std::ios::binary);
  const std::string seen((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(seen.find("\rcall "), std::string::npos) << seen;
  EXPECT_NE(seen.find(" of 6000000 ("), std::string::npos) << seen;
  EXPECT_NE(seen.find("\r\033[KLooping 6000000 times took"), std::string::npos) << "cleared before the results:\n"
                                                                             << seen;
}

}  // namespace
}  // namespace tgc::test
