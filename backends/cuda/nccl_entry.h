// NCCL's entry points for the rest of tgc: the `tgc devices` line, the unique id `tgc launch`
// makes once and hands every rank in TGC_NCCL_UNIQUE_ID, and the CUDA backend's registration
// of NCCL. Defined in every build: without CUDA or nccl.h they say so (nccl_none.cpp).
#pragma once

#include <string>

namespace tgc {

// The environment variable that carries the unique id (256 hex digits) to each rank.
inline constexpr const char* kNcclUniqueIdEnv = "TGC_NCCL_UNIQUE_ID";

// "nccl     available  (NCCL 2.28.9, <path>; ...)" or "nccl     unavailable  (<why>)".
std::string nccl_devices_description();

// A new NCCL unique id as hex, for the launcher to put in every rank's TGC_NCCL_UNIQUE_ID.
// The calling process hosts NCCL's bootstrap root (a thread listening on a socket) until all
// ranks of the one communicator made from it have connected: keep it alive meanwhile. The id
// serves one communicator. CommError when NCCL cannot be loaded or fails.
std::string make_nccl_unique_id_hex();

// Called when a CUDA backend is made: registers NCCL as the engine of CUDA devices' collectives
// (register_comm_factory) once per process, when NCCL loads; without it, nothing.
void register_nccl_comm_factory();

}  // namespace tgc
