// The address-space check before OpenBLAS products (see blas_workspace.h).
#include "ops/blas/blas_workspace.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "runtime/error.h"

namespace tgc {

namespace {

// The process's mapped address space in bytes (the first field of /proc/self/statm, in
// pages), read with open/read so no allocation or stream is involved; -1 if unreadable.
int64_t address_space_used() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  int64_t pages = 0;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pages = pages * 10 + (buf[i] - '0');
  return pages * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
}

int64_t mib(int64_t bytes) { return bytes >> 20; }

}  // namespace

int64_t address_space_left() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
  const int64_t used = address_space_used();
  if (used < 0) return -1;  // no /proc: nothing to judge by
  return std::max<int64_t>(0, static_cast<int64_t>(limit.rlim_cur) - used);
}

void check_blas_workspace() {
  thread_local bool has_workspace = false;
  if (has_workspace) return;
  const int64_t left = address_space_left();
  if (left >= 0 && left < kOpenBlasBufferBytes) {
    rlimit limit{};
    ::getrlimit(RLIMIT_AS, &limit);
    throw DeviceError(
        fmt::format("OpenBLAS needs {} MiB of address space for a matrix product's workspace, and the "
                    "address-space limit ({} MiB, ulimit -v) leaves {} MiB",
                    mib(kOpenBlasBufferBytes), mib(static_cast<int64_t>(limit.rlim_cur)), mib(left)),
        "matrix product (OpenBLAS)",
        fmt::format("raise the limit by at least {} MiB (ulimit -v), or remove it; under a limit OpenBLAS's "
                    "allocator would retry forever instead of failing",
                    mib(kOpenBlasBufferBytes - left) + 1));
  }
  // From here OpenBLAS maps it (or finds it mapped) and keeps it for this thread's products.
  has_workspace = true;
}

int blas_threads_that_fit(int64_t left, int wanted) {
  if (left < 0 || wanted <= 1) return std::max(1, wanted);
  const int64_t per_worker = kOpenBlasBufferBytes + kOpenBlasThreadStackBytes;
  const int64_t workers = std::max<int64_t>(0, (left - kReservedForTgcBytes) / per_worker);
  return static_cast<int>(std::min<int64_t>(wanted, 1 + workers));
}

}  // namespace tgc
