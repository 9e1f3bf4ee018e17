// CudaDevice: stream, pool allocator, copies, synchronisation with error attribution, and the
// per-ordinal registry.
#include "backends/cuda/cuda_device.h"

#include <algorithm>
#include <chrono>
#include <set>

#include <cstdint>

#include <fmt/format.h>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_graph_work.h"
#include "backends/cuda/cuda_module.h"
#include "backends/cuda/nvrtc_compiler.h"
#include "backends/cuda/pinned_host_memory.h"
#include "backends/gpu/device_copy.h"
#include "runtime/compile_log.h"
#include "runtime/device_lock.h"
#include "runtime/error.h"
#include "runtime/parallel_jobs.h"

namespace tgc::cuda {

namespace {

constexpr size_t kStagingChunk = 8u << 20;   // bytes per pinned staging chunk
constexpr int kStagingChunks = 4;

// Device time between two events, read without waiting.
class CudaTimer final : public DeviceTimer {
 public:
  explicit CudaTimer(CudaDevice& device)
      : device_(device), start_(make_event(/*timing=*/true)), stop_(make_event(/*timing=*/true)) {}
  void start(Stream& stream) override {
    TGC_CUDA_CHECK(cudaEventRecord(start_.get(), stream_of(stream)));
  }
  void stop(Stream& stream) override {
    TGC_CUDA_CHECK(cudaEventRecord(stop_.get(), stream_of(stream)));
    stopped_ = true;
  }
  std::optional<double> elapsed_seconds() override {
    if (!stopped_) return std::nullopt;
    DeviceGuard guard(device_.ordinal());
    cudaError_t q = cudaEventQuery(stop_.get());
    if (q == cudaErrorNotReady) return std::nullopt;
    if (q != cudaSuccess) device_.raise_async(q, "cudaEventQuery");
    float ms = 0;
    TGC_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  cudaStream_t stream_of(Stream& s) const {
    auto* cs = dynamic_cast<CudaStream*>(&s);
    TGC_INTERNAL_CHECK(cs && &cs->device() == &device_, "a CUDA timer used on another device's stream");
    return cs->get();
  }
  CudaDevice& device_;
  UniqueEvent start_, stop_;
  bool stopped_ = false;
};

}  // namespace

void CudaStream::synchronize() {
  // Outside a call (a device Tensor's sync() on a thread of the user's), the device's lock:
  // synchronising a stream another thread is recording into a CUDA graph would end the
  // recording with an error (runtime/device_lock.h).
  DeviceUseLock use(device_);
  // The side stream's work is waited for through the default stream (the executor joins it at
  // the end of every call); its own synchronisation waits for it alone.
  if (stream_ != device_.stream()) {
    DeviceGuard guard(device_.ordinal());
    TGC_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return;
  }
  device_.synchronize_stream();
}

CudaDevice::CudaDevice(const CudaDeviceInfo& info) : info_(info) {
  DeviceGuard guard(info_.ordinal);
  cudaStream_t s = nullptr;
  // Non-blocking: never implicitly ordered after the legacy default stream's work.
  TGC_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  stream_.reset(s);
  stream_obj_ = std::make_unique<CudaStream>(*this, s);

  int pools_supported = 0;
  TGC_CUDA_CHECK(cudaDeviceGetAttribute(&pools_supported, cudaDevAttrMemoryPoolsSupported, info_.ordinal));
  if (!pools_supported)
    throw ConfigError(name() + " (" + info_.name + ") does not support stream-ordered memory pools", "function()",
                      "tgc needs a GPU and driver with cudaMallocAsync support (CUDA 11.2+, not under "
                      "some virtualisation); use device=cpu");
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = info_.ordinal;
  cudaMemPool_t pool = nullptr;
  TGC_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
  pool_.reset(pool);
  // Keep every freed byte cached: without this the pool returns memory to the driver at each
  // synchronisation, and the next call pays cudaMalloc again.
  uint64_t threshold = UINT64_MAX;
  TGC_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));

  staging_ = std::make_unique<PinnedStaging>(kStagingChunk, kStagingChunks,
                                             [this](cudaEvent_t e) { wait_event(e); });
  read_buffer_ = make_pinned(sizeof(int));  // now: pinning memory while recording is not allowed
}

