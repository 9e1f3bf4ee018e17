// The configuration keys that change the machine code of a CPU kernel: they go into the
// kernel cache key, and a compiler instance exists per distinct set.
#pragma once

#include <compare>
#include <string>

#include "runtime/config.h"

namespace tgc::cpu {

struct CodegenOptions {
  bool fast_math = false;     // LLVM fast-math flags on every float instruction
  bool float32_math = true;   // float32 transcendentals in float (float libmvec), else in double
  // The vector width (bits) LLVM's vectorizer prefers; 0 = auto (vector_width_for_host).
  int vector_width = 0;

  // "fast_math=0 float32_math=float32 vector_width=auto": the kernel cache key's flags.
  std::string text() const {
    return std::string("fast_math=") + (fast_math ? "1" : "0") + " float32_math=" + (float32_math ? "float32" : "double") +
           " vector_width=" + (vector_width == 0 ? std::string("auto") : std::to_string(vector_width));
  }
  auto operator<=>(const CodegenOptions&) const = default;
};

inline CodegenOptions codegen_options(const Config& config) {
  const int width = config.cpu_vector_width == "auto" ? 0 : std::stoi(config.cpu_vector_width);
  return {config.fast_math, config.float32_math != "double", width};
}

// The width kernels are vectorized for on a host with LLVM features `features`: the
// option's when set; for auto, 512 bits where the host has AVX-512 and 0 (LLVM's own
// preference for the CPU) elsewhere. LLVM tunes Intel's AVX-512 CPUs to prefer 256-bit
// vectors, fearing the clock drop of 512-bit code on the first of them (Skylake-SP); tgc's
// kernels are long loops that call vector math (libmvec's 16-lane variants take ~30% less
// time per element than the 8-lane ones on a Sapphire Rapids core, docs/performance.md), so
// the wider vectors win.
int vector_width_for_host(const CodegenOptions& options, const std::string& features);

}  // namespace tgc::cpu
