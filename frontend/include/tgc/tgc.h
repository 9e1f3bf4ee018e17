// The tgc C++ API: Theano's vocabulary in C++. Build a graph from symbolic variables,
// compile it with function(), call the result many times.
#pragma once

#include <tgc/collective.h>
#include <tgc/conv.h>
#include <tgc/creation.h>
#include <tgc/cuda_kernel.h>
#include <tgc/device.h>
#include <tgc/devices.h>
#include <tgc/eager.h>
#include <tgc/function.h>
#include <tgc/grad.h>
#include <tgc/ifelse.h>
#include <tgc/indexing.h>
#include <tgc/interop.h>
#include <tgc/join.h>
#include <tgc/linalg.h>
#include <tgc/math.h>
#include <tgc/nn.h>
#include <tgc/norm.h>
#include <tgc/printing.h>
#include <tgc/random.h>
#include <tgc/reductions.h>
#include <tgc/save.h>
#include <tgc/scan.h>
#include <tgc/shape.h>
#include <tgc/var.h>

#include "runtime/config.h"
#include "runtime/error.h"
#include "runtime/export.h"
#include "runtime/interrupt.h"
#include "runtime/log.h"
#include "runtime/npy.h"
#include "runtime/random.h"
#include "runtime/tensor.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)
// The library's version, e.g. "0.1.0".
const char* version();
TGC_API_END
}  // namespace tgc
