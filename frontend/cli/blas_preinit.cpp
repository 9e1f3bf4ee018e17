// Before any library of the tgc command initialises: under an address-space limit (ulimit -v),
// lowers OpenBLAS's thread count to what fits (blas_threads_that_fit, ops/blas/blas_workspace.h).
// OpenBLAS reads OPENBLAS_NUM_THREADS and starts its worker threads, each mapping a 128 MiB
// workspace, in its constructor, and a worker whose mapping fails retries forever (and the
// process then never exits), so the variable must be set before that constructor runs. A
// shared library's constructor cannot come first (the dynamic linker initialises OpenBLAS, a
// dependency of libtgc, before libtgc); an executable's .preinit_array runs before every
// shared library's constructor (the ELF gABI), which is why this file is part of the tgc
// executable and not of libtgc. A setenv there does not last, though: glibc's own initialiser,
// which runs next, points `environ` back at the environment the kernel passed. So when fewer
// threads must start, the command executes itself again with the variable set: once, only
// under a limit too tight for OpenBLAS's default (the new image finds its count fitting).
// Programs that link libtgc themselves set OPENBLAS_NUM_THREADS when they run under such a
// limit (docs/cpu-backend.md, "Address-space limits").
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "ops/blas/blas_workspace.h"

namespace {

// The value of `name` in `envp`, or null. The environment is read from the preinit's own
// argument: libc's `environ` is not set up yet at this point.
const char* env_value(char** envp, const char* name) {
  const size_t n = std::strlen(name);
  for (char** e = envp; *e; ++e)
    if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  return nullptr;
}

// OpenBLAS's own order of precedence for its thread count; 0 when none is set.
int requested_blas_threads(char** envp) {
  for (const char* name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const char* v = env_value(envp, name); v && std::atoi(v) > 0) return std::atoi(v);
  return 0;
}

// Only libc calls and address_space_left (plain system calls): no constructor has run yet.
void fit_blas_threads_to_address_space(int, char** argv, char** envp) {
  const int64_t left = tgc::address_space_left();
  if (left < 0) return;  // no limit: OpenBLAS decides as always
  int wanted = requested_blas_threads(envp);
  if (wanted == 0) wanted = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  const int fit = tgc::blas_threads_that_fit(left, wanted);
  if (fit >= wanted) return;
  // The environment as it is, without an OPENBLAS_NUM_THREADS entry, plus the one that fits.
  static char entry[48];
  std::snprintf(entry, sizeof entry, "OPENBLAS_NUM_THREADS=%d", fit);
  size_t count = 0;
  while (envp[count]) ++count;
  char** env = static_cast<char**>(std::malloc((count + 2) * sizeof(char*)));
  if (!env) return;
  size_t k = 0;
  for (size_t i = 0; i < count; ++i)
    if (std::strncmp(envp[i], "OPENBLAS_NUM_THREADS=", 21) != 0) env[k++] = envp[i];
  env[k++] = entry;
  env[k] = nullptr;
  execve("/proc/self/exe", argv, env);  // returns only on failure: then OpenBLAS starts as it would have
  std::free(env);
}

}  // namespace

// The ELF preinit hook (see the file comment); `used` keeps it from being dropped.
__attribute__((section(".preinit_array"), used)) void (*const tgc_blas_preinit)(int, char**, char**) =
    &fit_blas_threads_to_address_space;
