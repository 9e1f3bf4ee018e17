// NCCL communicators of CUDA devices: making them (all at once in one process, or one rank
// from a unique id with a timeout) and their collectives on a device stream.
#include "backends/cuda/nccl_communicator.h"

#include <fmt/core.h>

#include <cstdlib>
#include <thread>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/nccl_library.h"
#include "backends/cuda/nccl_types.h"
#include "runtime/error.h"

namespace tgc::cuda {

std::string timeout_text(CommTimeout timeout) {
  const long long ms = timeout.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return fmt::format("{:g} s", static_cast<double>(ms) / 1000.0);
}

namespace {

using Clock = std::chrono::steady_clock;

// A non-blocking communicator answers ncclInProgress while it is being made or while a call's
// work is handed to NCCL's own thread; its state (`query`: ncclCommGetAsyncError) is polled
// until it settles. Returns the last state: still ncclInProgress when `deadline` passed first.
// The sleep grows to 10 ms so that a long wait for a slow rank costs no CPU while a quick one
// is seen at once.
template <typename Query>
ncclResult_t settle(Query query, Clock::time_point deadline) {
  auto nap = std::chrono::microseconds(20);
  for (;;) {
    ncclResult_t state = ncclSuccess;
    const ncclResult_t r = query(&state);
    if (r != ncclSuccess) return r;
    if (state != ncclInProgress || Clock::now() >= deadline) return state;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(10000));
  }
}

std::string where_of(int rank, int size, const CudaDevice& device) {
  return fmt::format("rank {} of {} on {}", rank, size, device.name());
}

// NCCL's group is per thread: the collectives of communicators issued inside one group are
// launched at its end, so their events are recorded then.
struct GroupCall {
  NcclCommunicator* comm;
  cudaStream_t stream;
  const char* collective;
};
thread_local int t_group_depth = 0;
thread_local std::vector<GroupCall> t_group_calls;

constexpr auto kWatchPeriod = std::chrono::milliseconds(100);

// Set by an exit handler registered before the first communicator is made, so it runs before
// the static objects holding communicators (the world group) are destroyed: NCCL may already be
// tearing itself down then, and the communicators are left to the end of the process.
std::atomic<bool> g_exiting{false};
void note_exit_once() {
  static std::once_flag once;
  std::call_once(once, [] { std::atexit([] { g_exiting = true; }); });
}

}  // namespace

NcclCommunicator::NcclCommunicator(CudaDevice& device, ncclComm_t comm, int rank, int size, int local_rank,
                                   bool blocking, CommTimeout timeout)
    : device_(device), comm_(comm), rank_(rank), size_(size), local_rank_(local_rank), blocking_(blocking),
      timeout_(timeout) {
  note_exit_once();
  abort_state_->where = where_of(rank, size, device);
  // The device's synchronisation is where a collective the watchdog aborted shows: its kernels
  // end without a CUDA error. The check holds the shared state, not the communicator.
  sync_check_ = device_.add_sync_check([state = abort_state_] {
    std::lock_guard lock(state->mutex);
    if (state->reason.empty() || state->reported) return;
    state->reported = true;
    throw CommError(state->reason, state->where,
                    "another rank failed, left or did not call the same collective; the communicator was aborted "
                    "and its collectives fail from now on (Config comm_timeout sets the wait)");
  });
  watchdog_ = std::thread([this] {
    try {
      watch();
    } catch (...) {
      // A watchdog that cannot run (the CUDA runtime unloading at exit) leaves the
      // communicator unwatched; an exception must not leave the thread (std::terminate).
    }
  });
}

NcclCommunicator::~NcclCommunicator() {
  {
    std::lock_guard lock(watch_mutex_);
    stop_ = true;
  }
  watch_cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
  device_.remove_sync_check(sync_check_);
  if (!comm_ || aborted_ || g_exiting) return;  // aborted: NCCL freed it
  const NcclApi& api = nccl_api();  // loaded, or this communicator could not exist
  // A failed communicator may have work waiting for peers that are gone: abort stops it,
  // where destroy would wait for it. Both results are ignored (a destructor cannot report).
  if (failed_)
    api.CommAbort(comm_);
  else
    api.CommDestroy(comm_);
}

