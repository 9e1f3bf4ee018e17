// A tensor's copy from one GPU to another (Tensor::to(cuda:1) of a cuda:0 tensor), lent to
// runtime/ (runtime/device_kernels.h): cudaMemcpyPeerAsync on the destination's stream,
// after an event of the source's stream (the work that writes the source comes first), and
// the source's stream then waits for the copy (its memory, released in that stream's order,
// outlives it). No host wait and no trip through the host; NVLink where the GPUs have it.
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_handles.h"
#include "runtime/device_kernels.h"
#include "runtime/tensor.h"

namespace tgc::cuda {
namespace {

bool copy_between_gpus(const Tensor& src, const Tensor& dst) {
  auto* from = dynamic_cast<CudaDevice*>(&src.device());
  auto* to = dynamic_cast<CudaDevice*>(&dst.device());
  if (!from || !to || from == to || !src.is_contiguous() || !dst.is_contiguous() || src.dtype() != dst.dtype() ||
      src.shape() != dst.shape())
    return false;
  if (src.nbytes() == 0) return true;
  const std::unique_ptr<gpu::StreamMark> written = from->mark(from->default_stream());
  to->wait_for(to->default_stream(), *written);
  {
    DeviceGuard guard(to->ordinal());
    TGC_CUDA_CHECK(cudaMemcpyPeerAsync(dst.raw_data(), to->ordinal(), src.raw_data(), from->ordinal(), src.nbytes(),
                                       to->stream()));
  }
  const std::unique_ptr<gpu::StreamMark> copied = to->mark(to->default_stream());
  from->wait_for(from->default_stream(), *copied);
  return true;
}

[[maybe_unused]] const bool registered = [] {
  register_peer_copy(DeviceKind::Cuda, copy_between_gpus);
  return true;
}();

}  // namespace
}  // namespace tgc::cuda