CudaDevice::~CudaDevice() {
  // Pending frees must run before the pool goes; errors cannot be reported here.
  if (beside_stream_) cudaStreamSynchronize(beside_stream_.get());
  drop_side_work();  // its buffers are freed into this device, which is going
  if (stream_) {
    release_free_list();
    cudaStreamSynchronize(stream_.get());
  }
}

Stream* CudaDevice::side_stream() {
  std::lock_guard<std::mutex> lock(beside_mutex_);
  if (!beside_stream_) {
    DeviceGuard guard(info_.ordinal);
    int least = 0, greatest = 0;
    TGC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s = nullptr;
    TGC_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
    beside_stream_.reset(s);
    beside_stream_obj_ = std::make_unique<CudaStream>(*this, s);
  }
  return beside_stream_obj_.get();
}

namespace {

// An event recorded on a stream; its event goes back to the device's spares with it.
class CudaMark final : public gpu::StreamMark {
 public:
  CudaMark(UniqueEvent event, std::function<void(UniqueEvent)> recycle)
      : event_(std::move(event)), recycle_(std::move(recycle)) {}
  ~CudaMark() override { recycle_(std::move(event_)); }
  cudaEvent_t get() const { return event_.get(); }

 private:
  UniqueEvent event_;
  std::function<void(UniqueEvent)> recycle_;
};

}  // namespace

std::unique_ptr<gpu::StreamMark> CudaDevice::mark(Stream& stream) {
  const cudaStream_t s = stream_of(stream).get();
  UniqueEvent event;
  {
    std::lock_guard<std::mutex> lock(beside_mutex_);
    if (!spare_mark_events_.empty()) {
      event = std::move(spare_mark_events_.back());
      spare_mark_events_.pop_back();
    }
  }
  DeviceGuard guard(info_.ordinal);
  if (!event) event = make_event(/*timing=*/false);
  TGC_CUDA_CHECK(cudaEventRecord(event.get(), s));
  // A recorded event may be recorded again once its mark is gone: a wait already enqueued
  // keeps the work it named.
  return std::make_unique<CudaMark>(std::move(event), [this](UniqueEvent e) {
    std::lock_guard<std::mutex> lock(beside_mutex_);
    spare_mark_events_.push_back(std::move(e));
  });
}

void CudaDevice::wait_for(Stream& waiter, const gpu::StreamMark& mark) {
  const auto* m = dynamic_cast<const CudaMark*>(&mark);
  TGC_INTERNAL_CHECK(m != nullptr, "a stream mark of another device kind waited for on " + name());
  DeviceGuard guard(info_.ordinal);
  TGC_CUDA_CHECK(cudaStreamWaitEvent(stream_of(waiter).get(), m->get(), 0));
}

CudaStream& CudaDevice::stream_of(Stream& s) const {
  auto* cs = dynamic_cast<CudaStream*>(&s);
  TGC_INTERNAL_CHECK(cs && &cs->device() == this, "work for " + name() + " enqueued on another device's stream");
  return *cs;
}

cfam::DeviceLimits CudaDevice::limits() const {
  return cfam::DeviceLimits{info_.multiprocessors, info_.max_threads_per_block, info_.warp_size,
                            cfam::long_reduction(cfam::Dialect::Cuda)};
}

namespace {

// Blocks are whole multiples of 16 bytes: NCCL's kernels read a buffer's last bytes as whole
// 4- to 16-byte words (a 1-byte uint8 all_reduce reads 4 bytes, which compute-sanitizer
// reports as out of bounds), and size classes that close together share the free lists.
size_t block_bytes(size_t bytes) { return (bytes + 15) & ~size_t{15}; }

}  // namespace

