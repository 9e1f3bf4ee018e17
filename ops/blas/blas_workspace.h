// OpenBLAS under an address-space limit (ulimit -v, RLIMIT_AS). OpenBLAS maps a workspace of
// kOpenBlasBufferBytes for each of its worker threads when it loads, and one for a calling
// thread at its first product that needs one (gemv, gemm; dot takes none), and keeps them. When
// the mapping fails, its allocator (driver/others/memory.c before 0.3.30, Debian's 0.3.21
// among them) tries again forever (OpenMathLib/OpenBLAS#5289): a process under a tight limit
// spins in the product, and at exit waits for the worker that spins since the load. tgc
// checks the room left before a product instead (check_blas_workspace), and the tgc command
// lowers OpenBLAS's thread count to what fits before OpenBLAS loads (blas_threads_that_fit,
// from frontend/cli/blas_preinit.cpp).
#pragma once

#include <cstdint>

namespace tgc {

// OpenBLAS's BUFFER_SIZE on x86-64 (32 << 22; common_x86_64.h), as its allocator maps it
// (seen in gdb: mmap of 134217728 bytes, then malloc of 134221824); one page more for the
// malloc fallback's header.
inline constexpr int64_t kOpenBlasBufferBytes = (int64_t(128) << 20) + 4096;

// The bytes of address space the process may still map under RLIMIT_AS, or -1 when there is
// no limit. Plain system calls and no static state: the preinit code may call it before any
// constructor has run.
int64_t address_space_left();

// Throws DeviceError, naming the limit and the room left, when the address-space limit leaves
// no room for a new OpenBLAS workspace and this thread has not had one yet. Called before the
// products that take one; costs nothing (a thread-local flag) after a thread's first.
void check_blas_workspace();

// The OpenBLAS thread count to start with under the room `left` (address_space_left) when
// `wanted` threads were asked for: each worker thread maps a workspace and a stack when
// OpenBLAS loads, and kReservedForTgcBytes stay for tgc itself (LLVM, kernels, tensors, the
// calling thread's workspace). At least 1; `wanted` when there is no limit.
inline constexpr int64_t kReservedForTgcBytes = int64_t(512) << 20;
inline constexpr int64_t kOpenBlasThreadStackBytes = int64_t(8) << 20;
int blas_threads_that_fit(int64_t left, int wanted);

}  // namespace tgc