cudaStream_t NcclCommunicator::stream_of(Stream& stream, const char* collective) const {
  auto* s = dynamic_cast<CudaStream*>(&stream);
  TGC_INTERNAL_CHECK(s && &s->device() == &device_,
                     std::string(collective) + " on " + device_.name() + " was given a stream of another device");
  return s->get();
}

void NcclCommunicator::raise_aborted(const char* call) {
  std::string reason;
  {
    std::lock_guard lock(abort_state_->mutex);
    reason = abort_state_->reason;
  }
  throw CommError(fmt::format("{} on an aborted NCCL communicator ({})", call, reason), abort_state_->where,
                  "the communicator cannot be used again: make a new group (or restart the ranks)");
}

template <typename Call>
ncclResult_t NcclCommunicator::locked(const char* name, Call call) {
  std::lock_guard lock(nccl_mutex_);
  if (aborted_) raise_aborted(name);
  return call();
}

void NcclCommunicator::check(ncclResult_t result, const char* call) {
  if (result == ncclSuccess && blocking_) return;
  if ((result == ncclSuccess || result == ncclInProgress) && !blocking_) {
    // Before the next call the communicator must have settled (NCCL's rule for non-blocking
    // communicators): the work is then enqueued on the stream, as with a blocking one.
    const NcclApi& api = nccl_api();
    result = settle(
        [&](ncclResult_t* state) {
          return locked("ncclCommGetAsyncError", [&] { return api.CommGetAsyncError(comm_, state); });
        },
        Clock::now() + timeout_);
    if (result == ncclSuccess) return;
    if (result == ncclInProgress) {
      // NCCL's thread is still waiting for a peer (connections are made on first use): the
      // communicator cannot take another call, so it is aborted, as the watchdog would.
      const std::string why = fmt::format("NCCL call {} did not complete within {}", call, timeout_text(timeout_));
      abort_comm(why, /*reported=*/true);
      throw CommError(why, where_of(rank_, size_, device_),
                      "another rank failed or did not call the same collective; the communicator was aborted "
                      "(Config comm_timeout sets the wait)");
    }
  }
  failed_ = true;
  if (aborted_) raise_aborted(call);  // the call failed because the watchdog aborted it
  throw CommError(fmt::format("NCCL call {} failed: {}", call, nccl_error_text(result, comm_)),
                  where_of(rank_, size_, device_),
                  "every rank must call the same collectives in the same order with the same count and dtype; "
                  "run with NCCL_DEBUG=WARN (or INFO) for NCCL's own account");
}

void NcclCommunicator::enqueued(cudaStream_t stream, const char* collective) {
  if (t_group_depth > 0)
    t_group_calls.push_back({this, stream, collective});
  else
    watch_after(stream, collective);
}

void NcclCommunicator::watch_after(cudaStream_t stream, const char* collective) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone) return;
  std::lock_guard lock(watch_mutex_);
  UniqueEvent event;
  if (!spare_.empty()) {
    event = std::move(spare_.back());
    spare_.pop_back();
  } else {
    event = make_event(false);
  }
  // A failed record leaves the collective unwatched; the stream reports a CUDA error itself.
  if (cudaEventRecord(event.get(), stream) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  pending_.push_back({std::move(event), Clock::now(), collective});
}

// Every kWatchPeriod: the events of completed collectives are taken off; the oldest one still
// pending past the timeout, or an asynchronous error NCCL reports (a peer's connection lost),
// aborts the communicator, which ends NCCL's kernels so that the stream moves on.
void NcclCommunicator::watch() {
  const NcclApi& api = nccl_api();
  DeviceGuard guard(device_.ordinal());  // event queries act on the device's context
  std::unique_lock lock(watch_mutex_);
  while (!stop_) {
    watch_cv_.wait_for(lock, kWatchPeriod);
    if (stop_ || aborted_) break;
    while (!pending_.empty()) {
      const cudaError_t done = cudaEventQuery(pending_.front().event.get());
      if (done == cudaErrorNotReady) break;
      if (done != cudaSuccess) cudaGetLastError();  // a device fault: the stream's sync reports it
      spare_.push_back(std::move(pending_.front().event));
      pending_.pop_front();
    }
    std::string why;
    if (!pending_.empty() && Clock::now() - pending_.front().since > timeout_) {
      why = fmt::format("NCCL {} did not complete on the device within {}", pending_.front().collective,
                        timeout_text(timeout_));
    } else if (nccl_mutex_.try_lock()) {
      ncclResult_t state = ncclSuccess;
      if (api.CommGetAsyncError(comm_, &state) == ncclSuccess && state != ncclSuccess && state != ncclInProgress)
        why = "NCCL reported an asynchronous error: " + nccl_error_text(state, comm_);
      nccl_mutex_.unlock();
    }
    if (why.empty()) continue;
    lock.unlock();
    abort_comm(why, /*reported=*/false);  // the device's next synchronisation raises it
    return;
  }
}

