// Which NCCL communicator a CUDA device gets for a CommGroup, and where its unique id comes from.
#include "backends/cuda/nccl_comm_factory.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <tuple>

#include "backends/cuda/nccl_entry.h"
#include "backends/cuda/nccl_library.h"
#include "backends/cuda/nccl_unique_id.h"
#include "runtime/config.h"
#include "runtime/error.h"

namespace tgc::cuda {

CommTimeout nccl_comm_timeout() {
  const std::vector<std::string>& keys = Config::keys();
  if (std::find(keys.begin(), keys.end(), "comm_timeout") == keys.end()) return kDefaultCommTimeout;
  const std::string text = global_config().get("comm_timeout");
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::logic_error&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
  const double scale = unit.empty() || unit == "s" ? 1000 : unit == "ms" ? 1 : unit == "m" || unit == "min" ? 60000 : -1;
  if (used == 0 || scale < 0 || value <= 0)
    throw ConfigError("comm_timeout '" + text + "' is not a duration", "Config",
                      "write seconds (300, 300s), milliseconds (1500ms) or minutes (5m)");
  return CommTimeout(static_cast<long long>(value * scale));
}

namespace {

CudaDevice& cuda_of(Device& device, const CommGroup& group) {
  auto* d = dynamic_cast<CudaDevice*>(&device);
  if (!d)
    throw CommError("NCCL was asked to move the memory of " + device.name(), "group " + group.name(),
                    "NCCL moves CUDA memory only; host tensors go through the group's host communicator");
  return *d;
}

// The ranks' communicators of one group inside this process, made together by
// ncclCommInitAll and shared by the group objects of its ranks (each holds its rank's
// communicator and, through it, the set). Kept while any rank holds one.
struct CommSet {
  std::vector<std::unique_ptr<NcclCommunicator>> comms;
};
using SetKey = std::pair<std::string, std::vector<const Device*>>;
std::mutex g_sets_mutex;
std::map<SetKey, std::weak_ptr<CommSet>> g_sets;

std::shared_ptr<Communicator> in_process(Device& device, CommGroup& group, const std::vector<Device*>& peers) {
  const std::string where = "group " + group.name();
  if (static_cast<int>(peers.size()) != group.size() || group.rank() < 0 || group.rank() >= group.size() ||
      peers[group.rank()] != &device)
    throw CommError(fmt::format("{} is not rank {}'s device in a group of {} devices", device.name(), group.rank(),
                                peers.size()),
                    where, "each rank's CommGroup lists every rank's device in rank order and asks for its own");
  std::vector<CudaDevice*> devices;
  for (Device* p : peers) devices.push_back(&cuda_of(*p, group));
  const SetKey key{group.name(), std::vector<const Device*>(peers.begin(), peers.end())};
  std::lock_guard lock(g_sets_mutex);
  std::shared_ptr<CommSet> set = g_sets[key].lock();
  if (!set) {
    set = std::make_shared<CommSet>();
    set->comms = make_nccl_communicators(devices, nccl_comm_timeout());
    g_sets[key] = set;
  }
  // Aliasing: the rank's communicator, keeping the whole set alive (NCCL frees the ranks of
  // one ncclCommInitAll together).
  return std::shared_ptr<Communicator>(set, set->comms[group.rank()].get());
}

// One rank per process: made once per (group name, rank, size, device) and shared, since the
// unique id from the launcher serves one communicator only.
using WorldKey = std::tuple<std::string, int, int, const Device*>;
std::mutex g_world_mutex;
std::map<WorldKey, std::weak_ptr<Communicator>> g_worlds;
bool g_env_id_used = false;  // under g_world_mutex

ncclUniqueId world_unique_id(CommGroup& group) {
  const char* hex = std::getenv(kNcclUniqueIdEnv);
  if (hex && *hex) {
    if (g_env_id_used)
      throw CommError("a second NCCL communicator across processes: the unique id in " +
                          std::string(kNcclUniqueIdEnv) + " served the first already",
                      "group " + group.name(),
                      "under tgc launch each process has one NCCL communicator per group: one CUDA device, one world");
    g_env_id_used = true;
    return unique_id_from_hex(hex, kNcclUniqueIdEnv);
  }
  if (launch_info().mpi_world) {  // mpirun, directly or under tgc launch
    // Rank 0 makes the id (and hosts NCCL's bootstrap root); MPI carries its 128 bytes. When
    // rank 0 cannot make one it still broadcasts (all zeros, never an id NCCL makes: it holds
    // the root's address), so that the others fail at once instead of waiting for it.
    ncclUniqueId id{};
    std::exception_ptr failed;
    if (group.rank() == 0) {
      try {
        id = make_unique_id();
      } catch (const CommError&) {
        failed = std::current_exception();
      }
    }
    Device& host = host_device();
    group.communicator(host)->broadcast(&id, &id, sizeof(id.internal), DType::UInt8, 0, host.default_stream());
    if (failed) std::rethrow_exception(failed);
    if (std::all_of(std::begin(id.internal), std::end(id.internal), [](char c) { return c == 0; }))
      throw CommError("rank 0 could not make NCCL's unique id", "rank " + std::to_string(group.rank()),
                      "rank 0's error says why (NCCL's bootstrap needs a usable network interface)");
    return id;
  }
  throw CommError(fmt::format("NCCL needs a unique id shared by the {} ranks of group {}, and none was given",
                              group.size(), group.name()),
                  "rank " + std::to_string(group.rank()),
                  "start the ranks with `tgc launch` (which sets " + std::string(kNcclUniqueIdEnv) +
                      ") or mpirun");
}

std::shared_ptr<Communicator> across_processes(Device& device, CommGroup& group) {
  CudaDevice& cuda = cuda_of(device, group);
  const WorldKey key{group.name(), group.rank(), group.size(), &device};
  std::lock_guard lock(g_world_mutex);
  if (std::shared_ptr<Communicator> made = g_worlds[key].lock()) return made;
  const ncclUniqueId id = world_unique_id(group);
  std::shared_ptr<Communicator> comm = make_nccl_communicator(cuda, group.rank(), group.size(),
                                                              launch_info().local_rank, id, nccl_comm_timeout());
  g_worlds[key] = comm;
  return comm;
}

}  // namespace

std::shared_ptr<Communicator> make_nccl_group_communicator(Device& device, CommGroup& group) {
  if (!group.peers().empty()) return in_process(device, group, group.peers());
  // A world of one needs neither an id nor a network: ncclCommInitAll over the one device.
  if (group.size() == 1) return in_process(device, group, {&device});
  return across_processes(device, group);
}

}  // namespace tgc::cuda

namespace tgc {

void register_nccl_comm_factory() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (cuda::nccl_status().available) register_comm_factory(DeviceKind::Cuda, cuda::make_nccl_group_communicator);
  });
}

}  // namespace tgc
