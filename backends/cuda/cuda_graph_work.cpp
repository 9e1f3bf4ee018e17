// CudaGraphWork: replay a recorded call with cudaGraphLaunch on the device's stream (and wait
// for it when it copies results to the host).
#include "backends/cuda/cuda_graph_work.h"

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_handles.h"

namespace tgc::cuda {

namespace {

class CudaGraphWork final : public CapturedWork {
 public:
  CudaGraphWork(CudaDevice& device, cudaGraphExec_t exec, std::vector<std::pair<void*, size_t>> kept, bool waits)
      : device_(device), exec_(exec), kept_(std::move(kept)), waits_(waits) {}
  ~CudaGraphWork() override {
    // An executable graph still running is freed when it completes (CUDA's documented rule);
    // its blocks are reused only by work enqueued after it on the same stream.
    cudaGraphExecDestroy(exec_);
    for (const auto& [p, n] : kept_) device_.deallocate(p, n, device_.default_stream());
  }
  CudaGraphWork(const CudaGraphWork&) = delete;
  CudaGraphWork& operator=(const CudaGraphWork&) = delete;

  size_t kept_bytes() const override {
    size_t n = 0;
    for (const auto& [p, bytes] : kept_) n += bytes;
    return n;
  }

  void replay() override {
    DeviceGuard guard(device_.ordinal());
    TGC_CUDA_CHECK(cudaGraphLaunch(exec_, device_.stream()));
    if (waits_) device_.synchronize_stream();  // the recorded copies to the host are read next
  }

 private:
  CudaDevice& device_;
  cudaGraphExec_t exec_;
  std::vector<std::pair<void*, size_t>> kept_;
  bool waits_;
};

}  // namespace

std::unique_ptr<CapturedWork> make_graph_work(CudaDevice& device, cudaGraphExec_t exec,
                                              std::vector<std::pair<void*, size_t>> kept, bool waits) {
  return std::make_unique<CudaGraphWork>(device, exec, std::move(kept), waits);
}

}  // namespace tgc::cuda
