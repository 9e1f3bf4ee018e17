// Finding and loading libnccl.so.2 at run time, and the status `tgc devices` prints.
#include "backends/cuda/nccl_library.h"

#include <dlfcn.h>
#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "backends/cuda/nccl_entry.h"
#include "runtime/error.h"

namespace tgc::cuda {

namespace {

// The wheel's libnccl.so.2 CMake found when tgc was configured (it ran python3 once); empty when
// there was none.
#ifndef TGC_NCCL_WHEEL_LIBRARY
#define TGC_NCCL_WHEEL_LIBRARY ""
#endif

constexpr const char* kWheelTail = "nvidia/nccl/lib/libnccl.so.2";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

void add_glob(std::vector<std::string>& out, const std::string& pattern) {
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
}

// The wheel under the site-packages of a Python installation at `prefix` (a venv, conda,
// pyenv version or /usr/local): found without running Python, which a library must not do.
void add_wheel_under(std::vector<std::string>& out, const std::string& prefix) {
  if (prefix.empty()) return;
  for (const char* packages : {"site-packages", "dist-packages"})
    add_glob(out, prefix + "/lib/python3*/" + packages + "/" + kWheelTail);
}

}  // namespace

std::vector<std::string> nccl_library_candidates() {
  const std::string forced = env("TGC_NCCL_LIBRARY");
  if (!forced.empty()) return {forced};
  std::vector<std::string> out = {"libnccl.so.2"};
  if (std::string(TGC_NCCL_WHEEL_LIBRARY) != "") out.emplace_back(TGC_NCCL_WHEEL_LIBRARY);
  add_wheel_under(out, env("VIRTUAL_ENV"));
  add_wheel_under(out, env("CONDA_PREFIX"));
  // Each python3 on PATH: <prefix>/bin/python3 -> <prefix>/lib/python3.X/site-packages.
  std::stringstream path(env("PATH"));
  for (std::string dir; std::getline(path, dir, ':');) {
    if (dir.empty()) continue;
    std::error_code ec;
    const std::filesystem::path py = std::filesystem::path(dir) / "python3";
    if (!std::filesystem::exists(py, ec)) continue;
    add_wheel_under(out, std::filesystem::path(dir).parent_path().string());
    // A venv's python3 is a link to the base interpreter, whose prefix has the user's packages too.
    const auto real = std::filesystem::canonical(py, ec);
    if (!ec) add_wheel_under(out, real.parent_path().parent_path().string());
  }
  if (!env("HOME").empty()) add_wheel_under(out, env("HOME") + "/.local");
  // pyenv's interpreters (PATH holds only its shims, scripts outside the prefix) and the
  // usual conda and system prefixes.
  const std::string pyenv = !env("PYENV_ROOT").empty() ? env("PYENV_ROOT") : env("HOME") + "/.pyenv";
  if (pyenv != "/.pyenv") add_wheel_under(out, pyenv + "/versions/*");
  add_wheel_under(out, "/opt/conda");
  add_wheel_under(out, "/usr/local");
  add_wheel_under(out, "/usr");
  // The same file reached twice (a link, a venv over its base) is tried once.
  std::vector<std::string> unique;
  for (const std::string& c : out)
    if (std::find(unique.begin(), unique.end(), c) == unique.end()) unique.push_back(c);
  return unique;
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
  for (const std::string& candidate : nccl_library_candidates()) {
    // RTLD_LOCAL: NCCL's symbols stay out of the global namespace (a second NCCL loaded by
    // another library in the process keeps its own).
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* err = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(err ? err : candidate + ": not found");
      continue;
    }
    std::string missing;
    if (!resolve(handle, missing)) {
      int code = 0;
      auto get_version = reinterpret_cast<decltype(&::ncclGetVersion)>(dlsym(handle, "ncclGetVersion"));
      if (get_version) get_version(&code);
      st.reason = candidate + " (NCCL " + (code ? nccl_version_str(code) : "of unknown version") +
                  ") lacks " + missing + ": tgc needs NCCL 2.14 or newer";
      dlclose(handle);
      return st;
    }
    Dl_info info{};
    st.path = dladdr(reinterpret_cast<void*>(g_api.GetVersion), &info) && info.dli_fname ? info.dli_fname : candidate;
    if (g_api.GetVersion(&st.version) != ncclSuccess) st.version = 0;
    st.available = true;
    return st;  // the handle stays open for the process
  }
  st.reason = "libnccl.so.2 not found (" + tried + ")";
  return st;
}

#else

NcclStatus load() {
  NcclStatus st;
#if TGC_HAVE_CUDA
  st.reason = "built without NCCL headers (nccl.h was not found, or TGC_WITH_NCCL=OFF, when tgc was configured: "
              "pip install nvidia-nccl-cu13, or scripts/setup, then reconfigure)";
#else
  st.reason = "not built: this build has no CUDA backend";
#endif
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
  if (!st.available) return "nccl     unavailable  (" + st.reason + ")";
  return "nccl     available  (NCCL " + nccl_version_str(st.version) + ", " + st.path +
         "; collectives on CUDA devices)";
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
