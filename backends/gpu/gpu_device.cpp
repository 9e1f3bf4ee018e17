// What every GPU device has alike: its error word and its side work (see gpu_device.h).
#include "backends/gpu/gpu_device.h"

#include <algorithm>
#include <cstddef>
#include <iterator>

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
  wait_for(*side, *mark(default_stream()));
  work(*side);
  SidePiece piece{mark(*side), {}};
  for (Tensor& t : operands)
    if (t.defined()) piece.operands.push_back(std::move(t));
  std::lock_guard<std::mutex> lock(side_mutex_);
  side_pieces_.push_back(std::move(piece));
  side_pending_.store(true, std::memory_order_release);
}

namespace {

bool piece_holds(const std::vector<Tensor>& operands, const Buffer* buffer) {
  return std::any_of(operands.begin(), operands.end(), [&](const Tensor& t) { return t.buffer().get() == buffer; });
}

}  // namespace

bool GpuDevice::side_work_holds(const Buffer* buffer) const {
  std::lock_guard<std::mutex> lock(side_mutex_);
  return std::any_of(side_pieces_.begin(), side_pieces_.end(),
                     [&](const SidePiece& p) { return piece_holds(p.operands, buffer); });
}

void GpuDevice::join_side_work(const Buffer* buffer) {
  std::vector<SidePiece> released;  // freed after the lock is let go: freeing takes the allocator's
  std::lock_guard<std::mutex> lock(side_mutex_);
  size_t last = side_pieces_.size();  // the newest piece to wait for; size(): none
  for (size_t i = side_pieces_.size(); i-- > 0;)
    if (!buffer || piece_holds(side_pieces_[i].operands, buffer)) {
      last = i;
      break;
    }
  if (last == side_pieces_.size()) return;
  // The wait first: the buffers are released (and may serve the default stream's next
  // allocation) only once the default stream waits for the work that uses them.
  wait_for(default_stream(), *side_pieces_[last].done);
  released.assign(std::make_move_iterator(side_pieces_.begin()),
                  std::make_move_iterator(side_pieces_.begin() + static_cast<std::ptrdiff_t>(last) + 1));
  side_pieces_.erase(side_pieces_.begin(), side_pieces_.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  side_pending_.store(!side_pieces_.empty(), std::memory_order_release);
}

void GpuDevice::drop_side_work() noexcept {
  std::vector<SidePiece> released;
  std::lock_guard<std::mutex> lock(side_mutex_);
  released.swap(side_pieces_);
  side_pending_.store(false, std::memory_order_release);
}

GridStride grid_stride(const cfam::DeviceLimits& limits, int64_t n) {
  GridStride g;
  g.threads = std::min(256, limits.max_threads_per_block);
  const int64_t cap = std::max<int64_t>(1, int64_t{limits.multiprocessors} * 32);
  g.blocks = std::clamp<int64_t>((n + g.threads - 1) / g.threads, 1, cap);
  return g;
}

}  // namespace tgc::gpu