void NcclCommunicator::abort_comm(const std::string& why, bool reported) {
  {
    std::lock_guard state(abort_state_->mutex);
    if (abort_state_->reason.empty()) {
      abort_state_->reason = why;
      abort_state_->reported = reported;
    }
  }
  // A call in flight holds nccl_mutex_ briefly; one stuck inside NCCL is what the abort frees.
  const bool got = nccl_mutex_.try_lock_for(std::chrono::seconds(1));
  if (!aborted_.exchange(true)) nccl_api().CommAbort(comm_);
  if (got) nccl_mutex_.unlock();
}

void NcclCommunicator::all_reduce(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                                  Stream& stream) {
  const NcclReduction red = nccl_reduction(dtype, op, "all_reduce");
  const cudaStream_t s = stream_of(stream, "all_reduce");
  if (count == 0) return;  // every rank has the same count: none of them calls NCCL
  const NcclApi& api = nccl_api();
  check(locked("all_reduce", [&] { return api.AllReduce(send, recv, count, red.type, red.op, comm_, s); }),
        "ncclAllReduce");
  enqueued(s, "all_reduce");
}

void NcclCommunicator::all_gather(const void* send, void* recv, size_t count, DType dtype, Stream& stream) {
  const NcclElements e = nccl_moved_elements(dtype, count);
  const cudaStream_t s = stream_of(stream, "all_gather");
  if (count == 0) return;
  // The per-rank block is e.count elements of e.type: bytes for a dtype NCCL lacks, so rank
  // r's block still starts at r * count elements of `dtype`.
  const NcclApi& api = nccl_api();
  check(locked("all_gather", [&] { return api.AllGather(send, recv, e.count, e.type, comm_, s); }), "ncclAllGather");
  enqueued(s, "all_gather");
}

void NcclCommunicator::reduce_scatter(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                                      Stream& stream) {
  const NcclReduction red = nccl_reduction(dtype, op, "reduce_scatter");
  const cudaStream_t s = stream_of(stream, "reduce_scatter");
  if (count == 0) return;
  const NcclApi& api = nccl_api();
  check(locked("reduce_scatter", [&] { return api.ReduceScatter(send, recv, count, red.type, red.op, comm_, s); }),
        "ncclReduceScatter");
  enqueued(s, "reduce_scatter");
}

void NcclCommunicator::broadcast(const void* send, void* recv, size_t count, DType dtype, int root, Stream& stream) {
  if (root < 0 || root >= size_)
    throw CommError(fmt::format("broadcast from root {}: the world has ranks 0 to {}", root, size_ - 1),
                    where_of(rank_, size_, device_), "every rank passes the same root, a rank of the group");
  const NcclElements e = nccl_moved_elements(dtype, count);
  const cudaStream_t s = stream_of(stream, "broadcast");
  if (count == 0) return;
  // NCCL reads sendbuff on the root only; the other ranks may pass none.
  const NcclApi& api = nccl_api();
  check(locked("broadcast", [&] { return api.Broadcast(send ? send : recv, recv, e.count, e.type, root, comm_, s); }),
        "ncclBroadcast");
  enqueued(s, "broadcast");
}

void NcclCommunicator::group_start() {
  check(locked("group_start", [] { return nccl_api().GroupStart(); }), "ncclGroupStart");
  ++t_group_depth;
}

void NcclCommunicator::group_end() {
  if (t_group_depth > 0) --t_group_depth;  // not below 0 after a group_start that threw
  std::vector<GroupCall> calls;
  if (t_group_depth == 0) calls.swap(t_group_calls);
  check(locked("group_end", [] { return nccl_api().GroupEnd(); }), "ncclGroupEnd");
  for (const GroupCall& c : calls) c.comm->watch_after(c.stream, c.collective);
}

