// ThreadWorld: N ranks of one process, one thread each, whose host collectives meet in shared
// memory — so collectives and data-parallel functions are tested in-process, exactly and
// fast, beside the real engines' tests under mpirun. Each rank gets a CommGroup whose host
// communicator is this world's (CommGroup::use_communicator); run(fn) calls fn(rank, group)
// on every rank's thread and rethrows the first failure.
#pragma once

#include <barrier>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/comm/world.h"
#include "runtime/error.h"

namespace tgc::test {

class ThreadWorld {
 public:
  explicit ThreadWorld(int size) : size_(size), barrier_(size), sends_(size) {
    for (int r = 0; r < size; ++r) {
      groups_.push_back(std::make_shared<CommGroup>(r, size, "threads"));
      groups_.back()->use_communicator(host_device(), std::make_shared<Rank>(*this, r));
    }
  }

  int size() const { return size_; }
  // A rank that fails alone: `rank`'s k-th all_reduce from now (0: the next) throws a CommError,
  // and the other ranks' k-th returns their own values without waiting for it, as if they had
  // finished their part before the failure.
  void fail_all_reduce(int rank, int k) {
    std::lock_guard<std::mutex> lock(fail_mutex_);
    fail_rank_ = rank;
    fail_at_.assign(static_cast<size_t>(size_), -1);
    for (int r = 0; r < size_; ++r) fail_at_[static_cast<size_t>(r)] = k;
  }
  const std::shared_ptr<CommGroup>& group(int rank) const { return groups_[rank]; }

  void run(const std::function<void(int rank, const std::shared_ptr<CommGroup>& group)>& fn) {
    std::vector<std::thread> threads;
    std::exception_ptr failure;
    std::mutex m;
    for (int r = 0; r < size_; ++r)
      threads.emplace_back([&, r] {
        try {
          fn(r, groups_[r]);
        } catch (...) {
          std::lock_guard<std::mutex> lock(m);
          if (!failure) failure = std::current_exception();
        }
      });
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
  }

 private:
  // One rank's communicator: publish the send pointer, wait for every rank, read them all
  // into recv, wait again so no rank's send buffer goes away while another reads it.
  class Rank : public Communicator {
   public:
    Rank(ThreadWorld& w, int rank) : w_(w), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return w_.size_; }
    int local_rank() const override { return rank_; }
    std::string engine() const override { return "threads"; }
    Device& device() const override { return host_device(); }

    void all_reduce(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op, Stream&) override {
      if (w_.failing_now(rank_)) {
        if (recv != send && count) std::memmove(recv, send, count * dtype_size(dtype));
        return;
      }
      exchange(send, [&] { reduce_blocks(recv, count, dtype, op, 0); });
    }
    void all_gather(const void* send, void* recv, size_t count, DType dtype, Stream&) override {
      const size_t bytes = count * dtype_size(dtype);
      exchange(send, [&] {
        for (int r = 0; r < w_.size_; ++r)
          if (bytes) std::memcpy(static_cast<char*>(recv) + r * bytes, w_.sends_[r], bytes);
      });
    }
    void reduce_scatter(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op, Stream&) override {
      exchange(send, [&] { reduce_blocks(recv, count, dtype, op, static_cast<size_t>(rank_) * count); });
    }
    void broadcast(const void* send, void* recv, size_t count, DType dtype, int root, Stream&) override {
      exchange(send, [&] {
        if (rank_ != root && count) std::memcpy(recv, w_.sends_[root], count * dtype_size(dtype));
        if (rank_ == root && recv != send && count) std::memmove(recv, send, count * dtype_size(dtype));
      });
    }

   private:
    template <typename Body>
    void exchange(const void* send, Body&& body) {
      w_.sends_[rank_] = send;
      w_.barrier_.arrive_and_wait();
      body();
      w_.barrier_.arrive_and_wait();
    }

    // recv[i] = op over ranks of send_r[offset + i], in rank order (as a ring would not, but
    // the tests compare with tolerance where order matters).
    void reduce_blocks(void* recv, size_t count, DType dtype, CollectiveReduce op, size_t offset) {
      switch (dtype) {
        case DType::Float32: return reduce_typed<float>(recv, count, op, offset);
        case DType::Float64: return reduce_typed<double>(recv, count, op, offset);
        case DType::Int32: return reduce_typed<int32_t>(recv, count, op, offset);
        case DType::Int64: return reduce_typed<int64_t>(recv, count, op, offset);
        default: throw CommError("the test world reduces float32, float64, int32 and int64 only");
      }
    }
    template <typename T>
    void reduce_typed(void* recv, size_t count, CollectiveReduce op, size_t offset) {
      std::vector<T> out(count);
      for (size_t i = 0; i < count; ++i) {
        T acc = static_cast<const T*>(w_.sends_[0])[offset + i];
        for (int r = 1; r < w_.size_; ++r) {
          const T v = static_cast<const T*>(w_.sends_[r])[offset + i];
          acc = op == CollectiveReduce::Sum ? acc + v : op == CollectiveReduce::Max ? std::max(acc, v) : std::min(acc, v);
        }
        out[i] = acc;
      }
      // Every rank has read every send (the recv of one rank may be its own send: in place).
      w_.barrier_.arrive_and_wait();
      if (count) std::memcpy(recv, out.data(), count * sizeof(T));
    }

    ThreadWorld& w_;
    int rank_;
  };

  // Whether this all_reduce of `rank` is the one fail_all_reduce chose (the failing rank throws).
  bool failing_now(int rank) {
    std::lock_guard<std::mutex> lock(fail_mutex_);
    if (fail_at_.empty() || fail_at_[static_cast<size_t>(rank)] < 0) return false;
    if (fail_at_[static_cast<size_t>(rank)]-- > 0) return false;
    if (rank == fail_rank_) throw CommError("rank " + std::to_string(rank) + " of the test world failed", "ThreadWorld");
    return true;
  }

  int size_;
  std::mutex fail_mutex_;
  int fail_rank_ = -1;
  std::vector<int> fail_at_;  // per rank, all_reduces to go before the failure; -1: none
  std::barrier<> barrier_;
  std::vector<const void*> sends_;
  std::vector<std::shared_ptr<CommGroup>> groups_;
};

}  // namespace tgc::test
