// The lock that keeps the work of several threads on one GPU device from interleaving: a
// device's work goes to its one stream, where a CUDA graph being recorded would take in any
// other thread's work, and thunks keep per-device state (BLAS plans, launch labels, the
// recording itself). Calls of functions on the device hold it while they enqueue their work,
// and so do shared-variable copies to and from the device (docs/api.md#threads).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "runtime/device.h"
#include "runtime/tensor.h"

namespace tgc {

// How many device locks this thread holds: nonzero inside a call on a device, whose lock
// covers the work the call's thread does there (DeviceUseLock takes no other).
inline thread_local int t_device_locks_held = 0;

// A lock taken in the order it was asked for. A plain mutex lets the thread that just released
// it take it again at once: a thread calling functions in a loop on a device kept eight other
// threads' calls to about 115 a second between them (benchmarks/soak on an H100, 10,000 calls
// a second for the looping thread). Tickets hand the device to the callers in turn.
class DeviceWorkMutex {
 public:
  void lock() {
    std::unique_lock<std::mutex> l(mutex_);
    const uint64_t ticket = next_++;
    turn_.wait(l, [&] { return serving_ == ticket; });
    ++t_device_locks_held;
  }
  void unlock() {
    --t_device_locks_held;
    {
      std::lock_guard<std::mutex> l(mutex_);
      ++serving_;
    }
    turn_.notify_all();
  }
  // Threads holding or waiting for the lock (a snapshot).
  uint64_t holders_and_waiters() {
    std::lock_guard<std::mutex> l(mutex_);
    return next_ - serving_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable turn_;
  uint64_t next_ = 0, serving_ = 0;
};

// The device's lock, made on first use and kept for the process (devices are). Never held
// while another lock is taken: a leaf in the order of docs/api.md#threads.
DeviceWorkMutex& device_work_mutex(const Device& device);

// The device's lock for work a thread does on a device outside any call — a device Tensor's
// copies and waits (Tensor::to, copy, astype, sync) — so that it never lands in another
// thread's call, a CUDA graph being recorded above all. Takes nothing for the host, nor when
// this thread holds a device lock already (it is inside a call, whose lock covers its work,
// and taking a second would break the order of docs/api.md#threads).
class DeviceUseLock {
 public:
  explicit DeviceUseLock(const Device& device) {
    if (device.kind() == DeviceKind::Host || t_device_locks_held > 0) return;
    mutex_ = &device_work_mutex(device);
    mutex_->lock();
  }
  ~DeviceUseLock() {
    if (mutex_) mutex_->unlock();
  }
  DeviceUseLock(const DeviceUseLock&) = delete;
  DeviceUseLock& operator=(const DeviceUseLock&) = delete;

 private:
  DeviceWorkMutex* mutex_ = nullptr;
};

// t.to(device) with the locks of the devices involved held in turn (never two at once); a
// copy on the host takes none.
Tensor copy_to_device_locked(const Tensor& t, Device& device);

}  // namespace tgc
