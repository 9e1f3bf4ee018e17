// What a GPU API adds to runtime::Device, so that everything GPU APIs do alike is written
// once in backends/gpu/ (the Composite, transfer, view, copy, index and host-fallback
// thunks, BLAS operand preparation, the table of device-op rules) and backends/cuda/ and
// backends/opencl/ hold only their device, module and library calls.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "runtime/device.h"
#include "runtime/tensor.h"

namespace tgc::gpu {

// One argument of a launch, in the entry's parameter order. An address argument is a
// device address (an operand, scratch, a kernel's state); each API passes it its own way:
// CUDA as the pointer, OpenCL as the cl_mem holding it and — for operands (size > 0: their
// element size) — an element offset appended after every other argument, in order (the ABI of
// kernel_render.h). A value argument is `size` bytes at `ptr`, passed by value (a params
// blob, an int).
struct LaunchArg {
  enum class Kind : uint8_t { Address, Value };
  Kind kind = Kind::Value;
  const void* ptr = nullptr;  // Address: the device address (may be null); Value: the bytes
  size_t size = 0;            // Address: element size (0: a whole buffer, no offset); Value: bytes

  static LaunchArg operand(const void* address, size_t element_size) {
    return {Kind::Address, address, element_size};
  }
  static LaunchArg buffer(const void* address) { return {Kind::Address, address, 0}; }
  static LaunchArg value(const void* bytes, size_t n) { return {Kind::Value, bytes, n}; }
};

// A grid-stride launch over `n` work items: blocks of 256 threads (or the device's most),
// enough blocks to fill the device (32 a multiprocessor), never more than the work needs.
struct GridStride {
  int threads = 1;
  int64_t blocks = 1;
};
GridStride grid_stride(const cfam::DeviceLimits& limits, int64_t n);

// A compiled translation unit of C-family source on one device: its entries by index.
class GpuModule {
 public:
  virtual ~GpuModule() = default;
  // Enqueues entry `entry` over `blocks` blocks (work-groups) of `threads` on the device's
  // stream, with `shared_bytes` of dynamic shared memory (CUDA; 0 elsewhere). Launch errors
  // are DeviceErrors naming the module's label and the entry. Allocates nothing per call once
  // an entry was launched.
  virtual void launch(size_t entry, int64_t blocks, int threads, size_t shared_bytes,
                      std::span<const LaunchArg> args) = 0;
};

// What a module is built from. `render(-1)` is the whole translation unit; `render(e)` the
// unit with only entry e defined (RenderOptions::only_entry), for APIs whose compiler is
// slow per entry (PoCL): those build each entry on its first launch.
struct ModuleSource {
  std::string label;                 // "kernel of 'c = add(a, b)'", "copy kernels"
  std::vector<std::string> entries;  // entry names; launch() indexes this list
  std::function<std::string(int only_entry)> render;
  // Entries an API that builds a whole unit at once (CUDA) builds apart, on the first launch
  // that needs one: a composite's 64-bit-index variants (cfam::Source::wide_index), which
  // only operands of 2^31 elements or more take and which are half of its code. Then
  // render_part(false) is the unit defining every other entry and render_part(true) the one
  // defining these. Empty: render(-1) is built with the module. APIs that build each entry
  // on its first launch (OpenCL) use render(e) and ignore this.
  std::vector<bool> late;
  std::function<std::string(bool late)> render_part;
  bool fast_math = false;  // the compiler's fast-math flag (--use_fast_math, -cl-fast-relaxed-math)
  std::string cache_dir;   // the kernel cache's directory (runtime/kernel_cache.h; "" memory only)
};

// A point in a stream's work (GpuDevice::mark).
class StreamMark {
 public:
  virtual ~StreamMark() = default;
};

class GpuDevice : public Device {
 public:
  virtual cfam::Dialect dialect() const = 0;
  virtual cfam::DeviceLimits limits() const = 0;
  // Compiles (through the kernel cache) and loads `source`: the whole unit now (CUDA), or
  // each entry on its first launch (OpenCL).
  virtual std::unique_ptr<GpuModule> load_module(ModuleSource source) = 0;
  // Compiles `sources` into the kernel cache, several units per build and on up to `threads`
  // threads at once, so that their load_module that follows finds the binaries (CUDA: the
  // units that miss the cache as few NVRTC programs). The default does nothing: OpenCL builds
  // each entry on its first launch.
  virtual void compile_ahead(const std::vector<ModuleSource>& /*sources*/, int /*threads*/) {}
  // Zeroes `bytes` device bytes at `ptr`, in stream order.
  virtual void fill_zero(void* ptr, size_t bytes) = 0;
  // The int at device address `ptr`, once the work before it ran (an error flag): waits.
  virtual int read_int(const void* ptr) = 0;
  // Host memory that results coming back are copied into (pinned on CUDA: one asynchronous
  // copy; plain host memory elsewhere).
  virtual Device& host_result_memory() { return host_device(); }
  // Waits until results copied into host_result_memory() are there (no-op where
  // copy_to_host completes on return). While a call is recorded the wait belongs to each
  // replay.
  virtual void wait_for_host_results() {}
  // Dense copies of at most this many bytes are cheaper as a kernel than through the API's
  // copy engine: the device's copy_on_device (and copies into host_result_memory()) run them
  // as gpu::copy_bytes (device_copy.h). 0: always the API's copy.
  virtual size_t kernel_copy_max_bytes() const { return 0; }

