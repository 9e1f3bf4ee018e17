// The lock that keeps the work of several threads on one GPU device from interleaving: a
// device's work goes to its one stream, where a CUDA graph being recorded would take in any
// other thread's work, and thunks keep per-device state (BLAS plans, launch labels, the
// recording itself). Calls of functions on the device hold it while they enqueue their work,
// and so do shared-variable copies to and from the device (docs/api.md#threads).
#pragma once

#include <mutex>

#include "runtime/device.h"
#include "runtime/tensor.h"

namespace tgc {

// The device's lock, made on first use and kept for the process (devices are). Never held
// while another lock is taken: a leaf in the order of docs/api.md#threads.
std::mutex& device_work_mutex(const Device& device);

// t.to(device) with the locks of the devices involved held in turn (never two at once); a
// copy on the host takes none.
Tensor copy_to_device_locked(const Tensor& t, Device& device);

}  // namespace tgc