void* CudaDevice::allocate(size_t bytes, Stream& stream) {
  if (bytes == 0) return nullptr;
  bytes = block_bytes(bytes);
  cudaStream_t s = stream_of(stream).get();
  bool capturing = false;
  {
    std::lock_guard<std::mutex> lock(free_mutex_);
    auto it = free_blocks_.find(bytes);
    if (it != free_blocks_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      free_bytes_ -= bytes;
      return p;
    }
    capturing = capturing_;
  }
  DeviceGuard guard(info_.ordinal);
  if (capturing) {
    // Not on the recorded stream (that would put an allocation node into the graph): from the
    // pool on the side stream, complete before the recorded work that uses it is replayed.
    void* p = nullptr;
    TGC_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, pool_.get(), side_stream_.get()));
    TGC_CUDA_CHECK(cudaStreamSynchronize(side_stream_.get()));
    return p;
  }
  void* p = nullptr;
  cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, pool_.get(), s);
  if (err == cudaErrorMemoryAllocation) {
    // Blocks of other sizes kept on the free list go back to the pool; frees enqueued on the
    // stream complete at a sync; cached blocks go back to the driver when trimmed. Then one
    // more try.
    cudaGetLastError();
    release_free_list();
    synchronize_stream();
    TGC_CUDA_CHECK(cudaMemPoolTrimTo(pool_.get(), 0));
    err = cudaMallocFromPoolAsync(&p, bytes, pool_.get(), s);
  }
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw DeviceError("out of GPU memory allocating " + std::to_string(bytes) + " bytes on " + name() + " (" +
                          std::to_string(free_b >> 20) + " MiB free of " + std::to_string(total_b >> 20) + " MiB)",
                      "", "use smaller sizes, keep allow_gc=true, or release device tensors you hold");
  }
  check_cuda(err, "cudaMallocFromPoolAsync");
  return p;
}

void CudaDevice::deallocate(void* ptr, size_t bytes, Stream& stream) {
  if (!ptr) return;
  bytes = block_bytes(bytes);  // the block allocate() gave
  stream_of(stream);  // checks that the block was this device's stream's
  {
    std::lock_guard<std::mutex> lock(free_mutex_);
    if (capturing_) {  // recorded work may use it on every replay: the graph keeps it
      capture_kept_.emplace_back(ptr, bytes);
      return;
    }
    if (free_bytes_ + bytes <= kMaxFreeListBytes) {
      free_blocks_[bytes].push_back(ptr);
      free_bytes_ += bytes;
      return;
    }
  }
  pool_free(ptr);
}

void CudaDevice::pool_free(void* ptr) {
  int current = -1;
  cudaGetDevice(&current);
  if (current != info_.ordinal) cudaSetDevice(info_.ordinal);
  cudaError_t err = cudaFreeAsync(ptr, stream_.get());
  if (current != info_.ordinal && current >= 0) cudaSetDevice(current);
  // At process exit the runtime may already be gone: nothing left to free into.
  if (err != cudaSuccess && err != cudaErrorCudartUnloading) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (deferred_error_.empty())
      deferred_error_ = "CUDA call cudaFreeAsync failed: " + cuda_error_text(err);
  }
}

bool CudaDevice::begin_capture() {
  DeviceGuard guard(info_.ordinal);
  gpu::load_copy_kernels(*this);  // small copies are kernels: their module is loaded before recording
  error_word();                   // allocated and zeroed now: neither may be recorded
  capture_flag_copy_ = make_pinned(sizeof(int));  // pinning memory while recording is not allowed
  *static_cast<int*>(capture_flag_copy_.get()) = 0;
  if (!side_stream_) {
    cudaStream_t s = nullptr;
    TGC_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    side_stream_.reset(s);
  }
  {
    std::lock_guard<std::mutex> lock(free_mutex_);
    TGC_INTERNAL_CHECK(!capturing_, "a capture began on " + name() + " while another was recording");
    capturing_ = true;
    capture_waits_ = false;
  }
  // Relaxed: calls that are not stream work (cuBLAS's, the side stream's) are allowed while
  // recording; a synchronisation of the recorded stream still fails the capture.
  const cudaError_t err = cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeRelaxed);
  if (err == cudaSuccess) return true;
  cudaGetLastError();
  std::lock_guard<std::mutex> lock(free_mutex_);
  capturing_ = false;
  return false;
}

Device::CaptureTail CudaDevice::capture_tail() {
  if (conditionals_.open()) return {conditionals_.node()};  // inside a body: the node stands for it
  DeviceGuard guard(info_.ordinal);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaGraphNode_t* nodes = nullptr;
  size_t n = 0;
  TGC_CUDA_CHECK(cudaStreamGetCaptureInfo(stream_.get(), &status, nullptr, nullptr, &nodes, nullptr, &n));
  TGC_INTERNAL_CHECK(status == cudaStreamCaptureStatusActive, "capture_tail() on " + name() + " while not recording");
  return CaptureTail(nodes, nodes + n);
}

