// What every GPU device has alike: its error word (see gpu_device.h).
#include "backends/gpu/gpu_device.h"

namespace tgc::gpu {

void* GpuDevice::error_word() {
  std::lock_guard<std::mutex> lock(error_word_mutex_);
  if (!error_word_) {
    // Never released: the device, and every kernel that may flag into it, live as long as it.
    void* w = allocate(sizeof(int), default_stream());
    fill_zero(w, sizeof(int));
    error_word_ = w;
  }
  return error_word_;
}

}  // namespace tgc::gpu
