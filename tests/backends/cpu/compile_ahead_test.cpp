// KernelCompiler::compile_ahead: kernels that missed the cache are compiled on several
// threads into the cache, and the get() that follows links them without compiling; what is
// cached or linked already, a lone kernel, or one thread leave everything to get(); the
// results are those of kernels compiled one by one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cpu_test_util.h"

namespace tgc {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tgc_compile_ahead_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<Kernel> three_kernels() {
  Var a = vector("a"), b = vector("b");
  std::vector<Kernel> out;
  for (const Var& e : {exp(a) * b + 0.5, tanh(a) - b, a * a * b})
    out.push_back(lower_group(test::whole_group({a, b}, {e}).group).kernel);
  return out;
}

std::vector<std::pair<const Kernel*, std::string>> jobs(const std::vector<Kernel>& ks) {
  std::vector<std::pair<const Kernel*, std::string>> out;
  for (const Kernel& k : ks) out.push_back({&k, "node"});
  return out;
}

Tensor run(cpu::KernelCompiler& compiler, const Kernel& k) {
  std::vector<Tensor> out(1);
  cpu::launch_kernel(k, compiler.get(k),
                     {Tensor::from_vector(std::vector<float>{0, 1, 2}), Tensor::from_vector(std::vector<float>{1, 2, 3})},
                     out);
  return out[0];
}

TEST(CompileAhead, CompilesTheMissesAtOnceAndGetLinksThem) {
  TempDir dir;
  const std::vector<Kernel> ks = three_kernels();
  KernelCache cache(dir.path.string());
  cpu::KernelCompiler compiler(cache, {});
  const cpu::JitStats before = cpu::jit_stats();
  compiler.compile_ahead(jobs(ks), /*threads=*/2);
  EXPECT_EQ(cpu::jit_stats().compiled, before.compiled + 3);
  for (const Kernel& k : ks) EXPECT_TRUE(fs::exists(cache.entry_path(compiler.cache_key(k))));
  // The same kernels compiled one by one, by another compiler in memory only.
  std::vector<Tensor> want;
  for (const Kernel& k : ks) want.push_back(run(test::memory_compiler(), k));
  const size_t compiled = cpu::jit_stats().compiled;
  for (size_t i = 0; i < ks.size(); ++i) EXPECT_TRUE(test::same_values(run(compiler, ks[i]), want[i])) << i;
  EXPECT_EQ(cpu::jit_stats().compiled, compiled) << "get() links what compile_ahead compiled";
}

TEST(CompileAhead, LeavesCachedLinkedAndLoneKernelsToGet) {
  TempDir dir;
  const std::vector<Kernel> ks = three_kernels();
  KernelCache cache(dir.path.string());
  cpu::KernelCompiler compiler(cache, {});
  run(compiler, ks[0]);  // linked
  const cpu::JitStats before = cpu::jit_stats();
  compiler.compile_ahead(jobs(ks), /*threads=*/1);
  EXPECT_EQ(cpu::jit_stats().compiled, before.compiled) << "one thread: nothing ahead";
  compiler.compile_ahead({{&ks[0], ""}, {&ks[1], ""}, {&ks[1], ""}}, /*threads=*/4);
  EXPECT_EQ(cpu::jit_stats().compiled, before.compiled) << "one kernel left (ks[1], twice): get() compiles it";
  compiler.compile_ahead(jobs(ks), /*threads=*/4);
  EXPECT_EQ(cpu::jit_stats().compiled, before.compiled + 2) << "ks[0] is linked already";
}

}  // namespace
}  // namespace tgc
