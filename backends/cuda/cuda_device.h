// CudaDevice: one CUDA GPU as a tgc Device — its own non-blocking stream (and a side stream
// for collectives, joined back into it), a stream-ordered caching allocator (a CUDA memory
// pool that keeps freed memory), pinned staging for host copies, event timers, and
// asynchronous errors attributed to the nodes that launched work.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "backends/cuda/cuda_conditional.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/cuda_status.h"
#include "backends/cuda/pinned_staging.h"
#include "backends/gpu/gpu_device.h"
#include "backends/gpu/launch_labels.h"

namespace tgc::cuda {

class CudaDevice;

// Copies of at most this many bytes go through gpu::copy_bytes, a kernel (copy_on_device, and
// copy_to_host into pinned memory). Measured on an H100 (docs/gpu.md): a copy engine takes
// microseconds to start each transfer, so the logistic-regression step's two small results
// and two updates cost more as copies than its kernels; a one-block kernel is done at once.
// Above this, the copy engines' bandwidth wins.
constexpr size_t kKernelCopyMaxBytes = 64 * 1024;

// The device's stream as a tgc Stream: synchronize() waits for it and raises its errors.
class CudaStream final : public Stream {
 public:
  CudaStream(CudaDevice& device, cudaStream_t stream) : device_(device), stream_(stream) {}
  void synchronize() override;
  cudaStream_t get() const { return stream_; }
  CudaDevice& device() const { return device_; }

 private:
  CudaDevice& device_;
  cudaStream_t stream_;
};

class CudaDevice final : public gpu::GpuDevice {
 public:
  // Use cuda_device(ordinal); public for make_unique only.
  explicit CudaDevice(const CudaDeviceInfo& info);
  ~CudaDevice() override;

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  std::string name() const override { return "cuda:" + std::to_string(info_.ordinal); }

  // A block of this size freed earlier (host free list), else from the pool; in stream order:
  // no cudaMalloc once the pool holds enough, no sync.
  void* allocate(size_t bytes, Stream& stream) override;
  // Onto the host free list (or, past its cap, cudaFreeAsync back to the pool): the memory
  // serves later work on the stream only. Never throws (it runs in destructors); a failure
  // is reported at the next synchronize().
  void deallocate(void* ptr, size_t bytes, Stream& stream) override;

  // Pageable `host_dst`: through the staging ring, complete on return. A pinned destination
  // (pinned_host_memory()): one asynchronous copy; the caller synchronizes before reading.
  void copy_to_host(void* host_dst, const void* src, size_t bytes, Stream& stream) override;
  // Asynchronous; `host_src` may be reused as soon as this returns.
  void copy_from_host(void* dst, const void* host_src, size_t bytes, Stream& stream) override;
  void copy_on_device(void* dst, const void* src, size_t bytes, Stream& stream) override;

  Stream& default_stream() override { return *stream_obj_; }
  // CUDA stream capture in relaxed mode (cudaStreamBeginCapture); the recording is
  // instantiated as a CUDA graph (cuda_graph_work.h). While recording, freed blocks are kept
  // for the graph and an allocation the free list cannot serve comes from the pool through a
  // side stream, so the graph holds no allocation nodes.
  bool begin_capture() override;
  std::unique_ptr<CapturedWork> end_capture(bool keep) override;
  // A recording is a CUDA graph: its dependencies are the capture's dependency set.
  bool capture_branches() const override { return true; }
  CaptureTail capture_tail() override;
  void set_capture_tail(const CaptureTail& tail) override;
  // Conditional graph nodes (cuda_conditional.h): a lazy ifelse stays in the recording.
  bool capture_conditionals() const override { return true; }
  void begin_conditional(const Condition& condition, bool with_else) override;
  void else_conditional() override;
  void end_conditional() override;
  void copy_chosen(const Condition& condition, void* dst, const void* when_true, const void* when_false,
                   size_t bytes) override;
  // Waits until results copied into pinned host memory are there. While recording, the wait
  // belongs to each replay instead (the recorded copies have not run): the graph waits for
  // its work after its launch. Only a thunk whose host reads come after the call may defer so.
  void wait_for_host_results() override;
  // Pinned host memory (pinned_host_memory()): a result comes back in one asynchronous copy.
  Device& host_result_memory() override;
  size_t kernel_copy_max_bytes() const override { return kKernelCopyMaxBytes; }

  // The GPU layer's device (gpu_device.h).
  cfam::Dialect dialect() const override { return cfam::Dialect::Cuda; }
  cfam::DeviceLimits limits() const override;
  // NVRTC compiles the whole unit once (through the kernel cache) for this device's arch.
  std::unique_ptr<gpu::GpuModule> load_module(gpu::ModuleSource source) override;
  // NVRTC builds of `sources` on several threads (NVRTC is thread-safe), into the cache.
  void compile_ahead(const std::vector<gpu::ModuleSource>& sources, int threads) override;
  void fill_zero(void* ptr, size_t bytes) override;
  int read_int(const void* ptr) override;
  // While recording: taken (gpu_device.h). The recording ends with a copy of the error word
  // into pinned memory and its reset, after the work that may have set it; each replay
  // waits and checks; copies on the device recorded after it skip when the word is set.
  bool defer_flag_check(std::function<void()> raise) override;
  bool capture_defers_checks() override;
  bool recording() override { return capturing(); }
  // The side stream (gpu_device.h): non-blocking, at the device's highest priority, so that a
  // collective's blocks are scheduled as soon as SMs free up beside a long product (where
  // both queue, the collective would otherwise wait for the product's last wave).
  Stream* side_stream() override;
  // A mark is an event recorded on the stream (events are recycled once their mark goes).
  std::unique_ptr<gpu::StreamMark> mark(Stream& stream) override;
  void wait_for(Stream& waiter, const gpu::StreamMark& mark) override;
  uintptr_t native_stream() override { return reinterpret_cast<uintptr_t>(stream_.get()); }
  std::unique_ptr<DeviceTimer> make_timer() override;
  void note_launch(const std::string& label) override;

