// TEMPORARY: weak stand-ins for the host side of runtime/comm (launch_info, CommGroup,
// register_comm_factory, collective_reduce_name), which branch `comm` implements in
// runtime/comm/*.cpp. Until that branch is merged, libtgc on branch `nccl` needs them to link
// and to run the NCCL tests through a CommGroup. They are weak: the real definitions replace
// them at link time once both branches are in, and this file can then be deleted (nothing
// else refers to it). They do only what the NCCL side needs: no MPI, no self communicator.
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "runtime/comm/world.h"
#include "runtime/error.h"

namespace tgc {

namespace {

std::mutex& stand_in_mutex() {
  static std::mutex m;
  return m;
}
std::map<DeviceKind, CommFactory>& stand_in_factories() {
  static std::map<DeviceKind, CommFactory> f;
  return f;
}
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

}  // namespace

__attribute__((weak)) std::string collective_reduce_name(CollectiveReduce op) {
  switch (op) {
    case CollectiveReduce::Sum: return "sum";
    case CollectiveReduce::Max: return "max";
    case CollectiveReduce::Min: return "min";
  }
  return "?";
}

__attribute__((weak)) const LaunchInfo& launch_info() {
  static const LaunchInfo info = [] {
    LaunchInfo i;
    if (std::getenv("OMPI_COMM_WORLD_RANK")) {
      i = {env_int("OMPI_COMM_WORLD_RANK", 0), env_int("OMPI_COMM_WORLD_SIZE", 1),
           env_int("OMPI_COMM_WORLD_LOCAL_RANK", 0), env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 1), "mpirun"};
    } else if (std::getenv("TGC_RANK")) {
      i = {env_int("TGC_RANK", 0), env_int("TGC_WORLD_SIZE", 1), env_int("TGC_LOCAL_RANK", 0),
           env_int("TGC_LOCAL_WORLD_SIZE", 1), "tgc launch"};
    }
    return i;
  }();
  return info;
}

__attribute__((weak)) CommGroup::CommGroup(int rank, int size, std::string name, std::vector<Device*> peers)
    : rank_(rank), size_(size), name_(std::move(name)), peers_(std::move(peers)) {}

__attribute__((weak)) std::shared_ptr<Communicator> CommGroup::communicator(Device& device) {
  std::lock_guard lock(mutex_);
  auto made = made_.find(&device);
  if (made != made_.end()) return made->second;
  CommFactory factory;
  {
    std::lock_guard f(stand_in_mutex());
    auto it = stand_in_factories().find(device.kind());
    if (it != stand_in_factories().end()) factory = it->second;
  }
  if (!factory)
    throw CommError("no engine moves " + device.name() + "'s memory in this build of branch nccl", "group " + name_,
                    "the host side of runtime/comm (MPI, self communicators) comes with branch comm");
  return made_[&device] = factory(device, *this);
}

__attribute__((weak)) void register_comm_factory(DeviceKind kind, CommFactory factory) {
  std::lock_guard lock(stand_in_mutex());
  stand_in_factories()[kind] = std::move(factory);
}

__attribute__((weak)) std::shared_ptr<CommGroup> world_group() {
  static const std::shared_ptr<CommGroup> world =
      std::make_shared<CommGroup>(launch_info().rank, launch_info().size, "world");
  return world;
}

}  // namespace tgc
