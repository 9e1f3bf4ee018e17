// Finding and loading libcudnn.so.9 at run time, and the status `tgc devices` prints.
#include "backends/cuda/cudnn_library.h"

#include <dlfcn.h>

#include <filesystem>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/library_search.h"
#include "runtime/error.h"

#if TGC_HAVE_CUDNN_HEADERS
#include "backends/cuda/cuda_error.h"
#endif

// The wheel's libcudnn.so.9 CMake found when tgc was configured; empty when there was none.
#ifndef TGC_CUDNN_WHEEL_LIBRARY
#define TGC_CUDNN_WHEEL_LIBRARY ""
#endif

namespace tgc::cuda {

std::vector<std::string> cudnn_library_candidates() {
  return library_candidates(
      {"TGC_CUDNN_LIBRARY", "libcudnn.so.9", TGC_CUDNN_WHEEL_LIBRARY, "nvidia/cudnn/lib/libcudnn.so.9"});
}

std::string cudnn_version_str(size_t code) {
  // CUDNN_VERSION from 9 on: major*10000 + minor*100 + patch.
  return std::to_string(code / 10000) + "." + std::to_string(code % 10000 / 100) + "." + std::to_string(code % 100);
}

namespace {

#if TGC_HAVE_CUDNN_HEADERS

CudnnApi g_api{};

// cuDNN 9's libcudnn.so.9 is a front that loads its parts (libcudnn_graph, _ops, _cnn, ...)
// by soname when first needed. Where it came from a wheel folder outside the loader's search
// path, the parts are loaded from that folder first, so that those later loads find them.
void preload_parts(const std::string& loaded) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(loaded).parent_path();
  if (dir.empty()) return;
  for (const char* part : {"libcudnn_graph.so.9", "libcudnn_engines_runtime_compiled.so.9",
                           "libcudnn_engines_precompiled.so.9", "libcudnn_heuristic.so.9", "libcudnn_ops.so.9",
                           "libcudnn_cnn.so.9"}) {
    const std::filesystem::path p = dir / part;
    if (std::filesystem::exists(p, ec)) dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);  // a failure shows at the call
  }
}

CudnnStatus load() {
  CudnnStatus st;
#define TGC_CUDNN_SYMBOL(name) LibrarySymbol{"cudnn" #name, reinterpret_cast<void**>(&g_api.name)},
  const std::vector<LibrarySymbol> symbols = {TGC_CUDNN_FUNCTIONS(TGC_CUDNN_SYMBOL)};
#undef TGC_CUDNN_SYMBOL
  if (!load_library(cudnn_library_candidates(), symbols, "libcudnn.so.9",
                    "pip install nvidia-cudnn-cu13, or set TGC_CUDNN_LIBRARY", "tgc needs cuDNN 9", st.reason))
    return st;
  st.path = loaded_path(reinterpret_cast<void*>(g_api.GetVersion), "libcudnn.so.9");
  st.version = g_api.GetVersion();
  if (st.version < 90000) {
    st.reason = st.path + " is cuDNN " + cudnn_version_str(st.version) + ": tgc needs cuDNN 9";
    return st;
  }
  preload_parts(st.path);
  st.available = true;
  return st;  // the handle stays open for the process
}

#else

CudnnStatus load() {
  CudnnStatus st;
  st.reason = built_without_reason("cuDNN", "cudnn.h", "TGC_WITH_CUDNN", "nvidia-cudnn-cu13");
  return st;
}

#endif

}  // namespace

const CudnnStatus& cudnn_status() {
  static const CudnnStatus status = load();
  return status;
}

std::string cudnn_description() {
  const CudnnStatus& st = cudnn_status();
  return devices_line("cudnn", st.available,
                      st.available ? "cuDNN " + cudnn_version_str(st.version) + ", " + st.path +
                                         "; convolutions and pooling on CUDA devices"
                                   : st.reason);
}

#if TGC_HAVE_CUDNN_HEADERS

const CudnnApi& cudnn_api() {
  const CudnnStatus& st = cudnn_status();
  if (!st.available)
    throw DeviceError("cuDNN is not available: " + st.reason, "",
                      "convolutions and pooling on CUDA devices need cuDNN 9: pip install nvidia-cudnn-cu13 (or set "
                      "TGC_CUDNN_LIBRARY to libcudnn.so.9); `tgc devices` shows what tgc found");
  return g_api;
}

void throw_cudnn_error(cudnnStatus_t status, const char* call) {
  const std::string name = call_name(call);
  throw DeviceError("cuDNN call " + name + " failed: " + g_api.GetErrorString(status) + " (" +
                        std::to_string(static_cast<int>(status)) + ")",
                    "", status == CUDNN_STATUS_ALLOC_FAILED ? "the device is out of memory" : "");
}

#endif

}  // namespace tgc::cuda

namespace tgc {

std::string cudnn_devices_description() { return cuda::cudnn_description(); }

}  // namespace tgc
