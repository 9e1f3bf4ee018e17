// The CUDA backend's CommFactory (runtime/comm/world.h): the NCCL communicator of a CUDA
// device for a CommGroup. A group inside one process (peers()) gets all its ranks' communicators
// at once, shared by the group objects of its ranks; a group of one rank per process gets its
// unique id from TGC_NCCL_UNIQUE_ID (tgc launch) or from rank 0 through the group's host
// communicator (MPI under mpirun).
#pragma once

#include <memory>

#include "backends/cuda/nccl_communicator.h"
#include "runtime/comm/world.h"

namespace tgc::cuda {

// The factory: CommError when NCCL cannot be loaded, the device is not a CUDA device of the
// group, or the unique id cannot be had.
std::shared_ptr<Communicator> make_nccl_group_communicator(Device& device, CommGroup& group);

// Config comm_timeout when the Config has that key (seconds: "300", "300s", "1500ms", "5m"),
// else kDefaultCommTimeout.
CommTimeout nccl_comm_timeout();

}  // namespace tgc::cuda
