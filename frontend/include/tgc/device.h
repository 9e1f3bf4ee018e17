// Public API: where values live. gpu_from_host(x) asks for x on the function's device (the
// tutorial's check2: an output left on the GPU); on the cpu device it changes nothing.
#pragma once

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// x on the device: as a function output it is returned as a device Tensor (no copy back);
// Tensor::to_host() brings it over when needed. The placement pass removes the marker when
// x is already on the device, and on device=cpu.
Var gpu_from_host(const Var& x);

TGC_API_END
}  // namespace tgc
