// Unloading JIT-compiled kernels: a linked kernel is shared while held, unloaded when its last
// holder (a thunk) dies and linked again from the cache when needed; Functions that die take
// their kernels with them; and the memory of kernels that were dropped does not accumulate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <tgc/tgc.h>

#include <filesystem>
#include <fstream>

#include "cpu_test_util.h"

namespace tgc {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tgc_llvm_unload_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

// A kernel per `i`: the constant is part of the Kernel IR, so each is a distinct kernel.
Kernel kernel_number(int i) {
  Var a = vector("a");
  test::WholeGroup w = test::whole_group({a}, {exp(a) * (1.0 + i / 1024.0) + 0.5});
  return lower_group(w.group).kernel;
}

float run(cpu::KernelFn fn, const Kernel& k) {
  std::vector<Tensor> out(1);
  cpu::launch_kernel(k, fn, {Tensor::from_vector(std::vector<float>{0, 1})}, out);
  return out[0].to_vector<float>()[0];
}

// Resident set size in bytes, from /proc (Linux).
uint64_t rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

TEST(CpuKernelUnload, AKernelIsSharedWhileHeldAndUnloadedAfter) {
  TempDir dir;
  KernelCache cache(dir.path.string());
  cpu::KernelCompiler compiler(cache, {});
  const Kernel k = kernel_number(1);
  const cpu::JitStats before = cpu::jit_stats();
  std::shared_ptr<const cpu::LinkedKernel> first = compiler.link(k);
  std::shared_ptr<const cpu::LinkedKernel> second = compiler.link(k);
  EXPECT_EQ(first, second) << "a held kernel is shared, not linked twice";
  EXPECT_EQ(cpu::jit_stats().resident, before.resident + 1);
  EXPECT_FLOAT_EQ(run(first->fn, k), 1.0f * (1.0f + 1 / 1024.0f) + 0.5f);
  first.reset();
  EXPECT_EQ(cpu::jit_stats().resident, before.resident + 1) << "still held by `second`";
  second.reset();
  EXPECT_EQ(cpu::jit_stats().resident, before.resident);
  EXPECT_EQ(cpu::jit_stats().unloaded, before.unloaded + 1);
  // Needed again: linked from the cache, not compiled.
  std::shared_ptr<const cpu::LinkedKernel> again = compiler.link(k);
  EXPECT_EQ(cpu::jit_stats().compiled, before.compiled + 1);
  EXPECT_EQ(cpu::jit_stats().loaded, before.loaded + 1);
  EXPECT_FLOAT_EQ(run(again->fn, k), 1.0f * (1.0f + 1 / 1024.0f) + 0.5f);
}

TEST(CpuKernelUnload, GetKeepsItsKernelLoadedForTheCompilersLife) {
  KernelCache cache("");
  const cpu::JitStats before = cpu::jit_stats();
  {
    cpu::KernelCompiler compiler(cache, {});
    const Kernel k = kernel_number(2);
    cpu::KernelFn fn = compiler.get(k);
    EXPECT_EQ(cpu::jit_stats().resident, before.resident + 1);
    EXPECT_FLOAT_EQ(run(fn, k), 1.0f * (1.0f + 2 / 1024.0f) + 0.5f);
  }
  EXPECT_EQ(cpu::jit_stats().resident, before.resident) << "unloaded with the compiler";
}

TEST(CpuKernelUnload, FunctionsThatDieUnloadTheirKernels) {
  TempDir dir;
  const FunctionOptions options{.config = {{"device", "cpu"}, {"cache_dir", dir.path.string()}}};
  const cpu::JitStats before = cpu::jit_stats();
  {
    std::vector<Function> functions;
    for (int i = 0; i < 8; ++i) {
      Var a = vector("a");
      functions.push_back(function({a}, {exp(a) * (3.0 + i) + 1.0}, {}, options));
    }
    EXPECT_GE(cpu::jit_stats().resident, before.resident + 8);
    for (int i = 0; i < 8; ++i) {
      std::vector<Tensor> out = functions[i]({Tensor::from_vector(std::vector<float>{0})});
      EXPECT_FLOAT_EQ(out[0].to_vector<float>()[0], (3.0f + i) + 1.0f) << i;
    }
    // A second function with the first's graph shares its kernel while both live.
    Var a = vector("a");
    Function twin = function({a}, {exp(a) * 3.0 + 1.0}, {}, options);
    EXPECT_EQ(cpu::jit_stats().resident, before.resident + 8);
  }
  EXPECT_EQ(cpu::jit_stats().resident, before.resident);
  EXPECT_GE(cpu::jit_stats().unloaded, before.unloaded + 8);
}

TEST(CpuKernelUnload, DroppedKernelsDoNotAccumulateMemory) {
  // Self-calibrated: the growth per kernel while kernels are dropped must stay well under the
  // growth per kernel while they are held. A memory tier of 256 KiB keeps the cache's copies
  // of object code out of the measurement (that tier is bounded on its own).
  TempDir dir;
  KernelCache cache(dir.path.string(), 0, 256 << 10);
  cpu::KernelCompiler compiler(cache, {});
  constexpr int kWarm = 20, kKernels = 60;
  for (int i = 0; i < kWarm; ++i) compiler.link(kernel_number(1000 + i));  // heap and JIT warm-up
  const uint64_t start = rss_bytes();
  for (int i = 0; i < kKernels; ++i) compiler.link(kernel_number(2000 + i));  // dropped at once
  const uint64_t after_dropped = rss_bytes();
  std::vector<std::shared_ptr<const cpu::LinkedKernel>> held;
  for (int i = 0; i < kKernels; ++i) held.push_back(compiler.link(kernel_number(3000 + i)));
  const uint64_t after_held = rss_bytes();
  const double dropped = static_cast<double>(after_dropped - std::min(after_dropped, start)) / kKernels;
  const double kept = static_cast<double>(after_held - std::min(after_held, after_dropped)) / kKernels;
  std::printf("memory per kernel: %.0f bytes dropped, %.0f bytes held\n", dropped, kept);
  EXPECT_LT(dropped, kept / 2) << "dropped kernels still cost memory";
}

}  // namespace
}  // namespace tgc
