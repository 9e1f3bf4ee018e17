// The ranks of a function over several devices of this process: their slots and group, their
// threads, the commit vote and the shared variables' copies (see device_ranks.h).
#include "frontend/api/device_ranks.h"

#include <fmt/format.h>

#include <shared_mutex>
#include <typeinfo>

#include "frontend/api/backend_choice.h"

namespace tgc {

std::vector<RankSlot> device_rank_slots(const std::vector<std::string>& devices, const std::string& group_name,
                                        const std::string& fn) {
  std::vector<Device*> peers;
  for (const std::string& name : devices) {
    Device& d = device_by_name(name);
    for (size_t k = 0; k < peers.size(); ++k)
      if (peers[k] == &d)
        throw ConfigError(fmt::format("data_parallel.devices names {} twice ('{}' and '{}')", d.name(), devices[k], name),
                          fn, "give each device once: one rank runs on each");
    peers.push_back(&d);
  }
  if (peers.size() > 1) {
    for (Device* d : peers)
      if (d->kind() != peers[0]->kind())
        throw ConfigError(fmt::format("data_parallel.devices mixes {} and {}", peers[0]->name(), d->name()), fn,
                          "give devices of one kind: their collectives go through one engine");
    if (!has_comm_factory(peers[0]->kind()))
      throw CommError(fmt::format("{} devices of this process have no engine for their collectives", device_kind_name(peers[0]->kind())),
                      fn,
                      peers[0]->kind() == DeviceKind::Cuda
                          ? "several CUDA devices of one process talk through NCCL, which was not found (`tgc devices` says why)"
                          : "several devices of one process are CUDA devices with NCCL; start one process per rank otherwise "
                            "(tgc launch, mpirun) and give data_parallel.group instead");
  }
  std::vector<RankSlot> slots;
  const int n = static_cast<int>(peers.size());
  for (int r = 0; r < n; ++r)
    slots.push_back({devices[r], std::make_shared<CommGroup>(r, n, group_name, n > 1 ? peers : std::vector<Device*>{})});
  return slots;
}

RankThreads::RankThreads(int ranks) : failures_(static_cast<size_t>(ranks)) {
  for (int r = 1; r < ranks; ++r) threads_.emplace_back([this, r] { loop(r); });
}

RankThreads::~RankThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

std::vector<std::exception_ptr> RankThreads::run(const std::function<void(int)>& fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::fill(failures_.begin(), failures_.end(), nullptr);
    job_ = &fn;
    running_ = static_cast<int>(threads_.size());
    ++generation_;
  }
  start_.notify_all();
  std::exception_ptr mine;
  try {
    fn(0);
  } catch (...) {
    mine = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return running_ == 0; });
  failures_[0] = mine;
  job_ = nullptr;
  return failures_;
}

void RankThreads::loop(int rank) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    start_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    const std::function<void(int)>* job = job_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      (*job)(rank);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    failures_[static_cast<size_t>(rank)] = failure;
    if (--running_ == 0) done_.notify_all();
  }
}

void CommitVote::begin_call() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::fill(voted_.begin(), voted_.end(), false);
  arrived_ = 0;
  all_ok_ = true;
}

bool CommitVote::voted(int rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  return voted_[static_cast<size_t>(rank)];
}

bool CommitVote::vote(int rank, bool ok) {
  std::unique_lock<std::mutex> lock(mutex_);
  TGC_INTERNAL_CHECK(!voted_[static_cast<size_t>(rank)], "rank " + std::to_string(rank) + " voted twice in one call");
  voted_[static_cast<size_t>(rank)] = true;
  all_ok_ = all_ok_ && ok;
  const uint64_t round = round_;
  if (++arrived_ == ranks_) {
    result_ = all_ok_;
    ++round_;
    all_in_.notify_all();
    return result_;
  }
  all_in_.wait(lock, [&] { return round_ != round; });
  return result_;
}

std::exception_ptr first_root_failure(const std::vector<std::exception_ptr>& failures) {
  std::exception_ptr echo;
  for (const std::exception_ptr& f : failures) {
    if (!f) continue;
    try {
      std::rethrow_exception(f);
    } catch (const PeerRankFailed&) {
      if (!echo) echo = f;
    } catch (...) {
      return f;
    }
  }
  return echo;
}

Tensor rank_part_of(const Tensor& whole, int axis, int rank, int ranks, const std::string& what, const std::string& fn) {
  const int64_t n = whole.shape()[static_cast<size_t>(axis)];
  if (n % ranks != 0)
    throw ShapeError(fmt::format("{} has {} elements along its split axis {}, which do not divide evenly among {} ranks",
                                 what, n, axis, ranks),
                     fn, "give a batch whose size is a multiple of the number of ranks");
  Shape shape = whole.shape();
  shape[static_cast<size_t>(axis)] = n / ranks;
  return whole.view(shape, whole.strides(), whole.offset() + rank * shape[static_cast<size_t>(axis)] * whole.strides()[static_cast<size_t>(axis)]);
}

void SharedCopies::add(const std::shared_ptr<SharedValue>& user, int split_axis, int ranks, std::vector<Copy> copies) {
  Entry e;
  e.user = user;
  e.lock = &lock_of(*user);
  e.fresh = true;
  e.split_axis = split_axis;
  e.ranks = ranks;
  e.copies = std::move(copies);
  entries_.push_back(std::move(e));
}

void SharedCopies::refresh() {
  for (Entry& e : entries_) {
    const uint64_t version = e.lock->version.load(std::memory_order_acquire);
    if (!e.fresh && version == e.seen) continue;
    Tensor value;
    {
      std::shared_lock<std::shared_mutex> read(e.lock->mutex);
      value = e.user->current();
    }
    for (Copy& c : e.copies) {
      const Tensor part = e.split_axis < 0 ? value
                                           : rank_part_of(value, e.split_axis, c.rank, e.ranks,
                                                          "shared variable '" + e.user->name() + "'", "data_parallel.devices");
      // A copy of its own, never the user's buffer: the rank updates it in place.
      Tensor mine = part.to(*c.device);
      if (mine.shares_buffer(value)) mine = mine.copy();
      c.value->set_value(mine, /*borrow=*/true);
    }
    e.seen = version;
    e.fresh = false;
  }
}

void SharedCopies::mark_current() {
  for (Entry& e : entries_) e.seen = e.lock->version.load(std::memory_order_acquire);
}

}  // namespace tgc
