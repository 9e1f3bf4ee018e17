// NCCL communicators of CUDA devices: making them (all at once in one process, or one rank
// from a unique id with a timeout) and their collectives on a device stream.
#include "backends/cuda/nccl_communicator.h"

#include <fmt/core.h>

#include <thread>

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
// work is handed to NCCL's own thread; its state is polled until it settles. Returns the last
// state: still ncclInProgress when `deadline` passed first. The sleep grows to 10 ms so that a
// long wait for a slow rank costs no CPU while a quick one is seen at once.
ncclResult_t settle(ncclComm_t comm, Clock::time_point deadline) {
  const NcclApi& api = nccl_api();
  auto nap = std::chrono::microseconds(20);
  for (;;) {
    ncclResult_t state = ncclSuccess;
    const ncclResult_t r = api.CommGetAsyncError(comm, &state);
    if (r != ncclSuccess) return r;
    if (state != ncclInProgress || Clock::now() >= deadline) return state;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(10000));
  }
}

std::string where_of(int rank, int size, const CudaDevice& device) {
  return fmt::format("rank {} of {} on {}", rank, size, device.name());
}

}  // namespace

NcclCommunicator::NcclCommunicator(CudaDevice& device, ncclComm_t comm, int rank, int size, int local_rank,
                                   bool blocking, CommTimeout timeout)
    : device_(device), comm_(comm), rank_(rank), size_(size), local_rank_(local_rank), blocking_(blocking),
      timeout_(timeout) {}

NcclCommunicator::~NcclCommunicator() {
  if (!comm_) return;
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

void NcclCommunicator::check(ncclResult_t result, const char* call) {
  if (result == ncclSuccess && blocking_) return;
  if ((result == ncclSuccess || result == ncclInProgress) && !blocking_) {
    // Before the next call the communicator must have settled (NCCL's rule for non-blocking
    // communicators): the work is then enqueued on the stream, as with a blocking one.
    result = settle(comm_, Clock::now() + timeout_);
    if (result == ncclSuccess) return;
    if (result == ncclInProgress) {
      failed_ = true;
      throw CommError(fmt::format("NCCL call {} did not complete within {}", call, timeout_text(timeout_)),
                      where_of(rank_, size_, device_),
                      "another rank failed or did not call the same collective; Config comm_timeout sets the wait");
    }
  }
  failed_ = true;
  throw CommError(fmt::format("NCCL call {} failed: {}", call, nccl_error_text(result, comm_)),
                  where_of(rank_, size_, device_),
                  "every rank must call the same collectives in the same order with the same count and dtype; "
                  "run with NCCL_DEBUG=WARN (or INFO) for NCCL's own account");
}

void NcclCommunicator::all_reduce(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                                  Stream& stream) {
  const NcclReduction red = nccl_reduction(dtype, op, "all_reduce");
  const cudaStream_t s = stream_of(stream, "all_reduce");
  if (count == 0) return;  // every rank has the same count: none of them calls NCCL
  check(nccl_api().AllReduce(send, recv, count, red.type, red.op, comm_, s), "ncclAllReduce");
}

void NcclCommunicator::all_gather(const void* send, void* recv, size_t count, DType dtype, Stream& stream) {
  const NcclElements e = nccl_moved_elements(dtype, count);
  const cudaStream_t s = stream_of(stream, "all_gather");
  if (count == 0) return;
  // The per-rank block is e.count elements of e.type: bytes for a dtype NCCL lacks, so rank
  // r's block still starts at r * count elements of `dtype`.
  check(nccl_api().AllGather(send, recv, e.count, e.type, comm_, s), "ncclAllGather");
}

void NcclCommunicator::reduce_scatter(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                                      Stream& stream) {
  const NcclReduction red = nccl_reduction(dtype, op, "reduce_scatter");
  const cudaStream_t s = stream_of(stream, "reduce_scatter");
  if (count == 0) return;
  check(nccl_api().ReduceScatter(send, recv, count, red.type, red.op, comm_, s), "ncclReduceScatter");
}

void NcclCommunicator::broadcast(const void* send, void* recv, size_t count, DType dtype, int root, Stream& stream) {
  if (root < 0 || root >= size_)
    throw CommError(fmt::format("broadcast from root {}: the world has ranks 0 to {}", root, size_ - 1),
                    where_of(rank_, size_, device_), "every rank passes the same root, a rank of the group");
  const NcclElements e = nccl_moved_elements(dtype, count);
  const cudaStream_t s = stream_of(stream, "broadcast");
  if (count == 0) return;
  // NCCL reads sendbuff on the root only; the other ranks may pass none.
  check(nccl_api().Broadcast(send ? send : recv, recv, e.count, e.type, root, comm_, s), "ncclBroadcast");
}

void NcclCommunicator::group_start() { check(nccl_api().GroupStart(), "ncclGroupStart"); }

void NcclCommunicator::group_end() { check(nccl_api().GroupEnd(), "ncclGroupEnd"); }

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
  if (r == ncclSuccess || r == ncclInProgress) r = settle(comm, Clock::now() + timeout);
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
