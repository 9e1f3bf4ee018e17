// Finding and loading NVRTC, cuBLAS and cuBLASLt at run time, and the lines `tgc devices` prints.
#include "backends/cuda/toolkit_libraries.h"

#include <cuda.h>
#include <fmt/format.h>

#include <filesystem>

#include "backends/cuda/library_search.h"
#include "runtime/error.h"

// The toolkit's folder of libraries CMake found when tgc was configured ("" when unknown).
#ifndef TGC_CUDA_TOOLKIT_LIBRARY_DIR
#define TGC_CUDA_TOOLKIT_LIBRARY_DIR ""
#endif

#define TGC_TOOLKIT_STR_(x) #x
#define TGC_TOOLKIT_STR(x) TGC_TOOLKIT_STR_(x)

namespace tgc::cuda {

namespace {

// The major version of the toolkit tgc was built with: its sonames carry it (libnvrtc.so.13).
constexpr int kMajor = CUDA_VERSION / 1000;

// What to install, said once for every library.
const std::string kInstall = fmt::format(
    "install the CUDA {} toolkit's libraries (NVIDIA's cuda-libraries-{}-0 package), or pip install "
    "nvidia-cuda-nvrtc nvidia-cublas (their CUDA {} wheels), or set {{}} to the file",
    kMajor, kMajor, kMajor);

std::string soname_of(const char* stem) { return fmt::format("lib{}.so.{}", stem, kMajor); }

LibrarySearch search(const char* env, const char* stem) {
  const std::string soname = soname_of(stem);
  const std::string dir = TGC_CUDA_TOOLKIT_LIBRARY_DIR;
  const std::string configured = dir.empty() ? "" : (std::filesystem::path(dir) / soname).string();
  return {env, soname, configured, fmt::format("nvidia/cu{}/lib/{}", kMajor, soname)};
}

NvrtcApi g_nvrtc{};
CublasApi g_cublas{};
CublasLtApi g_cublaslt{};

#define TGC_TOOLKIT_SYMBOL(table, prefix, name) \
  LibrarySymbol{TGC_TOOLKIT_STR(prefix##name), reinterpret_cast<void**>(&table.name)},
#define TGC_NVRTC_SYMBOL(name) TGC_TOOLKIT_SYMBOL(g_nvrtc, nvrtc, name)
#define TGC_CUBLAS_SYMBOL(name) TGC_TOOLKIT_SYMBOL(g_cublas, cublas, name)
#define TGC_CUBLASLT_SYMBOL(name) TGC_TOOLKIT_SYMBOL(g_cublaslt, cublasLt, name)

ToolkitLibraryStatus load_nvrtc() {
  ToolkitLibraryStatus st;
  const std::vector<LibrarySymbol> symbols = {TGC_NVRTC_FUNCTIONS(TGC_NVRTC_SYMBOL)};
  void* handle = load_library(nvrtc_library_candidates(), symbols, soname_of("nvrtc"),
                              fmt::format(fmt::runtime(kInstall), "TGC_NVRTC_LIBRARY"),
                              fmt::format("tgc needs NVRTC {}", kMajor), st.reason);
  if (!handle) return st;
  st.path = loaded_path(reinterpret_cast<void*>(g_nvrtc.Version), soname_of("nvrtc"));
  int major = 0, minor = 0;
  if (g_nvrtc.Version(&major, &minor) != NVRTC_SUCCESS || major != kMajor) {
    st.reason = fmt::format("{} is NVRTC {}.{}: this build of tgc needs NVRTC {}", st.path, major, minor, kMajor);
    return st;
  }
  st.version = fmt::format("{}.{}", major, minor);
  st.available = true;
  return st;  // the handle stays open for the process
}

ToolkitLibraryStatus load_cublas() {
  ToolkitLibraryStatus st;
  // cuBLASLt first: libcublas needs it by soname, and a cuBLASLt already loaded from a wheel's
  // folder (outside the loader's search path) is what that need then finds.
  const std::vector<LibrarySymbol> lt_symbols = {TGC_CUBLASLT_FUNCTIONS(TGC_CUBLASLT_SYMBOL)};
  const std::string needs = fmt::format("tgc needs cuBLAS {}", kMajor);
  if (!load_library(cublaslt_library_candidates(), lt_symbols, soname_of("cublasLt"),
                    fmt::format(fmt::runtime(kInstall), "TGC_CUBLASLT_LIBRARY"), needs, st.reason))
    return st;
  const std::vector<LibrarySymbol> symbols = {
      TGC_CUBLAS_FUNCTIONS(TGC_CUBLAS_SYMBOL) LibrarySymbol{"cublasGemmEx", reinterpret_cast<void**>(&g_cublas.GemmEx)},
      LibrarySymbol{"cublasGemmStridedBatchedEx", reinterpret_cast<void**>(&g_cublas.GemmStridedBatchedEx)}};
  if (!load_library(cublas_library_candidates(), symbols, soname_of("cublas"),
                    fmt::format(fmt::runtime(kInstall), "TGC_CUBLAS_LIBRARY"), needs, st.reason))
    return st;
  st.path = loaded_path(reinterpret_cast<void*>(g_cublas.Create), soname_of("cublas"));
  int major = 0, minor = 0, patch = 0;
  g_cublas.GetProperty(MAJOR_VERSION, &major);
  g_cublas.GetProperty(MINOR_VERSION, &minor);
  g_cublas.GetProperty(PATCH_LEVEL, &patch);
  const size_t lt = g_cublaslt.GetVersion();  // major * 10000 + minor * 100 + patch
  if (major != kMajor || static_cast<int>(lt / 10000) != kMajor) {
    st.reason = fmt::format("{} is cuBLAS {}.{} with cuBLASLt {}: this build of tgc needs cuBLAS {}", st.path, major,
                            minor, lt / 10000, kMajor);
    return st;
  }
  st.version = fmt::format("{}.{}.{} and cuBLASLt {}.{}.{}", major, minor, patch, lt / 10000, lt % 10000 / 100,
                           lt % 100);
  st.available = true;
  return st;
}

[[noreturn]] void throw_unavailable(const char* name, const ToolkitLibraryStatus& st, const char* used_for) {
  throw DeviceError(fmt::format("{} is not available: {}", name, st.reason), "",
                    fmt::format("{} on CUDA devices need {} {}; `tgc devices` shows what tgc found", used_for, name,
                                kMajor));
}

}  // namespace

std::vector<std::string> nvrtc_library_candidates() { return library_candidates(search("TGC_NVRTC_LIBRARY", "nvrtc")); }
std::vector<std::string> cublas_library_candidates() {
  return library_candidates(search("TGC_CUBLAS_LIBRARY", "cublas"));
}
std::vector<std::string> cublaslt_library_candidates() {
  return library_candidates(search("TGC_CUBLASLT_LIBRARY", "cublasLt"));
}

const ToolkitLibraryStatus& nvrtc_status() {
  static const ToolkitLibraryStatus status = load_nvrtc();
  return status;
}

const ToolkitLibraryStatus& cublas_status() {
  static const ToolkitLibraryStatus status = load_cublas();
  return status;
}

std::string nvrtc_description() {
  const ToolkitLibraryStatus& st = nvrtc_status();
  return devices_line("nvrtc", st.available,
                      st.available ? "NVRTC " + st.version + ", " + st.path + "; kernels for CUDA devices" : st.reason);
}

std::string cublas_description() {
  const ToolkitLibraryStatus& st = cublas_status();
  return devices_line("cublas", st.available,
                      st.available ? "cuBLAS " + st.version + ", " + st.path + "; matrix products on CUDA devices"
                                   : st.reason);
}

const NvrtcApi& nvrtc_api() {
  if (!nvrtc_status().available) throw_unavailable("NVRTC", nvrtc_status(), "kernels");
  return g_nvrtc;
}

const CublasApi& cublas_api() {
  if (!cublas_status().available) throw_unavailable("cuBLAS", cublas_status(), "matrix products");
  return g_cublas;
}

const CublasLtApi& cublaslt_api() {
  if (!cublas_status().available) throw_unavailable("cuBLAS", cublas_status(), "matrix products");
  return g_cublaslt;
}

}  // namespace tgc::cuda
