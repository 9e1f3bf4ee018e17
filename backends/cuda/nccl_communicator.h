// NcclCommunicator: a Communicator (runtime/comm/communicator.h) over one ncclComm_t on one
// CudaDevice. Collectives are enqueued on the given stream of the device and return at once,
// so they order with the device's kernels and can be captured into CUDA graphs (NCCL 2.9 and
// later record its collectives in a capture). A watchdog thread aborts the communicator when a
// collective has not completed on the device within the timeout (a peer that died) or NCCL
// reports an asynchronous error; the device's next synchronisation then raises the CommError.
// Made in two ways: every rank of one process at once (ncclCommInitAll), or one rank of a
// world of processes from a unique id, with a timeout.
#pragma once

#include <nccl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/cuda_device.h"
#include "runtime/comm/communicator.h"

namespace tgc::cuda {

// What a communicator waits at most for NCCL: for the other ranks to join while it is made
// (300 s unless Config comm_timeout says otherwise: nccl_comm_factory.h), and for a call on a
// non-blocking communicator to be enqueued.
using CommTimeout = std::chrono::milliseconds;
inline constexpr CommTimeout kDefaultCommTimeout = std::chrono::seconds(300);

class NcclCommunicator final : public Communicator {
 public:
  // Takes `comm` (ready: made and joined); `blocking` as it was made (a non-blocking one may
  // answer ncclInProgress to any call, which is then waited for up to `timeout`).
  NcclCommunicator(CudaDevice& device, ncclComm_t comm, int rank, int size, int local_rank, bool blocking,
                   CommTimeout timeout);
  // Stops the watchdog; ncclCommDestroy, or ncclCommAbort for a communicator that failed
  // (its peers may be gone); nothing when the watchdog aborted it already.
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string engine() const override { return "nccl"; }
  Device& device() const override { return device_; }

  // `stream` must be a stream of device() (a CudaStream). Count 0 enqueues nothing. Errors:
  // CommError naming the collective, the rank and NCCL's words (InternalError for a stream of
  // another device); after the watchdog aborted the communicator every call is a CommError
  // saying why. In-place: all_reduce and broadcast with send == recv; all_gather with
  // send == recv + rank() * count; reduce_scatter with recv == send + rank() * count.
  void all_reduce(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                  Stream& stream) override;
  void all_gather(const void* send, void* recv, size_t count, DType dtype, Stream& stream) override;
  void reduce_scatter(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                      Stream& stream) override;
  void broadcast(const void* send, void* recv, size_t count, DType dtype, int root, Stream& stream) override;

  // ncclGroupStart / ncclGroupEnd. NCCL's group is per thread, not per communicator: one
  // thread driving several devices brackets all their collectives in one group (a pair per
  // communicator nests and works too), else the first rank's call may wait for the others.
  void group_start() override;
  void group_end() override;

  ncclComm_t get() const { return comm_; }
  CudaDevice& cuda_device() const { return device_; }
  // Whether the watchdog aborted the communicator (why: the CommError every call now raises).
  bool aborted() const { return aborted_; }

  // Why the watchdog aborted a communicator, shared with the device's sync check (which may
  // run after the communicator is gone).
  struct AbortState {
    std::mutex mutex;
    std::string reason, where;
    bool reported = false;  // raised once by a synchronisation; calls raise it every time
  };

 private:
  cudaStream_t stream_of(Stream& stream, const char* collective) const;
  // Runs one NCCL call on comm_ under nccl_mutex_, or throws when the communicator was aborted.
  template <typename Call>
  ncclResult_t locked(const char* name, Call call);
  // Throws for a failed call; waits out ncclInProgress on a non-blocking communicator.
  void check(ncclResult_t result, const char* call);
  // After a collective was enqueued on `stream` (at the group's end inside a group): an event
  // the watchdog waits for, unless the stream is being captured (a replay is not watched).
  void enqueued(cudaStream_t stream, const char* collective);
  void watch_after(cudaStream_t stream, const char* collective);
  void watch();  // the watchdog thread
  // Aborts comm_ once, for `why` (which later calls, and the device's next synchronisation
  // unless `reported`, raise).
  void abort_comm(const std::string& why, bool reported);
  [[noreturn]] void raise_aborted(const char* call);

  CudaDevice& device_;
  ncclComm_t comm_;
  int rank_, size_, local_rank_;
  bool blocking_;
  CommTimeout timeout_;
  bool failed_ = false;

  // Every NCCL call on comm_ holds nccl_mutex_ (briefly: a non-blocking communicator's calls
  // return at once), so that the watchdog's ncclCommAbort, which frees comm_, never races one.
  // Only a call stuck inside NCCL keeps it: the watchdog then aborts after a second without
  // it, which is what ncclCommAbort from another thread is for (it unblocks that call).
  std::timed_mutex nccl_mutex_;
  std::atomic<bool> aborted_{false};
  std::shared_ptr<AbortState> abort_state_ = std::make_shared<AbortState>();
  struct Pending {
    UniqueEvent event;
    std::chrono::steady_clock::time_point since;
    const char* collective;
  };
  std::mutex watch_mutex_;  // pending_, spare_, stop_
  std::condition_variable watch_cv_;
  std::deque<Pending> pending_;
  std::vector<UniqueEvent> spare_;
  bool stop_ = false;
  int sync_check_ = -1;
  std::thread watchdog_;
};

// One communicator per device, rank i on devices[i] (ncclCommInitAll: no unique id, no
// network). The devices must be distinct. CommError with NCCL's words when it fails.
std::vector<std::unique_ptr<NcclCommunicator>> make_nccl_communicators(const std::vector<CudaDevice*>& devices,
                                                                       CommTimeout timeout = kDefaultCommTimeout);

// Rank `rank` of `size` ranks in different processes (or threads), all given the same `id`:
// made non-blocking and polled, so that a rank that never joins gives a CommError after
// `timeout` naming the rank, the world and the timeout, instead of a hang (the half-made
// communicator is aborted).
std::unique_ptr<NcclCommunicator> make_nccl_communicator(CudaDevice& device, int rank, int size, int local_rank,
                                                         const ncclUniqueId& id,
                                                         CommTimeout timeout = kDefaultCommTimeout);

// "300 s", "1.5 s": how the messages say a timeout.
std::string timeout_text(CommTimeout timeout);

}  // namespace tgc::cuda
