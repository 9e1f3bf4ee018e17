// Kernels runtime/ borrows for device tensors. A Tensor's own operations on a device need a
// kernel now and then, which runtime/ (below the compiler and the backends) does not have:
// the layers above lend theirs when libtgc loads, and runtime/ falls back to a copy through
// the host where none was lent.
// - Dense copy: making a strided device view (transposed, sliced, broadcast) dense on its
//   device; the GPU layer lends its copy kernel per device kind (backends/gpu/device_copy.cpp),
//   so Tensor::copy of a device view stays on the device.
// - Cast: Tensor::astype of a device tensor; the eager layer lends its cast (one fused kernel
//   on the tensor's device, frontend/api/eager/eager_ops.cpp).
// - Peer copy: Tensor::to between two devices of one kind (cuda:0 to cuda:1); the CUDA
//   backend lends a copy between GPUs (backends/cuda/cuda_peer_copy.cpp), without the host.
#pragma once

#include <functional>
#include <optional>

#include "runtime/device.h"
#include "runtime/dtype.h"

namespace tgc {

class Tensor;

// dst = src, both on one device of `kind`: dst C-contiguous, same dtype and shape, src any
// strides. Returns false when it cannot (then the caller copies through the host).
using DenseCopy = std::function<bool(const Tensor& src, const Tensor& dst)>;

// The copy for devices of `kind` (null removes it).
void register_dense_copy(DeviceKind kind, DenseCopy copy);

// The registered copy of src's device kind; false when there is none, or it declined.
bool dense_copy_on_device(const Tensor& src, const Tensor& dst);

// x as `dtype` on x's device (its value may be computed when first read), or nullopt for a
// device the lender cannot run on (then the caller converts through the host). Not called
// from inside a call: it runs work of its own on the device.
using DeviceCast = std::function<std::optional<Tensor>(const Tensor& x, DType dtype)>;

// The cast for device tensors (null removes it).
void register_device_cast(DeviceCast cast);

// The registered cast of x (a device tensor); nullopt when none is registered or it declined.
std::optional<Tensor> device_cast(const Tensor& x, DType dtype);

// dst = src, two C-contiguous tensors of one dtype and shape on two devices of one `kind`:
// after the work queued on src's device so far, and src's memory stays valid until the copy
// ran. Returns false when it cannot (then the caller copies through the host). The caller
// holds both devices' locks.
using PeerCopy = std::function<bool(const Tensor& src, const Tensor& dst)>;

// The peer copy for devices of `kind` (null removes it).
void register_peer_copy(DeviceKind kind, PeerCopy copy);

// The registered peer copy of src's device kind; false when there is none, or it declined.
bool peer_copy(const Tensor& src, const Tensor& dst);

}  // namespace tgc
