// Where tensor memory lives and how work on it is ordered. The host device is implemented
// here; CUDA and OpenCL implement the same interface in backends/.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

enum class DeviceKind { Host, Cuda, OpenCL };
std::string device_kind_name(DeviceKind k);  // "cpu", "cuda", "opencl"

// An ordered queue of work on one device (a CUDA stream, an OpenCL in-order queue).
// Work enqueued on one stream runs in order; synchronize() waits for all of it.
class Stream {
 public:
  virtual ~Stream() = default;
  virtual void synchronize() = 0;
};

// Device time of the work enqueued on a stream between start() and stop() (CUDA events,
// OpenCL event profiling), measured without making the host wait: the profiler asks for the
// result later, once the work has run.
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  virtual void start(Stream& stream) = 0;
  virtual void stop(Stream& stream) = 0;
  // Seconds between start and stop once the device got there; nullopt while it has not.
  virtual std::optional<double> elapsed_seconds() = 0;
};

// Device work recorded once and enqueued again as a unit (a CUDA graph): every replay reads
// and writes the addresses the recording did, and owns the device memory released while it
// was recorded (scratch, intermediates), so nothing else is given those blocks meanwhile.
class CapturedWork {
 public:
  virtual ~CapturedWork() = default;
  // Enqueues the recorded work on the stream it was recorded from.
  virtual void replay() = 0;
  // Device memory released while recording, which the work keeps.
  virtual size_t kept_bytes() const { return 0; }
};

class Buffer;

class Device {
 public:
  virtual ~Device() = default;
  virtual DeviceKind kind() const = 0;
  virtual std::string name() const = 0;  // "cpu", "cuda:0"

  // Memory is allocated and released in the order of `stream`: a release enqueued after
  // work that reads the memory does not free it before that work ran.
  virtual void* allocate(size_t bytes, Stream& stream) = 0;
  virtual void deallocate(void* ptr, size_t bytes, Stream& stream) = 0;

  // Copies ordered on `stream`. Host pointers are plain host memory.
  virtual void copy_to_host(void* host_dst, const void* src, size_t bytes, Stream& stream) = 0;
  virtual void copy_from_host(void* dst, const void* host_src, size_t bytes, Stream& stream) = 0;
  virtual void copy_on_device(void* dst, const void* src, size_t bytes, Stream& stream) = 0;

  virtual Stream& default_stream() = 0;
  void synchronize() { default_stream().synchronize(); }

  // A timer for the profiler; nullptr where the device has none (the host: its work is
  // timed by the host clock, which is exact there since host work is synchronous).
  virtual std::unique_ptr<DeviceTimer> make_timer() { return nullptr; }
  // Names the node whose work is enqueued next, so that an asynchronous error surfacing at a
  // later synchronisation can name the nodes launched since the last one. Host: no-op.
  virtual void note_launch(const std::string& /*label*/) {}

  // Stream capture (runtime/call_replay.h): between begin_capture() and end_capture() the
  // work enqueued on default_stream() is recorded, not run, and memory released on it is
  // kept for the recording. begin_capture() is false where the device cannot record.
  // end_capture(true) returns the recording, or nullptr when some call could not be recorded;
  // end_capture(false) drops it (a thunk refused to be recorded). Dropped work never ran.
  // While recording, a device refuses what a recording cannot hold (a wait for the device, a
  // copy through staging memory) by throwing, before asking its driver.
  virtual bool begin_capture() { return false; }
  virtual std::unique_ptr<CapturedWork> end_capture(bool /*keep*/) { return nullptr; }
  // While recording: whether an error check of the recorded work was deferred to the replay's
  // end (an index kernel's flag). The device's own copies after it skip when it raises, but
  // an op that wrote a shared variable's buffer in place did not ask: CallReplay then does
  // not keep the recording.
  virtual bool capture_defers_checks() { return false; }

  // Branches in a recording (runtime/capture_branches.h). A device whose recordings are
  // graphs says true, and then, while recording: capture_tail() is the recorded work that
  // the next work enqueued would follow (opaque node handles), and set_capture_tail() makes
  // the next work follow exactly the given nodes (none: it starts a branch of its own).
  // A device that records one sequence says false and ignores the others.
  using CaptureTail = std::vector<const void*>;
  virtual bool capture_branches() const { return false; }
  virtual CaptureTail capture_tail() { return {}; }
  virtual void set_capture_tail(const CaptureTail& /*tail*/) {}

