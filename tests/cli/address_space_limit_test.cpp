// The tgc command under a tight address-space limit (ulimit -v): the logistic regression,
// whose product OpenBLAS would serve, must stop with tgc's error and exit code 2, not spin in
// OpenBLAS's allocator nor hang at exit on OpenBLAS's worker (frontend/cli/blas_preinit.cpp,
// ops/blas/blas_workspace.h). The limit is set from what tgc itself maps once loaded
// (measured on a tgc process that waits for its input on a FIFO) plus 64 MiB: room to load
// and compile, not for OpenBLAS's 128 MiB workspace.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "cli/cli_runner.h"

namespace tgc::test {
namespace {

// The address space (bytes) of a tgc process that has loaded and compiled a small program
// and waits to read its input, with OpenBLAS on one thread (what the command chooses under a
// tight limit); -1 if it could not be measured.
int64_t loaded_tgc_address_space(const ScratchDir& dir) {
  const std::string fifo = dir.path() + "/in.npy", input = "x=" + fifo;
  const std::string program = dir.write("identity.tg", "x = vector(\"x\")\nf = function([x], x)\n");
  if (mkfifo(fifo.c_str(), 0600) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1), dup2(null, 2);
    // As the limited run will be: without OpenBLAS's worker threads and their workspaces.
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execl(TGC_CLI_PATH, TGC_CLI_PATH, "run", program.c_str(), "--input", input.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Opening the FIFO for writing succeeds once tgc has opened it to read its input.
  int fd = -1;
  for (int i = 0; i < 3000 && fd < 0; ++i) {
    fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  int64_t pages = -1;
  if (fd >= 0) std::ifstream("/proc/" + std::to_string(pid) + "/statm") >> pages;
  if (fd >= 0) close(fd);  // tgc reads an empty file and stops with an error
  else kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return pages < 0 ? -1 : pages * sysconf(_SC_PAGESIZE);
}

TEST(CliAddressSpaceLimit, LogregUnderATightLimitStopsWithTgcsErrorInsteadOfSpinning) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve terabytes of shadow address space: no process of this build runs under an "
                  "address-space limit";
#endif
  ScratchDir dir;
  const int64_t loaded = loaded_tgc_address_space(dir);
  ASSERT_GT(loaded, 0) << "could not measure a loaded tgc process";
  const int64_t limit_kib = (loaded + (int64_t(64) << 20)) >> 10;
  const std::string err = dir.path() + "/stderr";
  // One compile thread: each thread maps a stack and a malloc arena, which the limit is too
  // tight for; timeout turns a spin or a hang at exit into exit code 124.
  const std::string command = "cd '" + dir.path() + "' && HOME='" + dir.path() + "' TGC_FLAGS=compile_threads=1,cache_dir='" +
                              dir.path() + "/cache' timeout 60 sh -c 'ulimit -v " + std::to_string(limit_kib) +
                              " && exec \"$0\" run \"$1\" --fn train' '" TGC_CLI_PATH "' '" + example("logreg.tg") +
                              "' > /dev/null 2> '" + err + "'";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ifstream in(err);
  const std::string message((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << "limit " << limit_kib << " KiB, " << seconds << " s\n" << message;
  EXPECT_NE(message.find("tgc: error: OpenBLAS needs 128 MiB of address space for a matrix product's workspace"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("hint: raise the limit"), std::string::npos) << message;
  EXPECT_LT(seconds, 30);
}

}  // namespace
}  // namespace tgc::test
