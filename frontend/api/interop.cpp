// Tensors over other libraries' memory and the native stream handle (<tgc/interop.h>).
#include <tgc/interop.h>

#include <fmt/format.h>

#include "backends/gpu/gpu_device.h"
#include "runtime/error.h"

namespace tgc {

Tensor adopt_memory(void* data, DType dtype, const Shape& shape, const Strides& strides, Device& device,
                    std::function<void()> release) {
  const auto refuse = [&](const std::string& what, const std::string& hint) {
    if (release) release();
    throw ValueError(what, "adopt_memory", hint);
  };
  if (shape.size() != strides.size())
    refuse(fmt::format("{} dims and {} strides", shape.size(), strides.size()), "give one stride per dim");
  const size_t item = dtype_size(dtype);
  if (reinterpret_cast<uintptr_t>(data) % item != 0)
    refuse(fmt::format("the memory at {} is not aligned to its {}-byte elements", data, item),
           "copy the array first (it is a misaligned view)");
  int64_t last = 0;  // the largest element offset: the memory's extent
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) refuse(fmt::format("dim {} has size {}", d, shape[d]), "sizes are >= 0");
    if (strides[d] < 0)
      refuse(fmt::format("dim {} has stride {}", d, strides[d]),
             "tgc tensors have no negative strides: copy the array first");
    if (shape[d] > 0) last += (shape[d] - 1) * strides[d];
  }
  const size_t bytes = shape_numel(shape) == 0 ? 0 : static_cast<size_t>(last + 1) * item;
  auto buffer = std::make_shared<Buffer>(device, data, bytes, std::move(release));
  return Tensor::view_of(std::move(buffer), dtype, shape, strides, 0);
}

uintptr_t native_stream(Device& device) {
  auto* gpu = dynamic_cast<gpu::GpuDevice*>(&device);
  return gpu ? gpu->native_stream() : 0;
}

}  // namespace tgc
