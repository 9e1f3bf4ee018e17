// The LLVM backend's use of the kernel cache: a second compiler with the same cache
// directory links the stored object code instead of compiling, and a corrupt entry is
// detected, compiled again and rewritten.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cpu_test_util.h"

namespace tgc {
namespace {

namespace fs = std::filesystem;
using test::random_tensor;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tgc_llvm_cache_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

Kernel test_kernel() {
  Var a = vector("a"), b = vector("b");
  test::WholeGroup w = test::whole_group({a, b}, {exp(a) * b + 0.25});
  return lower_group(w.group).kernel;
}

Tensor run(cpu::KernelCompiler& compiler, const Kernel& k) {
  std::vector<Tensor> out(1);
  cpu::launch_kernel(k, compiler.get(k),
                     {Tensor::from_vector(std::vector<float>{0, 1, 2}), Tensor::from_vector(std::vector<float>{1, 2, 3})}, out);
  return out[0];
}

TEST(CpuKernelCache, SecondProcessLoadsTheObjectInsteadOfCompiling) {
  TempDir dir;
  const Kernel k = test_kernel();
  KernelCache first_cache(dir.path.string());
  cpu::KernelCompiler first(first_cache, {});
  const cpu::JitStats before = cpu::jit_stats();
  Tensor want = run(first, k);
  EXPECT_EQ(cpu::jit_stats().compiled, before.compiled + 1);
  run(first, k);  // the same compiler: its own table, nothing compiled or loaded
  EXPECT_EQ(cpu::jit_stats().compiled, before.compiled + 1);
  EXPECT_EQ(cpu::jit_stats().loaded, before.loaded);
  EXPECT_TRUE(fs::exists(first_cache.entry_path(first.cache_key(k))));

  // A new cache object on the same directory stands for another process.
  KernelCache second_cache(dir.path.string());
  cpu::KernelCompiler second(second_cache, {});
  EXPECT_TRUE(test::same_values(run(second, k), want));
  EXPECT_EQ(cpu::jit_stats().compiled, before.compiled + 1);
  EXPECT_EQ(cpu::jit_stats().loaded, before.loaded + 1);
}

TEST(CpuKernelCache, CorruptEntryIsRebuilt) {
  TempDir dir;
  const Kernel k = test_kernel();
  KernelCache cache1(dir.path.string());
  cpu::KernelCompiler c1(cache1, {});
  Tensor want = run(c1, k);
  const std::string path = cache1.entry_path(c1.cache_key(k));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(path) / 2));
    f.write("garbage!", 8);
  }
  const cpu::JitStats before = cpu::jit_stats();
  KernelCache cache2(dir.path.string());
  cpu::KernelCompiler c2(cache2, {});
  EXPECT_TRUE(test::same_values(run(c2, k), want));
  EXPECT_EQ(cpu::jit_stats().compiled, before.compiled + 1);  // rebuilt
  EXPECT_EQ(cpu::jit_stats().loaded, before.loaded);

  KernelCache cache3(dir.path.string());  // the rewritten entry is good again
  cpu::KernelCompiler c3(cache3, {});
  EXPECT_TRUE(test::same_values(run(c3, k), want));
  EXPECT_EQ(cpu::jit_stats().loaded, before.loaded + 1);
}

TEST(CpuKernelCache, FastMathIsPartOfTheKey) {
  KernelCache cache("");
  cpu::KernelCompiler exact(cache, {}), fast(cache, {.fast_math = true});
  const Kernel k = test_kernel();
  EXPECT_NE(exact.cache_key(k).text(), fast.cache_key(k).text());
}

TEST(CpuKernelCache, Float32MathIsPartOfTheKey) {
  KernelCache cache("");
  cpu::KernelCompiler in_float(cache, {}), in_double(cache, {.float32_math = false});
  const Kernel k = test_kernel();
  EXPECT_NE(in_float.cache_key(k).text(), in_double.cache_key(k).text());
  EXPECT_NE(in_float.cache_key(k).flags.find("float32_math=float32"), std::string::npos);
  EXPECT_NE(in_double.cache_key(k).flags.find("float32_math=double"), std::string::npos);
}

TEST(CpuKernelCache, VectorWidthIsPartOfTheKey) {
  KernelCache cache("");
  cpu::KernelCompiler automatic(cache, {}), narrow(cache, {.vector_width = 256});
  const Kernel k = test_kernel();
  EXPECT_NE(automatic.cache_key(k).text(), narrow.cache_key(k).text());
  EXPECT_NE(automatic.cache_key(k).flags.find("vector_width=auto"), std::string::npos);
  EXPECT_NE(narrow.cache_key(k).flags.find("vector_width=256"), std::string::npos);
}

}  // namespace
}  // namespace tgc
