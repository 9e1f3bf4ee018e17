// Finding and loading libnccl.so.2 at run time, and the status `tgc devices` prints.
#include "backends/cuda/nccl_library.h"

#include <dlfcn.h>

#include <cstdlib>

#include "backends/cuda/library_search.h"
#include "backends/cuda/nccl_entry.h"
#include "runtime/error.h"

// The wheel's libnccl.so.2 CMake found when tgc was configured (it ran python3 once); empty when
// there was none.
#ifndef TGC_NCCL_WHEEL_LIBRARY
#define TGC_NCCL_WHEEL_LIBRARY ""
#endif

namespace tgc::cuda {

std::vector<std::string> nccl_library_candidates() {
  return library_candidates({"TGC_NCCL_LIBRARY", "libnccl.so.2", TGC_NCCL_WHEEL_LIBRARY, "nvidia/nccl/lib/libnccl.so.2"});
}

std::string nccl_version_str(int code) {
  // NCCL_VERSION(X,Y,Z): X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z from 2.9 on.
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? code % 10000 / 100 : code % 1000 / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

namespace {

#if TGC_HAVE_NCCL_HEADERS

NcclApi g_api{};

// Resolves every function of the table; false naming the first one missing (an NCCL older
// than 2.14, which has no ncclCommInitRankConfig and no non-blocking communicators).
bool resolve(void* handle, std::string& missing) {
  struct Entry {
    const char* name;
    void** slot;
  };
  const Entry entries[] = {
      {"ncclGetVersion", reinterpret_cast<void**>(&g_api.GetVersion)},
      {"ncclGetUniqueId", reinterpret_cast<void**>(&g_api.GetUniqueId)},
      {"ncclCommInitRank", reinterpret_cast<void**>(&g_api.CommInitRank)},
      {"ncclCommInitRankConfig", reinterpret_cast<void**>(&g_api.CommInitRankConfig)},
      {"ncclCommInitAll", reinterpret_cast<void**>(&g_api.CommInitAll)},
      {"ncclCommDestroy", reinterpret_cast<void**>(&g_api.CommDestroy)},
      {"ncclCommAbort", reinterpret_cast<void**>(&g_api.CommAbort)},
      {"ncclCommGetAsyncError", reinterpret_cast<void**>(&g_api.CommGetAsyncError)},
      {"ncclGetErrorString", reinterpret_cast<void**>(&g_api.GetErrorString)},
      {"ncclGetLastError", reinterpret_cast<void**>(&g_api.GetLastError)},
      {"ncclAllReduce", reinterpret_cast<void**>(&g_api.AllReduce)},
      {"ncclAllGather", reinterpret_cast<void**>(&g_api.AllGather)},
      {"ncclReduceScatter", reinterpret_cast<void**>(&g_api.ReduceScatter)},
      {"ncclBroadcast", reinterpret_cast<void**>(&g_api.Broadcast)},
      {"ncclGroupStart", reinterpret_cast<void**>(&g_api.GroupStart)},
      {"ncclGroupEnd", reinterpret_cast<void**>(&g_api.GroupEnd)},
  };
  for (const Entry& e : entries) {
    *e.slot = dlsym(handle, e.name);
    if (!*e.slot) {
      missing = e.name;
      return false;
    }
  }
  return true;
}

// NCCL reads its environment when it initialises (on the first call), so the default goes in
// before the library is even loaded. The GPU machines are shared: NVLink multicast (NVLS)
// reserves fabric resources other jobs need, so it stays off unless the user turned it on.
void default_environment() { setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0); }

NcclStatus load() {
  NcclStatus st;
  default_environment();
  std::string tried;
  void* handle = open_first(nccl_library_candidates(), tried);
  if (!handle) {
    st.reason = "libnccl.so.2 not found (" + tried + ")";
    return st;
  }
  std::string missing;
  if (!resolve(handle, missing)) {
    int code = 0;
    auto get_version = reinterpret_cast<decltype(&::ncclGetVersion)>(dlsym(handle, "ncclGetVersion"));
    if (get_version) get_version(&code);
    st.reason = loaded_path(dlsym(handle, "ncclGetVersion"), "libnccl") + " (NCCL " +
                (code ? nccl_version_str(code) : "of unknown version") + ") lacks " + missing +
                ": tgc needs NCCL 2.14 or newer";
    dlclose(handle);
    return st;
  }
  st.path = loaded_path(reinterpret_cast<void*>(g_api.GetVersion), "libnccl.so.2");
  if (g_api.GetVersion(&st.version) != ncclSuccess) st.version = 0;
  st.available = true;
  return st;  // the handle stays open for the process
}

#else

NcclStatus load() {
  NcclStatus st;
  st.reason = built_without_reason("NCCL", "nccl.h", "TGC_WITH_NCCL", "nvidia-nccl-cu13");
  return st;
}

#endif

}  // namespace

const NcclStatus& nccl_status() {
  static const NcclStatus status = load();
  return status;
}

std::string nccl_description() {
  const NcclStatus& st = nccl_status();
  return devices_line("nccl", st.available,
                      st.available ? "NCCL " + nccl_version_str(st.version) + ", " + st.path +
                                         "; collectives on CUDA devices"
                                   : st.reason);
}

#if TGC_HAVE_NCCL_HEADERS

const NcclApi& nccl_api() {
  const NcclStatus& st = nccl_status();
  if (!st.available)
    throw CommError("NCCL is not available: " + st.reason, "",
                    "collectives on CUDA devices need NCCL: pip install nvidia-nccl-cu13 (or set TGC_NCCL_LIBRARY "
                    "to libnccl.so.2); `tgc devices` shows what tgc found");
  return g_api;
}

namespace {

const char* result_name(ncclResult_t r) {
  switch (r) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    case ncclInProgress: return "ncclInProgress";
    default: return "ncclResult_t";
  }
}

}  // namespace

std::string nccl_error_text(ncclResult_t result, ncclComm_t comm) {
  const NcclApi& api = nccl_api();
  std::string text = std::string(api.GetErrorString(result)) + " (" + result_name(result) + " = " +
                     std::to_string(static_cast<int>(result)) + ")";
  // NCCL's last error says what failed inside (which socket, which CUDA call); the code alone
  // only says "system error".
  const char* last = api.GetLastError(comm);
  if (last && *last) text += ": " + std::string(last);
  return text;
}

#endif

}  // namespace tgc::cuda

namespace tgc {

std::string nccl_devices_description() { return cuda::nccl_description(); }

}  // namespace tgc
