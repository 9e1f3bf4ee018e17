// Making a strided device view dense on its own device takes a kernel, which runtime/ does not
// have: the GPU layer lends its copy kernel per device kind (backends/gpu/device_copy.cpp
// registers it when libtgc loads), so that Tensor::copy of a transposed or sliced device view
// stays on the device instead of going through the host.
#pragma once

#include <functional>

#include "runtime/device.h"

namespace tgc {

class Tensor;

// dst = src, both on one device of `kind`: dst C-contiguous, same dtype and shape, src any
// strides. Returns false when it cannot (then the caller copies through the host).
using DenseCopy = std::function<bool(const Tensor& src, const Tensor& dst)>;

// The copy for devices of `kind` (null removes it).
void register_dense_copy(DeviceKind kind, DenseCopy copy);

// The registered copy of src's device kind; false when there is none, or it declined.
bool dense_copy_on_device(const Tensor& src, const Tensor& dst);

}  // namespace tgc
