// Several devices of one process driven by one function (FunctionOptions::data_parallel.devices,
// docs/distributed.md#several-devices-from-one-call). function() makes one rank's program per
// device; this file holds what the ranks share across calls: the threads they run on, the vote
// that lets a call's updates through only when every rank's call succeeded, and the copies of
// the shared variables that the ranks keep on their own devices.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <tgc/collective.h>

#include "ops/core/shared_value_lock.h"
#include "ops/core/variable.h"
#include "runtime/comm/world.h"
#include "runtime/device.h"
#include "runtime/error.h"

namespace tgc {

// One rank of a function over several devices of this process: the device its program runs
// on (a config device name) and its group (rank, size and engine).
struct RankSlot {
  std::string device;
  CommGroupPtr group;
};

// The slots of data_parallel.devices: one in-process group over those devices (its engine
// made for all of them at once, NCCL's ncclCommInitAll), named `group_name`. ConfigError for
// a device that is not here or named twice; CommError when several devices of their kind have
// no in-process engine (the host, OpenCL; CUDA without NCCL).
std::vector<RankSlot> device_rank_slots(const std::vector<std::string>& devices, const std::string& group_name,
                                        const std::string& fn);

// One thread per rank past 0, kept while the function lives. run() calls fn(r) for every rank
// at once, rank 0 on the calling thread, and returns each rank's failure (null where fn
// returned). One run at a time.
class RankThreads {
 public:
  explicit RankThreads(int ranks);
  ~RankThreads();
  RankThreads(const RankThreads&) = delete;
  RankThreads& operator=(const RankThreads&) = delete;

  int ranks() const { return static_cast<int>(threads_.size()) + 1; }
  std::vector<std::exception_ptr> run(const std::function<void(int rank)>& fn);

 private:
  void loop(int rank);

  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(int)>* job_ = nullptr;
  uint64_t generation_ = 0;
  int running_ = 0;
  bool stop_ = false;
  std::vector<std::exception_ptr> failures_;
  std::vector<std::thread> threads_;
};

// A call's all-or-nothing rule across ranks: each rank votes once per call, just before it
// would apply its updates (ok) or when it fails before that (not ok); vote() returns, when
// every rank has voted, whether all were ok. A rank that loses the vote applies nothing, so
// the ranks' copies of the shared variables stay equal.
class CommitVote {
 public:
  explicit CommitVote(int ranks) : ranks_(ranks), voted_(static_cast<size_t>(ranks), false) {}
  void begin_call();  // before the ranks start
  bool vote(int rank, bool ok);
  bool voted(int rank);

 private:
  std::mutex mutex_;
  std::condition_variable all_in_;
  int ranks_;
  int arrived_ = 0;
  bool all_ok_ = true, result_ = true;
  uint64_t round_ = 0;
  std::vector<bool> voted_;
};

// What a rank whose own call succeeded throws when another rank's failed: the call changed no
// variable. The caller reports the other rank's error instead (first_root_failure).
class PeerRankFailed : public CommError {
  using CommError::CommError;
};

// The failure to report for a call: the first rank's, in rank order, that is not a
// PeerRankFailed (the cause rather than its echo); null when every rank returned.
std::exception_ptr first_root_failure(const std::vector<std::exception_ptr>& failures);

// A shared variable some ranks read from copies of their own: rank 0 reads and updates the
// user's variable itself unless it is split (then rank 0 reads its part too).
class SharedCopies {
 public:
  struct Copy {
    std::shared_ptr<SharedValue> value;  // the rank's
    Device* device = nullptr;            // where it lives: the rank's device
    int rank = 0;
  };
  // `user`'s copies; `split_axis` >= 0: each copy holds its rank's part of `ranks` along it.
  void add(const std::shared_ptr<SharedValue>& user, int split_axis, int ranks, std::vector<Copy> copies);
  // Before a call (and once when made): the copies of every variable written since the copies
  // last followed it (set_value, another function's update) take its value, each on its device.
  void refresh();
  // After a call that succeeded on every rank: the copies followed rank 0's updates themselves.
  void mark_current();

 private:
  struct Entry {
    std::shared_ptr<SharedValue> user;
    SharedValueLock* lock = nullptr;
    uint64_t seen = 0;
    bool fresh = false;  // never copied yet
    int split_axis = -1, ranks = 1;
    std::vector<Copy> copies;
  };
  std::vector<Entry> entries_;
};

// Rank `rank`'s part of `whole` along `axis` among `ranks`: equal parts (a view). ShapeError
// naming `what` when the axis does not divide evenly.
Tensor rank_part_of(const Tensor& whole, int axis, int rank, int ranks, const std::string& what, const std::string& fn);

}  // namespace tgc