void CudaDevice::set_capture_tail(const CaptureTail& tail) {
  if (conditionals_.open()) return;  // a body is one sequence, after all that came before the node
  DeviceGuard guard(info_.ordinal);
  std::vector<cudaGraphNode_t> nodes;
  nodes.reserve(tail.size());
  for (const void* n : tail) nodes.push_back(static_cast<cudaGraphNode_t>(const_cast<void*>(n)));
  TGC_CUDA_CHECK(cudaStreamUpdateCaptureDependencies(stream_.get(), nodes.data(), nullptr, nodes.size(),
                                                     cudaStreamSetCaptureDependencies));
}

std::unique_ptr<CapturedWork> CudaDevice::end_capture(bool keep) {
  DeviceGuard guard(info_.ordinal);
  std::vector<std::function<void()>> checks;
  CaptureTail check_tail;
  {
    std::lock_guard<std::mutex> lock(free_mutex_);
    checks.swap(capture_checks_);
    check_tail.swap(capture_check_tail_);
    for (const void* n : capture_flag_readers_)
      if (std::find(check_tail.begin(), check_tail.end(), n) == check_tail.end()) check_tail.push_back(n);
    capture_flag_readers_.clear();
  }
  // A failure inside conditional work: the stream captures a body, the recording's graph is ours.
  cudaGraph_t graph = conditionals_.abandon(*this);
  if (graph) keep = false;
  if (keep && !checks.empty()) {
    // The recording ends with the error word's copy to the host and its reset, after the
    // work that may have set it (its last readers, the guarded copies, came before).
    set_capture_tail(check_tail);
    if (cudaMemcpyAsync(capture_flag_copy_.get(), error_word(), sizeof(int), cudaMemcpyDeviceToHost, stream_.get()) !=
            cudaSuccess ||
        cudaMemsetAsync(error_word(), 0, sizeof(int), stream_.get()) != cudaSuccess)
      keep = false;  // the capture failed earlier: cudaStreamEndCapture says so below
  }
  cudaError_t err = graph ? cudaErrorStreamCaptureInvalidated : cudaStreamEndCapture(stream_.get(), &graph);
  std::vector<std::pair<void*, size_t>> kept;
  bool waits = false;
  {
    std::lock_guard<std::mutex> lock(free_mutex_);
    capturing_ = false;
    waits = capture_waits_;
    kept.swap(capture_kept_);
  }
  cudaGraphExec_t exec = nullptr;
  if (keep && err == cudaSuccess && graph) err = cudaGraphInstantiate(&exec, graph, 0);
  if (graph) cudaGraphDestroy(graph);
  if (err != cudaSuccess || !exec) {
    if (err != cudaSuccess) cudaGetLastError();  // a failed capture leaves no sticky error: clear it
    for (const auto& [p, n] : kept) deallocate(p, n, default_stream());
    return nullptr;
  }
  UniquePinned flag_copy = checks.empty() ? nullptr : std::move(capture_flag_copy_);
  return make_graph_work(*this, exec, std::move(kept), waits, std::move(checks), std::move(flag_copy));
}

void CudaDevice::begin_conditional(const Condition& condition, bool with_else) {
  conditionals_.begin(*this, condition, with_else);
}

void CudaDevice::else_conditional() { conditionals_.otherwise(*this); }

void CudaDevice::end_conditional() { conditionals_.end(*this); }

void CudaDevice::copy_chosen(const Condition& condition, void* dst, const void* when_true, const void* when_false,
                             size_t bytes) {
  cuda::copy_chosen(*this, condition, dst, when_true, when_false, bytes);
}

bool CudaDevice::defer_flag_check(std::function<void()> raise) {
  if (!capturing()) return false;
  const CaptureTail tail = capture_tail();  // the work just recorded, which may have set the word
  std::lock_guard<std::mutex> lock(free_mutex_);
  capture_checks_.push_back(std::move(raise));
  for (const void* n : tail)
    if (std::find(capture_check_tail_.begin(), capture_check_tail_.end(), n) == capture_check_tail_.end())
      capture_check_tail_.push_back(n);
  return true;
}

bool CudaDevice::capture_defers_checks() {
  std::lock_guard<std::mutex> lock(free_mutex_);
  return capturing_ && !capture_checks_.empty();
}

bool CudaDevice::capturing() {
  std::lock_guard<std::mutex> lock(free_mutex_);
  return capturing_;
}

