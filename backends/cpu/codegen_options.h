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

  // "fast_math=0 float32_math=float32": the kernel cache key's flags.
  std::string text() const {
    return std::string("fast_math=") + (fast_math ? "1" : "0") + " float32_math=" + (float32_math ? "float32" : "double");
  }
  auto operator<=>(const CodegenOptions&) const = default;
};

inline CodegenOptions codegen_options(const Config& config) {
  return {config.fast_math, config.float32_math != "double"};
}

}  // namespace tgc::cpu
