// The CPU backend's entry points: the backend that device=cpu uses (LLVM-JIT kernels when
// tgc is built with LLVM, the reference backend otherwise), a one-line description of the
// active CPU path for `tgc devices`, and the optimized LLVM IR of a kernel for `tgc emit`.
#pragma once

#include <memory>
#include <string>

#include "compiler/backend.h"
#include "compiler/kernel/kernel_ir.h"
#include "runtime/config.h"

namespace tgc {

// Whether this build has the LLVM CPU backend.
bool llvm_backend_available();

// The backend for device=cpu: "llvm" (Composite nodes run JIT-compiled kernels, other nodes
// their reference perform) when built with LLVM, else the reference backend, whose
// Composite thunks run the Kernel IR interpreter. Reads fast_math, float32_math,
// cpu_vector_width and cache_dir.
std::unique_ptr<Backend> make_cpu_backend(const Config& config);

// What runs fused kernels on the CPU under `config` (its cpu_vector_width), e.g.
//   "llvm: LLVM 16.0.6 JIT for sapphirerapids (avx512f,avx2,fma...), 512-bit vectors,
//    libmvec vector math, 2 threads"
//   "interpreter: built without LLVM; fused kernels run in the Kernel IR interpreter"
std::string cpu_backend_description(const Config& config = Config{});

// The O3-optimized LLVM IR module of `kernel` for the host CPU, as `tgc emit --target cpu`
// prints it under `config` (fast_math, float32_math, cpu_vector_width shape it as in the
// backend). ConfigError when tgc is built without LLVM.
std::string emit_llvm_ir(const Kernel& kernel, const Config& config = Config{});

}  // namespace tgc