void CudaDevice::wait_for_host_results() {
  {
    std::lock_guard<std::mutex> lock(free_mutex_);
    if (capturing_) {
      capture_waits_ = true;
      return;
    }
  }
  synchronize_stream();
}

Device& CudaDevice::host_result_memory() { return pinned_host_memory(); }

std::unique_ptr<gpu::GpuModule> CudaDevice::load_module(gpu::ModuleSource source) {
  NvrtcOptions options;
  options.arch = arch();
  options.fast_math = source.fast_math;
  // A module in two parts (ModuleSource::late) builds its common entries now and the late
  // ones on the first launch that needs one.
  const bool parts = !source.late.empty();
  const std::string cubin =
      nvrtc_compile(parts ? source.render_part(false) : source.render(-1), source.label, options, source.cache_dir);
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<CudaModule> module;
  if (parts) {
    auto late_cubin = [render_part = source.render_part, label = source.label, options, cache_dir = source.cache_dir] {
      return nvrtc_compile(render_part(true), label, options, cache_dir);
    };
    module = std::make_unique<CudaModule>(*this, cubin, source.entries, source.label, source.late, std::move(late_cubin));
  } else {
    module = std::make_unique<CudaModule>(*this, cubin, source.entries, source.label);
  }
  if (CompileLog* log = current_compile_log())
    log->add_load("cuda", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return module;
}

void CudaDevice::compile_ahead(const std::vector<gpu::ModuleSource>& sources, int threads) {
  // The units load_module will build first, those the cache lacks, distinct, grouped by what
  // changes the build (fast math, the cache directory).
  struct Group {
    NvrtcOptions options;
    std::string cache_dir;
    std::vector<std::string> units;
  };
  std::vector<Group> groups;
  std::set<std::string> seen;
  const auto t0 = std::chrono::steady_clock::now();
  for (const gpu::ModuleSource& source : sources) {
    NvrtcOptions options;
    options.arch = arch();
    options.fast_math = source.fast_math;
    std::string unit = source.late.empty() ? source.render(-1) : source.render_part(false);
    if (!seen.insert(unit).second || nvrtc_cached(unit, source.label, options, source.cache_dir)) continue;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) {
      return x.options.fast_math == options.fast_math && x.cache_dir == source.cache_dir;
    });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{options, source.cache_dir, {}});
    g->units.push_back(std::move(unit));
  }
  // One NVRTC program per batch of units: NVRTC's start (12-20 ms on a lent H200's core) is
  // most of a unit's build once only its expected entries are in it. Batches of at most
  // kUnitsPerProgram, so a large function's builds can run on several threads.
  constexpr size_t kUnitsPerProgram = 8;
  std::vector<std::pair<const Group*, std::vector<std::string>>> programs;
  size_t units = 0;
  for (const Group& g : groups)
    for (size_t i = 0; i < g.units.size(); i += kUnitsPerProgram) {
      programs.push_back({&g, {g.units.begin() + i, g.units.begin() + std::min(g.units.size(), i + kUnitsPerProgram)}});
      units += programs.back().second.size();
    }
  CompileLog* log = current_compile_log();
  if (programs.empty()) {
    if (log) log->add_load("cuda", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0);
    return;
  }
  const int used = std::max(1, std::min<int>(threads, static_cast<int>(programs.size())));
  run_parallel(programs.size(), used, [&](size_t i) {
    const auto& [group, batch] = programs[i];
    try {
      nvrtc_compile_together(batch, fmt::format("{} kernels compiled together", batch.size()), group->options,
                             group->cache_dir);
    } catch (const InternalError&) {
      // A unit NVRTC rejects: each unit's own build in load_module names the kernel at fault.
    }
  });
  if (log)
    log->add_codegen("cuda", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                     static_cast<int>(units), used);
}

void CudaDevice::fill_zero(void* ptr, size_t bytes) {
  if (bytes == 0) return;
  DeviceGuard guard(info_.ordinal);
  TGC_CUDA_CHECK(cudaMemsetAsync(ptr, 0, bytes, stream_.get()));
}

int CudaDevice::read_int(const void* ptr) {
  std::lock_guard<std::mutex> lock(read_mutex_);
  {
    DeviceGuard guard(info_.ordinal);
    TGC_CUDA_CHECK(cudaMemcpyAsync(read_buffer_.get(), ptr, sizeof(int), cudaMemcpyDeviceToHost, stream_.get()));
  }
  synchronize_stream();
  return *static_cast<const int*>(read_buffer_.get());
}