namespace {

// Inside one process NCCL reads and writes the peers' buffers directly ("P2P/direct
// pointer") where the GPUs can reach each other. tgc's buffers come from each device's
// stream-ordered memory pool, which peer access (cudaDeviceEnablePeerAccess, what NCCL turns
// on) does not cover: each pool is opened to the other devices here, or NCCL's kernels fault
// on the first collective.
void grant_peer_access(const std::vector<CudaDevice*>& devices) {
  for (CudaDevice* owner : devices)
    for (CudaDevice* peer : devices) {
      if (peer == owner) continue;
      int can = 0;
      TGC_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, peer->ordinal(), owner->ordinal()));
      if (!can) continue;  // NCCL then goes through host memory, never through these buffers
      cudaMemAccessDesc access{};
      access.location.type = cudaMemLocationTypeDevice;
      access.location.id = peer->ordinal();
      access.flags = cudaMemAccessFlagsProtReadWrite;
      TGC_CUDA_CHECK(cudaMemPoolSetAccess(owner->pool(), &access, 1));
    }
}

}  // namespace

std::vector<std::unique_ptr<NcclCommunicator>> make_nccl_communicators(const std::vector<CudaDevice*>& devices,
                                                                       CommTimeout timeout) {
  const NcclApi& api = nccl_api();
  std::vector<int> ordinals;
  std::string names;
  for (CudaDevice* d : devices) {
    for (int o : ordinals)
      if (o == d->ordinal())
        throw CommError("an NCCL group over " + d->name() + " twice", "",
                        "each rank of a group inside one process needs a device of its own (NCCL cannot run two "
                        "ranks on one GPU)");
    ordinals.push_back(d->ordinal());
    names += (names.empty() ? "" : ", ") + d->name();
  }
  grant_peer_access(devices);
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  const ncclResult_t r = api.CommInitAll(comms.data(), static_cast<int>(devices.size()), ordinals.data());
  if (r != ncclSuccess)
    throw CommError("NCCL call ncclCommInitAll failed: " + nccl_error_text(r), "the group over " + names,
                    "check that the devices can reach each other (nvidia-smi topo -m); run with NCCL_DEBUG=INFO "
                    "for NCCL's account");
  std::vector<std::unique_ptr<NcclCommunicator>> out;
  const int size = static_cast<int>(devices.size());
  for (int i = 0; i < size; ++i)
    out.push_back(std::make_unique<NcclCommunicator>(*devices[i], comms[i], i, size, i, /*blocking=*/true, timeout));
  return out;
}

std::unique_ptr<NcclCommunicator> make_nccl_communicator(CudaDevice& device, int rank, int size, int local_rank,
                                                         const ncclUniqueId& id, CommTimeout timeout) {
  const NcclApi& api = nccl_api();
  const std::string where = where_of(rank, size, device);
  // Non-blocking: ncclCommInitRankConfig returns while NCCL connects the ranks on its own
  // thread, so that a rank which never joins becomes a CommError after `timeout` rather than
  // a process that hangs in the bootstrap forever.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  ncclResult_t r;
  {
    DeviceGuard guard(device.ordinal());  // the communicator is made for the current device
    r = api.CommInitRankConfig(&comm, size, id, rank, &config);
  }
  if (r == ncclSuccess || r == ncclInProgress)
    r = settle([&](ncclResult_t* state) { return api.CommGetAsyncError(comm, state); }, Clock::now() + timeout);
  if (r == ncclSuccess) return std::make_unique<NcclCommunicator>(device, comm, rank, size, local_rank, false, timeout);
  const std::string text = r == ncclInProgress ? "" : nccl_error_text(r, comm);
  if (comm) api.CommAbort(comm);  // stops NCCL's thread still waiting for the others
  if (r == ncclInProgress)
    throw CommError("the NCCL communicator was not ready after " + timeout_text(timeout) +
                        ": not every rank joined",
                    where,
                    "another rank failed before making its communicator, or was never started; each rank needs "
                    "the same TGC_NCCL_UNIQUE_ID (tgc launch) or mpirun; Config comm_timeout sets the wait");
  throw CommError("NCCL call ncclCommInitRankConfig failed: " + text, where,
                  "run with NCCL_DEBUG=INFO for NCCL's account (a firewall between the machines, or "
                  "NCCL_SOCKET_IFNAME naming the wrong interface, are common causes)");
}

}  // namespace tgc::cuda
