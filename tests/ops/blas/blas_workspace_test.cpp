// OpenBLAS under an address-space limit: the thread count that fits, and a product that fails
// cleanly instead of spinning in OpenBLAS's allocator. The end-to-end case runs in a child
// process (a gtest death test that re-executes this binary, so the child starts with no
// OpenBLAS workspace of its own): it lowers RLIMIT_AS to a little above what it uses, calls a
// matrix-vector product, and must exit with the DeviceError's message; alarm() turns a hang
// into a failure within seconds.
#include "ops/blas/blas_workspace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <tgc/tgc.h>

namespace tgc {
namespace {

TEST(BlasWorkspace, ThreadsThatFit) {
  const int64_t worker = kOpenBlasBufferBytes + kOpenBlasThreadStackBytes;
  EXPECT_EQ(blas_threads_that_fit(-1, 8), 8);                      // no limit
  EXPECT_EQ(blas_threads_that_fit(0, 8), 1);                       // no room: the caller's thread only
  EXPECT_EQ(blas_threads_that_fit(kReservedForTgcBytes + worker - 1, 8), 1);
  EXPECT_EQ(blas_threads_that_fit(kReservedForTgcBytes + 2 * worker + worker / 2, 8), 3);
  EXPECT_EQ(blas_threads_that_fit(int64_t(1) << 50, 8), 8);        // never more than asked
  EXPECT_EQ(blas_threads_that_fit(0, 1), 1);
}

TEST(BlasWorkspace, NoLimitMeansNoCheck) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &limit), 0);
  if (limit.rlim_cur != RLIM_INFINITY) GTEST_SKIP() << "this test runs under an address-space limit";
  EXPECT_EQ(address_space_left(), -1);
  EXPECT_NO_THROW(check_blas_workspace());
}

// The child's body: compile first (LLVM maps memory), then leave 64 MiB and multiply.
[[noreturn]] void product_under_a_tight_limit() {
  alarm(20);  // a hang in OpenBLAS's allocator becomes SIGALRM, which the test reports
  Var x = matrix("x"), w = vector("w");
  Function f = function({x, w}, {dot(x, w)});
  Tensor xs = Tensor::full(DType::Float32, {400, 784}, 0.5), ws = Tensor::full(DType::Float32, {784}, 2.0);
  FILE* statm = std::fopen("/proc/self/statm", "r");
  long pages = 0;
  if (!statm || std::fscanf(statm, "%ld", &pages) != 1) std::_Exit(4);
  std::fclose(statm);
  rlimit tight{};
  getrlimit(RLIMIT_AS, &tight);
  tight.rlim_cur = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (rlim_t(64) << 20);
  if (setrlimit(RLIMIT_AS, &tight) != 0) std::_Exit(5);
  try {
    f({xs, ws});
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::_Exit(3);
  }
  std::_Exit(0);
}

TEST(BlasWorkspaceDeathTest, AProductUnderATightLimitFailsCleanly) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve terabytes of shadow address space: no process of this build runs under an "
                  "address-space limit";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(product_under_a_tight_limit(), ::testing::ExitedWithCode(3),
              "OpenBLAS needs 128 MiB of address space for a matrix product's workspace, and the "
              "address-space limit \\([0-9]+ MiB, ulimit -v\\) leaves [0-9]+ MiB");
}

}  // namespace
}  // namespace tgc
