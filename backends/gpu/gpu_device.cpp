// What every GPU device has alike: its error word and its side work (see gpu_device.h).
#include "backends/gpu/gpu_device.h"

#include <algorithm>

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

void GpuDevice::run_beside(std::vector<Tensor> operands, const std::function<void(Stream&)>& work) {
  Stream* side = recording() ? nullptr : side_stream();
  if (!side) {
    work(default_stream());
    return;
  }
  stream_wait(*side, default_stream());
  work(*side);
  std::lock_guard<std::mutex> lock(side_mutex_);
  for (Tensor& t : operands)
    if (t.defined()) side_operands_.push_back(std::move(t));
  side_pending_.store(true, std::memory_order_release);
}

bool GpuDevice::side_work_holds(const Buffer* buffer) const {
  std::lock_guard<std::mutex> lock(side_mutex_);
  return std::any_of(side_operands_.begin(), side_operands_.end(),
                     [&](const Tensor& t) { return t.buffer().get() == buffer; });
}

void GpuDevice::join_side_work(const Buffer* buffer) {
  std::vector<Tensor> released;  // freed after the lock is let go: freeing takes the allocator's
  std::lock_guard<std::mutex> lock(side_mutex_);
  if (!side_pending_.load(std::memory_order_relaxed)) return;
  if (buffer && std::none_of(side_operands_.begin(), side_operands_.end(),
                             [&](const Tensor& t) { return t.buffer().get() == buffer; }))
    return;
  // The wait first: the buffers are released (and may serve the default stream's next
  // allocation) only once the default stream waits for the work that uses them.
  stream_wait(default_stream(), *side_stream());
  released.swap(side_operands_);
  side_pending_.store(false, std::memory_order_release);
}

void GpuDevice::drop_side_work() noexcept {
  std::vector<Tensor> released;
  std::lock_guard<std::mutex> lock(side_mutex_);
  released.swap(side_operands_);
  side_pending_.store(false, std::memory_order_release);
}

}  // namespace tgc::gpu
