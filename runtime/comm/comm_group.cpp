// CommGroup: which engine moves a device's memory for a group of ranks (MPI on the host, the
// factory a backend registered for its devices, a self communicator for a world of one), and
// the launch's world group.
#include <fmt/format.h>

#include "runtime/comm/mpi_communicator.h"
#include "runtime/comm/world.h"
#include "runtime/config.h"
#include "runtime/error.h"

namespace tgc {

namespace {

struct Factories {
  std::mutex mutex;
  std::map<DeviceKind, CommFactory> by_kind;
};

Factories& factories() {
  static Factories f;
  return f;
}

// What a device kind lacks when no engine was registered for it.
std::string missing_engine(const Device& device) {
  switch (device.kind()) {
    case DeviceKind::Cuda: return "NCCL not found, or tgc built without CUDA";
    case DeviceKind::OpenCL: return "tgc has no collective engine for OpenCL";
    case DeviceKind::Host: return "";
  }
  return "";
}

std::shared_ptr<Communicator> host_communicator(const CommGroup& group) {
  if (!group.peers().empty())
    throw CommError(fmt::format("group '{}' has {} ranks in one process on the host, and host collectives run "
                                "between processes only",
                                group.name(), group.size()),
                    "", "start one process per rank with mpirun or tgc launch (docs/distributed.md)");
  const LaunchInfo& info = launch_info();
  if (!info.mpi_world)
    throw CommError(fmt::format("host collectives of group '{}' ({} ranks) need MPI's process starter, and this "
                                "process was {}",
                                group.name(), group.size(),
                                info.launcher == "none" ? "started alone" : "started by " + info.launcher + " without mpirun"),
                    "", "start the ranks with mpirun, or with tgc launch where Open MPI's mpirun is on the PATH");
  auto comm = make_mpi_communicator(global_config().comm_timeout);
  if (comm->size() != group.size() || comm->rank() != group.rank())
    throw CommError(fmt::format("group '{}' is rank {} of {}, but MPI's world is rank {} of {}", group.name(),
                                group.rank(), group.size(), comm->rank(), comm->size()),
                    "", "host collectives run over the launch's world group (world_group())");
  return comm;
}

}  // namespace

CommGroup::CommGroup(int rank, int size, std::string name, std::vector<Device*> peers)
    : rank_(rank), size_(size), name_(std::move(name)), peers_(std::move(peers)) {
  TGC_INTERNAL_CHECK(size_ >= 1 && rank_ >= 0 && rank_ < size_,
                     fmt::format("CommGroup '{}': rank {} of {}", name_, rank_, size_));
  TGC_INTERNAL_CHECK(peers_.empty() || int(peers_.size()) == size_,
                     fmt::format("CommGroup '{}': {} peers for {} ranks", name_, peers_.size(), size_));
}

std::shared_ptr<Communicator> CommGroup::communicator(Device& device) {
  std::shared_ptr<Made> made;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Made>& slot = made_[&device];
    if (!slot) slot = std::make_shared<Made>();
    made = slot;
  }
  // Made once, under the slot's own lock and not mutex_: under mpirun, NCCL's factory
  // broadcasts its unique id through this group's host communicator, and waiting here for the
  // lock its own caller held hung every rank (issue 21). A factory that throws leaves the slot
  // empty for the next call.
  std::lock_guard<std::mutex> making(made->making);
  if (!made->comm) {
    if (size_ == 1) {
      made->comm = make_self_communicator(device);
    } else if (device.kind() == DeviceKind::Host) {
      made->comm = host_communicator(*this);
    } else {
      CommFactory factory;
      {
        std::lock_guard<std::mutex> registry_lock(factories().mutex);
        if (auto it = factories().by_kind.find(device.kind()); it != factories().by_kind.end()) factory = it->second;
      }
      if (!factory)
        throw CommError(fmt::format("no collective engine for {} ({}): group '{}' has {} ranks", device.name(),
                                    missing_engine(device), name_, size_),
                        "",
                        device.kind() == DeviceKind::Cuda
                            ? "install NCCL (libnccl2) where tgc's CUDA backend can load it; `tgc devices` says what is found"
                            : "run the collectives on cpu or cuda devices");
      made->comm = factory(device, *this);
    }
  }
  return made->comm;
}

void CommGroup::use_communicator(Device& device, std::shared_ptr<Communicator> comm) {
  TGC_INTERNAL_CHECK(comm && comm->size() == size_ && comm->rank() == rank_,
                     fmt::format("CommGroup '{}': a communicator of another rank or size", name_));
  auto made = std::make_shared<Made>();
  made->comm = std::move(comm);
  std::lock_guard<std::mutex> lock(mutex_);
  made_[&device] = std::move(made);
}

std::shared_ptr<CommGroup> world_group() {
  static const std::shared_ptr<CommGroup> world = [] {
    const LaunchInfo& info = launch_info();
    return std::make_shared<CommGroup>(info.rank, info.size, "world");
  }();
  return world;
}

void register_comm_factory(DeviceKind kind, CommFactory factory) {
  std::lock_guard<std::mutex> lock(factories().mutex);
  factories().by_kind[kind] = std::move(factory);
}

bool has_comm_factory(DeviceKind kind) {
  std::lock_guard<std::mutex> lock(factories().mutex);
  return factories().by_kind.count(kind) > 0;
}

}  // namespace tgc
