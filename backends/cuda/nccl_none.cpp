// NCCL's entry points in a build without nccl.h (or without CUDA): the launcher's unique id
// is a CommError saying why, and the CUDA backend registers no NCCL engine.
#include "backends/cuda/nccl_entry.h"
#include "backends/cuda/nccl_library.h"
#include "runtime/error.h"

namespace tgc {

std::string make_nccl_unique_id_hex() {
  throw CommError("NCCL is not available: " + cuda::nccl_status().reason, "tgc launch",
                  "collectives on CUDA devices need a build of tgc with NCCL's headers (scripts/setup installs "
                  "them; reconfigure after)");
}

void register_nccl_comm_factory() {}

}  // namespace tgc
