// Public API: softmax and log_softmax along one axis (default: the last), computed stably
// (the max is subtracted first, so inputs like 1000 or -1000 do not overflow), with
// SciPy's results for infinities and NaN. Integer and bool inputs compute in floatX.
#pragma once

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

Var softmax(const Var& x, int axis = -1);
Var log_softmax(const Var& x, int axis = -1);

TGC_API_END
}  // namespace tgc
