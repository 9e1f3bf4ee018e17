// NCCL unique ids: made by NCCL (ncclGetUniqueId) on one rank or in the launcher, carried to
// the others as 256 hex digits (TGC_NCCL_UNIQUE_ID) or as 128 bytes through MPI.
#pragma once

#include <nccl.h>

#include <string>
#include <string_view>

namespace tgc::cuda {

// Lower-case hex, two digits a byte: 256 characters.
std::string unique_id_to_hex(const ncclUniqueId& id);
// The id back from its hex; CommError naming `source` (e.g. "TGC_NCCL_UNIQUE_ID") when the
// text is not 256 hex digits.
ncclUniqueId unique_id_from_hex(std::string_view hex, std::string_view source);
// ncclGetUniqueId; CommError with NCCL's words when it fails (no usable network interface).
ncclUniqueId make_unique_id();

}  // namespace tgc::cuda