  // The device's error word: one device int, zero until a kernel flags an error its host
  // reference raises (an index out of range); the index kernels of every function on the
  // device OR into it. Allocated and zeroed on first use, kept for the device's lifetime.
  void* error_word();
  // After work that may have set the error word: while a call is recorded, the device takes
  // the check (returns true), and each replay of the recording reads the word once at its
  // end and calls the `raise` of every check taken, in order, until one throws; copies the
  // recording makes after a check (shared-variable updates) are skipped when the word is
  // set, so a call that raises changes no variable. Elsewhere it returns false: the caller
  // checks now (read_int, a wait). Only devices that record calls take checks.
  virtual bool defer_flag_check(std::function<void()> /*raise*/) { return false; }
  // Whether a call is being recorded now (defer_flag_check would take a check): asked first,
  // so that a call run node by node builds no closure.
  virtual bool recording() { return false; }

  // Side work (runtime/device.h): a stream beside default_stream(), made on first use, for
  // work that should run beside the default stream's (collectives); nullptr where the API
  // keeps to one stream (OpenCL).
  virtual Stream* side_stream() { return nullptr; }
  // A point in a stream's work (a CUDA event): mark() takes the work enqueued on `stream` so
  // far; work enqueued on `waiter` after wait_for() waits for it. No host wait.
  virtual std::unique_ptr<StreamMark> mark(Stream& /*stream*/) { return nullptr; }
  // The default stream as the API's own handle, as an integer (a cudaStream_t): what DLPack's
  // stream handshake takes (frontend/include/tgc/interop.h). 0 where there is none to give
  // (an OpenCL queue is no DLPack stream).
  virtual uintptr_t native_stream() { return 0; }
  virtual void wait_for(Stream& /*waiter*/, const StreamMark& /*mark*/) {}
  // Enqueues `work` on the side stream, after the default stream's work so far, and keeps
  // `operands` (what it reads and writes) alive until the default stream joins it. Where
  // the device has no side stream or a call is being recorded (a recording already runs
  // independent work side by side: runtime/capture_branches.h), `work` goes to the default
  // stream instead.
  void run_beside(std::vector<Tensor> operands, const std::function<void(Stream&)>& work);
  bool side_work_pending() const override { return side_pending_.load(std::memory_order_acquire); }
  bool side_work_holds(const Buffer* buffer) const override;
  // Joins the side work up to the newest piece that holds `buffer` (the side stream runs its
  // pieces in order, so the older ones are done then too); all of it when `buffer` is null.
  // Later pieces keep running beside: an update that reads the first gradient's all_reduce
  // does not wait for the last one's.
  void join_side_work(const Buffer* buffer) override;

 protected:
  // Lets go of the side work's buffers without a wait: for a device's destructor, after it
  // waited for its streams (the buffers free into the device, so they must go before it).
  void drop_side_work() noexcept;

 private:
  void* error_word_ = nullptr;
  std::mutex error_word_mutex_;
  // Side work not joined yet, in the side stream's order (under side_mutex_): each piece's
  // end and the operands it keeps alive.
  struct SidePiece {
    std::unique_ptr<StreamMark> done;
    std::vector<Tensor> operands;
  };
  std::atomic<bool> side_pending_{false};
  mutable std::mutex side_mutex_;
  std::vector<SidePiece> side_pieces_;
};

}  // namespace tgc::gpu
