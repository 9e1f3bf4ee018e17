// NVRTC, cuBLAS and cuBLASLt loaded at run time, without a GPU (no `gpu` label: these run in
// CI): libtgc does not need them to load, where each is looked for, what the status and the
// `tgc devices` lines say, and the names the checks give a call through a table.
#include "backends/cuda/toolkit_libraries.h"

#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>

#include <tgc/devices.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/nvrtc_compiler.h"
#include "runtime/error.h"
#include "runtime/config.h"
#include "support/scoped_env.h"

namespace tgc {
namespace {

using testing::ScopedEnv;

// The DT_NEEDED entries of libtgc.so, read from its dynamic section in memory. This test
// links tgc's objects statically (tgc_internal), so it loads the shared library users link
// (TGC_LIBTGC_FILE) first: that dlopen, with every symbol bound at once, succeeding on a
// machine without the driver or the toolkit's libraries is itself part of the check.
std::vector<std::string> libtgc_needed() {
  static void* const libtgc = dlopen(TGC_LIBTGC_FILE, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(libtgc, nullptr) << TGC_LIBTGC_FILE << " does not load: " << dlerror();
  struct Found {
    std::vector<std::string> needed;
    bool seen = false;
  } found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* f = static_cast<Found*>(data);
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("libtgc.so") == std::string::npos) return 0;
        f->seen = true;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
          const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
          const char* strtab = nullptr;
          for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d)
            if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);  // relocated by ld.so
          for (const ElfW(Dyn)* d = dyn; strtab && d->d_tag != DT_NULL; ++d)
            if (d->d_tag == DT_NEEDED) f->needed.emplace_back(strtab + d->d_un.d_val);
        }
        return 1;
      },
      &found);
  EXPECT_TRUE(found.seen) << "libtgc.so is not among the loaded objects";
  return found.needed;
}

TEST(ToolkitLibraries, LibtgcNeedsNeitherTheDriverNorTheToolkitsLibraries) {
  const std::vector<std::string> needed = libtgc_needed();
  ASSERT_FALSE(needed.empty());
  for (const std::string& n : needed)
    for (const char* lib : {"libcuda.", "libnvrtc", "libcublas", "libcudart.", "libcudnn", "libnccl"})
      EXPECT_EQ(n.find(lib), std::string::npos) << "libtgc.so needs " << n << ": it should load it at run time";
}

TEST(ToolkitLibraries, TheOverrideIsTheOnlyCandidate) {
  ScopedEnv nvrtc("TGC_NVRTC_LIBRARY", "/opt/nowhere/libnvrtc.so.13");
  ScopedEnv cublas("TGC_CUBLAS_LIBRARY", "/opt/nowhere/libcublas.so.13");
  ScopedEnv lt("TGC_CUBLASLT_LIBRARY", "/opt/nowhere/libcublasLt.so.13");
  EXPECT_EQ(cuda::nvrtc_library_candidates(), std::vector<std::string>{"/opt/nowhere/libnvrtc.so.13"});
  EXPECT_EQ(cuda::cublas_library_candidates(), std::vector<std::string>{"/opt/nowhere/libcublas.so.13"});
  EXPECT_EQ(cuda::cublaslt_library_candidates(), std::vector<std::string>{"/opt/nowhere/libcublasLt.so.13"});
}

// The soname first (LD_LIBRARY_PATH, the system's cache), then the toolkit's own file, then
// NVIDIA's CUDA 13 wheels; each file once.
TEST(ToolkitLibraries, TheSonameComesFirstThenTheToolkitThenWheels) {
  ScopedEnv env("TGC_NVRTC_LIBRARY", nullptr);
  const std::vector<std::string> c = cuda::nvrtc_library_candidates();
  ASSERT_GE(c.size(), 2u);
  EXPECT_EQ(c[0], "libnvrtc.so.13");
  EXPECT_NE(c[1].find("/libnvrtc.so.13"), std::string::npos) << "the toolkit's file CMake found: " << c[1];
  for (size_t i = 2; i < c.size(); ++i) {
    EXPECT_NE(c[i].find("nvidia/cu13/lib/libnvrtc.so.13"), std::string::npos) << c[i];
    for (size_t j = 0; j < i; ++j) EXPECT_NE(c[i], c[j]) << "tried twice";
  }
}

TEST(ToolkitLibraries, StatusSaysWhereFromOrWhyNotAndTgcDevicesShowsIt) {
  const std::vector<std::string> lines = devices(Config{});
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  for (const auto& [status, line, key] :
       {std::tuple{&cuda::nvrtc_status(), cuda::nvrtc_description(), std::string("nvrtc    ")},
        std::tuple{&cuda::cublas_status(), cuda::cublas_description(), std::string("cublas   ")}}) {
    if (status->available) {
      EXPECT_TRUE(status->reason.empty()) << status->reason;
      EXPECT_TRUE(status->version.starts_with("13.")) << status->version;
      EXPECT_EQ(line.rfind(key + "available  (", 0), 0u) << line;
      EXPECT_NE(line.find(status->path), std::string::npos) << line;
    } else {
      EXPECT_FALSE(status->reason.empty());
      EXPECT_EQ(line, key + "unavailable  (" + status->reason + ")");
    }
    EXPECT_NE(all.find(line + "\n"), std::string::npos) << "tgc devices lacks " << line << ":\n" << all;
  }
}

// CI's machine has the toolkit: NVRTC compiles there (cuda_nvrtc_tests), so it must load.
TEST(ToolkitLibraries, TheTablesAreFilledWhereTheLibrariesLoad) {
  if (!cuda::nvrtc_status().available) GTEST_SKIP() << "NVRTC cannot be loaded here: " << cuda::nvrtc_status().reason;
  int major = 0, minor = 0;
  EXPECT_EQ(cuda::nvrtc_api().Version(&major, &minor), NVRTC_SUCCESS);
  EXPECT_EQ(major, 13);
  if (!cuda::cublas_status().available) GTEST_SKIP() << "cuBLAS cannot be loaded here: " << cuda::cublas_status().reason;
  EXPECT_STREQ(cuda::cublas_api().GetStatusName(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_EQ(cuda::cublaslt_api().GetVersion() / 10000, 13u);
}

// Compiling a kernel where NVRTC cannot be loaded: a DeviceError saying which file was looked
// for, why it failed and what to install. In a fresh process (the library loads once per
// process), with the override pointing nowhere.
TEST(ToolkitLibraries, CompilingWithoutNvrtcSaysWhatIsMissing) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("TGC_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", 1);
        try {
          cuda::nvrtc_compile("extern \"C\" __global__ void k() {}", "k", cuda::NvrtcOptions{});
        } catch (const DeviceError& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::exit(0);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0),
      "NVRTC is not available: libnvrtc.so.13 not found \\(/nonexistent/libnvrtc.so.13: .*pip install "
      "nvidia-cuda-nvrtc nvidia-cublas.*TGC_NVRTC_LIBRARY");
}

TEST(ToolkitLibraries, ChecksNameTheLibrarysFunction) {
  EXPECT_EQ(cuda::call_name("cublas_api().Sgemm(h, a, b)"), "cublasSgemm");
  EXPECT_EQ(cuda::call_name("cublaslt_api().MatmulDescCreate(&d, c, s)"), "cublasLtMatmulDescCreate");
  EXPECT_EQ(cuda::call_name("nvrtc_api().CompileProgram(p, n, o)"), "nvrtcCompileProgram");
}

}  // namespace
}  // namespace tgc
