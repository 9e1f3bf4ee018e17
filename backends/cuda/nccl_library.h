// NCCL loaded at run time (dlopen), as the CUDA driver is: the same libtgc starts on machines
// without NCCL, and finds the copy inside Python's NVIDIA wheels where that is the only one.
// nccl_status() says which library was loaded and from where, or why none was; nccl_api() is
// the table of the functions tgc calls. The table needs nccl.h (TGC_HAVE_NCCL_HEADERS); the
// status is there in every build.
#pragma once

#include <string>
#include <vector>

#if TGC_HAVE_NCCL_HEADERS
#include <nccl.h>
#endif

namespace tgc::cuda {

struct NcclStatus {
  bool available = false;
  // Why not, when not: "built without NCCL headers", "libnccl.so.2 not found (tried ...)",
  // "NCCL 2.12.3 is too old ...".
  std::string reason;
  int version = 0;   // ncclGetVersion's code: 22809 for 2.28.9
  std::string path;  // the file loaded (dladdr of a symbol when found through the search path)
};

// Loaded once per process (thread-safe); never throws. Before loading it sets
// NCCL_NVLS_ENABLE=0 unless the user set it (NVLink multicast stays off on shared machines).
const NcclStatus& nccl_status();

// Where the library is looked for, in order: $TGC_NCCL_LIBRARY (a file, when set: then
// nothing else), "libnccl.so.2" (LD_LIBRARY_PATH and the system's library cache), the NVIDIA
// wheel found when tgc was configured, then the wheel under the site-packages folders of the
// python3 programs on PATH, $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, pyenv's versions,
// /opt/conda, /usr/local and /usr.
std::vector<std::string> nccl_library_candidates();

// "2.28.9" from 22809 (and "2.8.4" from NCCL's older encoding, 2804).
std::string nccl_version_str(int code);

// The `tgc devices` line: "nccl     available  (2.28.9, /usr/lib/.../libnccl.so.2; ...)" or
// "nccl     unavailable  (<reason>)".
std::string nccl_description();

#if TGC_HAVE_NCCL_HEADERS
// The functions tgc calls, resolved with dlsym from the loaded library.
struct NcclApi {
  decltype(&::ncclGetVersion) GetVersion;
  decltype(&::ncclGetUniqueId) GetUniqueId;
  decltype(&::ncclCommInitRank) CommInitRank;
  decltype(&::ncclCommInitRankConfig) CommInitRankConfig;
  decltype(&::ncclCommInitAll) CommInitAll;
  decltype(&::ncclCommDestroy) CommDestroy;
  decltype(&::ncclCommAbort) CommAbort;
  decltype(&::ncclCommGetAsyncError) CommGetAsyncError;
  decltype(&::ncclGetErrorString) GetErrorString;
  decltype(&::ncclGetLastError) GetLastError;
  decltype(&::ncclAllReduce) AllReduce;
  decltype(&::ncclAllGather) AllGather;
  decltype(&::ncclReduceScatter) ReduceScatter;
  decltype(&::ncclBroadcast) Broadcast;
  decltype(&::ncclGroupStart) GroupStart;
  decltype(&::ncclGroupEnd) GroupEnd;
};

// The table; CommError with nccl_status()'s reason when NCCL could not be loaded.
const NcclApi& nccl_api();

// "unhandled system error (ncclSystemError): <ncclGetLastError's text>" for a failed call.
std::string nccl_error_text(ncclResult_t result, ncclComm_t comm = nullptr);
#endif

}  // namespace tgc::cuda
