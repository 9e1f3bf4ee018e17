// Public API: tensors over other libraries' memory, and the stream tgc's device work runs
// on, for the DLPack handshake (docs/api.md "Memory from other libraries"; the Python
// module's DLPack import is built on these).
#pragma once

#include <cstdint>
#include <functional>

#include "runtime/export.h"
#include "runtime/tensor.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// A tensor over `data`, memory another library owns (a DLPack import, a torch::Tensor's
// data_ptr()), used in place: no copy. `device` is where the memory is: the host, or a device
// tgc opened (device("cuda:0")). Strides are in elements and must not be negative; `data`
// must be aligned to the element size. Functions take the tensor without a copy where they
// take device arguments at all. When the last Tensor using the memory lets go, tgc waits for
// the work it queued on `device` (it may still read the memory), then calls `release`: the
// owner may reuse the memory from then on. Throws ValueError for a negative stride or
// misaligned data (`release` is called then too).
Tensor adopt_memory(void* data, DType dtype, const Shape& shape, const Strides& strides, Device& device,
                    std::function<void()> release);

// The queue `device`'s work runs on, as the API's own handle in an integer: a CUDA device's
// cudaStream_t, which is what DLPack's __dlpack__(stream=...) and
// __cuda_array_interface__'s "stream" take. 0 for the host and OpenCL devices.
uintptr_t native_stream(Device& device);

TGC_API_END
}  // namespace tgc
