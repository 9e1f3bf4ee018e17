// The world a program runs in: how the process was started (mpirun, tgc launch, or alone),
// and CommGroup, the ranks that run collectives together, which hands each device the
// communicator that moves its memory (MPI on the host, NCCL on CUDA devices, a self
// communicator for a world of one). Collective ops hold a CommGroup; the thunk of a node
// asks it for the communicator of the device the node runs on.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// How this process was started, read once from the environment: Open MPI's mpirun
// (OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE), `tgc launch` (TGC_RANK,
// TGC_WORLD_SIZE, TGC_LOCAL_RANK, TGC_LOCAL_WORLD_SIZE), or alone (rank 0 of 1). The TGC_
// variables win when both are there: they were set by the nearest launcher (`tgc launch`
// over mpirun copies Open MPI's into them). A malformed or inconsistent value is a
// ConfigError naming the variable.
//
// TGC_NCCL_UNIQUE_ID (an ncclUniqueId in hex) is the hook through which a launcher may hand
// every rank the NCCL world's id, for ranks that share no MPI world to exchange it through:
// `tgc launch` sets it when it starts the ranks itself (backends/cuda/nccl_entry.h).
struct LaunchInfo {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  std::string launcher = "none";  // "mpirun", "tgc launch" or "none"
  // Whether MPI_COMM_WORLD spans these ranks: the process was started by mpirun (directly or
  // through `tgc launch`) with the same rank and size. Host collectives need it: processes
  // that `tgc launch` starts itself are MPI singletons that cannot join each other.
  bool mpi_world = false;
};
const LaunchInfo& launch_info();
// launch_info()'s reading, from `getenv` (returns nullptr for an unset variable): for tests.
LaunchInfo read_launch_info(const std::function<const char*(const char*)>& getenv);

// Ranks that run collectives together. The group of a launch (world_group()) has one rank
// per process; a group made for several devices of one process (data parallelism over
// devices=cuda:0,cuda:1) has one rank per device and one CommGroup object per rank.
class CommGroup {
 public:
  // `peers`: for a group inside one process, every rank's device in rank order (the
  // engine makes all the ranks' communicators at once); empty for one rank per process.
  CommGroup(int rank, int size, std::string name, std::vector<Device*> peers = {});
  int rank() const { return rank_; }
  int size() const { return size_; }
  // "world", shown in op names: AllReduce{sum, group=world(2)}.
  const std::string& name() const { return name_; }
  const std::vector<Device*>& peers() const { return peers_; }

  // The communicator that moves `device`'s memory for this group, made on first use and
  // kept (thread-safe). Host memory: the MPI world (MPI loaded now), or a self communicator
  // when size() is 1. A device: the factory its backend registered, or a self communicator
  // when size() is 1. Throws CommError saying what is missing (MPI or NCCL not found, a
  // group of several ranks on a device kind without an engine).
  std::shared_ptr<Communicator> communicator(Device& device);
  // Makes `comm` the communicator of `device`'s memory for this group (one made by the
  // caller: an engine set up outside tgc, the tests' in-process world). Before first use.
  void use_communicator(Device& device, std::shared_ptr<Communicator> comm);

 private:
  int rank_, size_;
  std::string name_;
  std::vector<Device*> peers_;
  // One slot per device, its communicator made once outside mutex_: a factory may ask this
  // group for another device's communicator (NCCL's unique id goes through the host's, MPI),
  // which must not wait on the lock its own caller holds.
  struct Made {
    std::mutex making;  // held while the communicator is made
    std::shared_ptr<Communicator> comm;
  };
  std::mutex mutex_;
  std::map<const Device*, std::shared_ptr<Made>> made_;
};

// The launch's world: one rank per process, launch_info()'s rank and size.
std::shared_ptr<CommGroup> world_group();

// How a backend makes the communicator of one of its devices for a group (NCCL for CUDA,
// registered by the CUDA backend when NCCL can be loaded).
using CommFactory = std::function<std::shared_ptr<Communicator>(Device& device, CommGroup& group)>;
void register_comm_factory(DeviceKind kind, CommFactory factory);
// Whether a factory was registered for `kind` (the GPU backend's rule asks: without one, a
// collective of several ranks stays on the host).
bool has_comm_factory(DeviceKind kind);

TGC_API_END
}  // namespace tgc
