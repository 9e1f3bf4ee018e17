// Public API: the devices this build of tgc can run on, in words (what `tgc devices` prints).
#pragma once

#include <string>
#include <vector>

#include "runtime/config.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// One line per device kind: "cpu      available  (LLVM JIT ...)", then CUDA's (the devices, or
// why there are none: not built, no driver, no device) and OpenCL's. `config` decides how the
// CPU backend is described (float32_math, cpu_vector_width).
std::vector<std::string> devices(const Config& config = global_config());

TGC_API_END
}  // namespace tgc