  // Conditional work in a recording (runtime/recorded_branches.h: a lazy ifelse in a recorded
  // call). A device that can record it (CUDA's conditional graph nodes) says true, and then,
  // while recording: the work enqueued between begin_conditional(c) and end_conditional()
  // runs on each replay only when `c` holds there, read by the device once the replay's work
  // before it is done; with `with_else`, the work between else_conditional() and
  // end_conditional() runs when it does not. Opened one at a time, never nested. Inside,
  // capture_tail() is the conditional work as a whole and set_capture_tail() does nothing
  // (its work is one sequence, after everything recorded before it).
  struct ConditionTest {
    const void* value;  // one element on this device
    int bytes;          // its size: 1, 2, 4 or 8
    bool floating;      // a float: -0.0 is zero
    bool when;          // holds when (value != 0) == when
    bool operator==(const ConditionTest&) const = default;
  };
  // Holds when one of its terms does; a term holds when each of its tests does (read in
  // order: a test after a failed one is not read). No terms: never.
  using Condition = std::vector<std::vector<ConditionTest>>;
  virtual bool capture_conditionals() const { return false; }
  virtual void begin_conditional(const Condition& /*condition*/, bool /*with_else*/) {}
  virtual void else_conditional() {}
  virtual void end_conditional() {}
  // While recording conditional work: `bytes` dense bytes into `dst` from `when_true` if
  // `condition` holds on the replay, else from `when_false` (an IfElse's result). By default
  // if/else conditional work around the two copies; a device may do it in one kernel (on an
  // H200 a conditional node costs 5-9 us of a replay, a kernel about 1).
  virtual void copy_chosen(const Condition& condition, void* dst, const void* when_true, const void* when_false,
                           size_t bytes) {
    begin_conditional(condition, /*with_else=*/true);
    copy_on_device(dst, when_true, bytes, default_stream());
    else_conditional();
    copy_on_device(dst, when_false, bytes, default_stream());
    end_conditional();
  }

  // Side work: device work a thunk enqueued on a stream of the device's own beside the
  // default stream (a collective: backends/gpu/side_work.h), which the default stream has not
  // waited for yet. The device keeps the side work's buffers alive until it is joined, so no
  // later allocation is given their memory. The executor joins it before a thunk reads one
  // of those buffers and at the end of every call; a device without side work says false.
  virtual bool side_work_pending() const { return false; }
  // Whether unjoined side work reads or writes `buffer`.
  virtual bool side_work_holds(const Buffer* /*buffer*/) const { return false; }
  // Makes the default stream wait for the side work that touches `buffer` (nullptr: all of
  // it) before the work enqueued next, and lets go of the buffers it kept.
  virtual void join_side_work(const Buffer* /*buffer*/) {}
};

// The process-wide host device: 64-byte aligned memory, synchronous stream.
Device& host_device();

// The host device's cache of freed blocks of 64 KiB and more (runtime/host_block_cache.h),
// 1 GiB at most by default: steady-state calls reuse their buffers instead of mapping fresh
// pages. set_limit(0) turns it off.
class HostBlockCache;
inline constexpr size_t kDefaultHostCacheBytes = size_t{1} << 30;
HostBlockCache& host_block_cache();

// A block of device memory; freed through its device when the last Tensor using it dies.
class Buffer {
 public:
  Buffer(Device& device, size_t bytes);
  // Memory another library owns (an array imported through DLPack), used in place. When the
  // last Tensor lets go of it, the device's queued work is waited for (it may still read or
  // write the memory) and `release` hands it back to its owner.
  Buffer(Device& device, void* data, size_t bytes, std::function<void()> release);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  Device& device() const { return *device_; }
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

  // References to this buffer that a write in place may disregard: while a call that updates a
  // shared variable in place runs, the function counts the variable's own reference here
  // (frontend/api/function.cpp). Any other holder (a tensor borrowed with get_value(borrow=true),
  // another variable, an argument) still makes ensure_output_inplace() take a fresh buffer.
  long owner_refs() const { return owner_refs_; }
  void set_owner_refs(long n) { owner_refs_ = n; }

  // Memory another library owns (the adopting constructor): tgc reads it and writes it only
  // as a result it was asked for, never in place of a new value (ensure_output_inplace).
  bool adopted() const { return static_cast<bool>(release_); }

 private:
  Device* device_;
  void* data_;
  size_t bytes_;
  long owner_refs_ = 0;
  std::function<void()> release_;  // set for adopted memory: deallocate() is not the owner's
};

TGC_API_END
}  // namespace tgc