void CudaDevice::refuse_while_capturing(const char* what) {
  // A wait cannot be recorded, and staged copies go through host memory the recording cannot
  // own (the staging buffer is reused by the next copy): such a call runs node by node.
  if (capturing())
    throw DeviceError(fmt::format("{} cannot be recorded in a CUDA graph", what), name(),
                      "this function runs node by node (cuda_graphs=off does so from the start)");
}

void CudaDevice::release_free_list() {
  std::unordered_map<size_t, std::vector<void*>> blocks;
  {
    std::lock_guard<std::mutex> lock(free_mutex_);
    blocks.swap(free_blocks_);
    free_bytes_ = 0;
  }
  for (auto& [bytes, list] : blocks)
    for (void* p : list) pool_free(p);
}

void CudaDevice::copy_to_host(void* host_dst, const void* src, size_t bytes, Stream& stream) {
  if (bytes == 0) return;
  cudaStream_t s = stream_of(stream).get();
  DeviceGuard guard(info_.ordinal);
  if (pinned_host_memory().contains(host_dst, bytes)) {
    if (bytes <= kernel_copy_max_bytes() && &stream == &default_stream()) return gpu::copy_bytes(*this, host_dst, src, bytes);
    TGC_CUDA_CHECK(cudaMemcpyAsync(host_dst, src, bytes, cudaMemcpyDeviceToHost, s));
    return;
  }
  refuse_while_capturing("a copy to pageable host memory");
  std::lock_guard<std::mutex> lock(staging_mutex_);
  staging_->to_host(host_dst, src, bytes, s);
}

void CudaDevice::copy_from_host(void* dst, const void* host_src, size_t bytes, Stream& stream) {
  if (bytes == 0) return;
  cudaStream_t s = stream_of(stream).get();
  refuse_while_capturing("a copy from host memory");
  DeviceGuard guard(info_.ordinal);
  std::lock_guard<std::mutex> lock(staging_mutex_);
  staging_->to_device(dst, host_src, bytes, s);
}

void CudaDevice::copy_on_device(void* dst, const void* src, size_t bytes, Stream& stream) {
  if (bytes == 0) return;
  if (&stream == &default_stream() && capture_defers_checks()) {
    // Recorded after a deferred check: skipped on the replay whose check raises (a shared
    // variable's update stays as it was), and so also after the work that may set the word.
    CaptureTail tail = capture_tail();
    {
      std::lock_guard<std::mutex> lock(free_mutex_);
      for (const void* n : capture_check_tail_)
        if (std::find(tail.begin(), tail.end(), n) == tail.end()) tail.push_back(n);
    }
    set_capture_tail(tail);
    gpu::copy_bytes_unless(*this, dst, src, bytes, error_word());
    // The word's reset at the recording's end must follow this copy's read of it: a reset
    // beside the copy (both after the check tail alone) let the copy see a cleared word and
    // write an update of a call that raised. (Not in the check tail: the next guarded copy
    // need not follow this one.)
    const CaptureTail after = capture_tail();
    std::lock_guard<std::mutex> lock(free_mutex_);
    capture_flag_readers_.insert(capture_flag_readers_.end(), after.begin(), after.end());
    return;
  }
  if (bytes <= kernel_copy_max_bytes() && &stream == &default_stream()) return gpu::copy_bytes(*this, dst, src, bytes);
  cudaStream_t s = stream_of(stream).get();
  DeviceGuard guard(info_.ordinal);
  TGC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
}

std::unique_ptr<DeviceTimer> CudaDevice::make_timer() {
  DeviceGuard guard(info_.ordinal);
  return std::make_unique<CudaTimer>(*this);
}

void CudaDevice::note_launch(const std::string& label) {
  std::lock_guard<std::mutex> lock(mutex_);
  launched_.note(label);
}

void CudaDevice::raise_async(cudaError_t err, const char* call) {
  std::string blame;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blame = launched_.take_blame();
  }
  const std::string what =
      "CUDA error on " + name() + ": " + cuda_error_text(err) + " (surfaced in " + call_name(call) + ")" + blame;
  const std::string hint =
      is_sticky(err) ? "a kernel faulted, which leaves the CUDA context unusable: restart the process; "
                       "run with sync=true so that the error names exactly the node that caused it"
                     : "run with sync=true so that the error names exactly the node that caused it";
  throw DeviceError(what, "", hint);
}

