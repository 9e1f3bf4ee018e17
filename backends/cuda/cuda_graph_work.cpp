// CudaGraphWork: replay a recorded call with cudaGraphLaunch on the device's stream (and wait
// for it when it copies results to the host).
#include "backends/cuda/cuda_graph_work.h"

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_handles.h"
#include "runtime/error.h"

namespace tgc::cuda {

namespace {

class CudaGraphWork final : public CapturedWork {
 public:
  CudaGraphWork(CudaDevice& device, cudaGraphExec_t exec, std::vector<std::pair<void*, size_t>> kept, bool waits,
                std::vector<std::function<void()>> checks, UniquePinned flag_copy)
      : device_(device), exec_(exec), kept_(std::move(kept)), waits_(waits || !checks.empty()),
        checks_(std::move(checks)), flag_copy_(std::move(flag_copy)) {}
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
    if (checks_.empty()) return;
    int& flagged = *static_cast<int*>(flag_copy_.get());
    if (flagged == 0) return;
    flagged = 0;  // the recording reset the device's word itself
    // Each check runs its node's host reference on the replay's operands: the first whose
    // indices are out of range raises the host's error. The updates were skipped.
    for (const auto& check : checks_) check();
    throw DeviceError("a kernel flagged an index out of range, but no node's host reference found one",
                      device_.name(), "this is a bug in tgc: please report it with the function that raised it");
  }

 private:
  CudaDevice& device_;
  cudaGraphExec_t exec_;
  std::vector<std::pair<void*, size_t>> kept_;
  bool waits_;
  std::vector<std::function<void()>> checks_;
  UniquePinned flag_copy_;
};

}  // namespace

std::unique_ptr<CapturedWork> make_graph_work(CudaDevice& device, cudaGraphExec_t exec,
                                              std::vector<std::pair<void*, size_t>> kept, bool waits,
                                              std::vector<std::function<void()>> checks, UniquePinned flag_copy) {
  return std::make_unique<CudaGraphWork>(device, exec, std::move(kept), waits, std::move(checks), std::move(flag_copy));
}

}  // namespace tgc::cuda