  // Waits for the stream; an error there becomes a DeviceError naming the nodes launched
  // since the last synchronisation.
  void synchronize_stream();
  // Waits for one event recorded on the stream (errors as synchronize_stream()).
  void wait_event(cudaEvent_t event);
  // Checks run after each synchronize_stream(), for work on the stream whose failure the
  // stream does not report: an NCCL collective aborted by its communicator's watchdog ends
  // without a CUDA error, and its CommError is raised here. Returns an id for the removal.
  int add_sync_check(std::function<void()> check);
  void remove_sync_check(int id);
  // Throws the DeviceError for an asynchronous error `err` that surfaced in `call`.
  [[noreturn]] void raise_async(cudaError_t err, const char* call);
  // After a kernel launch: a launch error (bad configuration, missing kernel) as a
  // DeviceError naming `what`.
  void check_launch(cudaError_t launch_result, const std::string& what);

  int ordinal() const { return info_.ordinal; }
  const CudaDeviceInfo& info() const { return info_; }
  int arch() const { return info_.arch(); }
  cudaStream_t stream() const { return stream_.get(); }
  cudaMemPool_t pool() const { return pool_.get(); }

  // The pool's reserved bytes (what it holds from the driver, used or cached): constant in
  // steady state, which the allocator test checks.
  size_t pool_reserved_bytes() const;
  // The most bytes the pool has ever reserved (its high-water mark).
  size_t pool_reserved_high() const;

 private:
  CudaStream& stream_of(Stream& s) const;

  CudaDeviceInfo info_;
  UniqueStream stream_;
  UniquePool pool_;
  std::unique_ptr<CudaStream> stream_obj_;
  // side_stream(): made on first use; marks' events no mark holds now.
  std::mutex beside_mutex_;
  UniqueStream beside_stream_;
  std::unique_ptr<CudaStream> beside_stream_obj_;
  std::vector<UniqueEvent> spare_mark_events_;
  std::mutex mutex_;  // launch list, deferred errors
  // The staging ring's own lock: a copy through it waits for the device while holding it, and
  // that wait may raise an asynchronous error, which takes mutex_ to name the launches.
  std::mutex staging_mutex_;
  std::unique_ptr<PinnedStaging> staging_;
  gpu::LaunchLabels launched_;  // since the last synchronisation, named in an asynchronous error
  std::string deferred_error_;         // a failed cudaFreeAsync, reported at the next sync
  std::vector<std::pair<int, std::function<void()>>> sync_checks_;  // under mutex_
  int next_sync_check_ = 0;                                         // under mutex_

  // Freed blocks by their size in bytes. All of the device's work goes to its one stream (the
  // side stream's work keeps its buffers until the stream joins it: gpu_device.h), so
  // a block freed here may serve any later allocation of its size at once, in stream order,
  // without a pool call: a steady-state node then costs its launch alone
  // (cudaMallocFromPoolAsync and cudaFreeAsync took microseconds per node). Capped at
  // kMaxFreeListBytes; released to the pool when an allocation fails and with the device.
  static constexpr size_t kMaxFreeListBytes = size_t{1} << 30;
  void release_free_list();  // every block back to the pool (cudaFreeAsync)
  void pool_free(void* ptr);  // cudaFreeAsync, a failure kept in deferred_error_
  std::mutex free_mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_blocks_;
  size_t free_bytes_ = 0;
  bool capturing();
  // While recording: a DeviceError naming `what`, which CallReplay takes as "run node by node".
  void refuse_while_capturing(const char* what);
  bool capturing_ = false;                            // under free_mutex_
  bool capture_waits_ = false;                        // a recorded copy to the host: replays wait
  std::vector<std::pair<void*, size_t>> capture_kept_;  // freed while capturing
  std::vector<std::function<void()>> capture_checks_;   // deferred error checks (under free_mutex_)
  CaptureTail capture_check_tail_;                    // the recorded work that may set the error word
  CaptureTail capture_flag_readers_;                  // the guarded copies, which read it
  UniquePinned capture_flag_copy_;                    // where the recording copies the error word
  UniqueStream side_stream_;                          // pool allocations while capturing
  ConditionalCapture conditionals_;                   // the recording thread's
  std::mutex read_mutex_;                             // read_int's pinned int
  UniquePinned read_buffer_;
};

// The device of `ordinal`, created on first use and kept for the process. ConfigError
// saying why when CUDA is unavailable or there is no such device.
CudaDevice& cuda_device(int ordinal);

}  // namespace tgc::cuda