void CudaDevice::synchronize_stream() {
  // Waiting on a stream being recorded is an error for CUDA (and fails the capture): said here
  // first, as a tgc error, so that recording stops cleanly and the call runs node by node.
  refuse_while_capturing("a wait for the device (a kernel's error flag or a value the host reads)");
  DeviceGuard guard(info_.ordinal);
  cudaError_t err = cudaStreamSynchronize(stream_.get());
  if (err != cudaSuccess) raise_async(err, "cudaStreamSynchronize");
  std::string deferred;
  std::vector<std::function<void()>> checks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    launched_.clear();
    deferred.swap(deferred_error_);
    for (const auto& [id, check] : sync_checks_) checks.push_back(check);
  }
  if (!deferred.empty()) throw DeviceError(deferred + " (while releasing device memory)", name(),
                                           "run with sync=true to find the node involved");
  for (const auto& check : checks) check();  // outside the lock: a check may throw
}

int CudaDevice::add_sync_check(std::function<void()> check) {
  std::lock_guard<std::mutex> lock(mutex_);
  sync_checks_.emplace_back(next_sync_check_, std::move(check));
  return next_sync_check_++;
}

void CudaDevice::remove_sync_check(int id) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(sync_checks_, [id](const auto& c) { return c.first == id; });
}

void CudaDevice::wait_event(cudaEvent_t event) {
  refuse_while_capturing("a wait for an event");
  cudaError_t err = cudaEventSynchronize(event);
  if (err != cudaSuccess) raise_async(err, "cudaEventSynchronize");
}

void CudaDevice::check_launch(cudaError_t launch_result, const std::string& what) {
  if (launch_result == cudaSuccess) return;
  cudaGetLastError();  // a launch-configuration error is not sticky: clear it
  if (is_sticky(launch_result)) raise_async(launch_result, "cudaLaunchKernel");
  throw DeviceError("CUDA call cudaLaunchKernel failed for " + what + ": " + cuda_error_text(launch_result), "",
                    "this is most likely a bug in tgc's launch configuration; please report it");
}

size_t CudaDevice::pool_reserved_bytes() const {
  uint64_t v = 0;
  TGC_CUDA_CHECK(cudaMemPoolGetAttribute(pool_.get(), cudaMemPoolAttrReservedMemCurrent, &v));
  return static_cast<size_t>(v);
}

size_t CudaDevice::pool_reserved_high() const {
  uint64_t v = 0;
  TGC_CUDA_CHECK(cudaMemPoolGetAttribute(pool_.get(), cudaMemPoolAttrReservedMemHigh, &v));
  return static_cast<size_t>(v);
}

CudaDevice& cuda_device(int ordinal) {
  const CudaStatus& st = cuda_status();
  if (!st.available)
    throw ConfigError("device 'cuda:" + std::to_string(ordinal) + "' is not available: " + st.reason, "function()",
                      "use device=cpu here; `tgc devices` lists what this machine can run on");
  if (ordinal < 0 || ordinal >= static_cast<int>(st.devices.size()))
    throw ConfigError("device 'cuda:" + std::to_string(ordinal) + "' does not exist: this machine has " +
                          std::to_string(st.devices.size()) + " CUDA device(s)",
                      "function()", "use cuda:0 to cuda:" + std::to_string(st.devices.size() - 1) +
                                        " (tgc devices lists them)");
  static std::mutex mutex;
  // Never destroyed: device tensors held in static storage release their memory during exit,
  // after any static registry would have been torn down.
  static auto* devices = new std::vector<std::unique_ptr<CudaDevice>>(st.devices.size());
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*devices)[static_cast<size_t>(ordinal)];
  if (!slot) {
    const auto t0 = std::chrono::steady_clock::now();
    slot = std::make_unique<CudaDevice>(st.devices[static_cast<size_t>(ordinal)]);
    // Once per device and process, like the library handles: log_compiles shows what a start
    // in a new process pays for it.
    if (CompileLog* log = current_compile_log())
      log->add_library_setup("CUDA device cuda:" + std::to_string(ordinal) + " (stream, memory pool)",
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return *slot;
}

}  // namespace tgc::cuda
