// The compile log on device=cuda (label gpu: skips without a device): a cold compile with
// several fused kernels builds them together (one NVRTC program: CudaDevice::compile_ahead),
// logs the build's wall time once with each miss once, and computes the same with one compile
// thread or two; a second process's view of the cache (a copied directory) builds nothing and
// loads every module.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "cuda_test_util.h"
#include "runtime/compile_log.h"

namespace tgc {
namespace {

namespace fs = std::filesystem;
bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag)
      : path(fs::temp_directory_path() / ("tgc_cuda_compile_log_" + std::to_string(::getpid()) + "_" + tag)) {
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

struct Compiled {
  std::string log;
  std::vector<Tensor> results;
};

// Three kernels over different index spaces, so fusion keeps them apart.
Compiled compile_and_run(const fs::path& cache, const std::string& threads) {
  Var x = vector("x"), y = matrix("y");
  const std::vector<Var> outs = {exp(x) + 1.0, tanh(y) * 2.0, sum(y * y, {1}) - x};
  testing::internal::CaptureStderr();
  Function f = function({x, y}, outs, {},
                        {.name = "three", .config = {{"device", "cuda"}, {"log_compiles", "true"},
                                                     {"compile_threads", threads}, {"cache_dir", cache.string()}}});
  Compiled c{testing::internal::GetCapturedStderr(), {}};
  for (const Tensor& t : f({Tensor::from_vector(std::vector<float>{0.5f, -1.0f}),
                            Tensor::from_vector(std::vector<float>{1, 2, 3, 4}).reshape({2, 2})}))
    c.results.push_back(t.to(host_device()));
  return c;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CudaCompileLog, KernelsBuildTogetherAndAWarmStartBuildsNothing) {
  TGC_REQUIRE_CUDA();
  TempDir parallel("parallel"), serial("serial"), warm("warm");
  const Compiled at_once = compile_and_run(parallel.path, "2");
  std::smatch m;
  // Three units are one program: one thread builds it, whatever compile_threads allows.
  ASSERT_TRUE(std::regex_search(at_once.log, m, std::regex("codegen cuda: ([0-9]+) kernels compiled, [0-9.]+ ms\n")))
      << at_once.log;
  const int kernels = std::stoi(m[1]);
  EXPECT_EQ(kernels, 3) << at_once.log;
  EXPECT_EQ(count(at_once.log, "cache miss cuda"), kernels) << at_once.log;
  EXPECT_TRUE(has(at_once.log, "load cuda: 3 kernels loaded")) << at_once.log;

  const Compiled one_by_one = compile_and_run(serial.path, "1");
  EXPECT_TRUE(has(one_by_one.log, "codegen cuda: 3 kernels compiled")) << one_by_one.log;
  EXPECT_FALSE(has(one_by_one.log, "threads)")) << one_by_one.log;
  ASSERT_EQ(at_once.results.size(), one_by_one.results.size());
  for (size_t i = 0; i < at_once.results.size(); ++i)
    EXPECT_EQ(at_once.results[i].str(), one_by_one.results[i].str()) << i;

  fs::copy(parallel.path, warm.path);
  const Compiled warmed = compile_and_run(warm.path, "2");
  EXPECT_FALSE(has(warmed.log, "cache miss")) << warmed.log;
  // Rendering the sources (their cache key) is still code generation: 0 kernels compiled.
  EXPECT_TRUE(has(warmed.log, "codegen cuda: 0 kernels compiled")) << warmed.log;
  EXPECT_TRUE(has(warmed.log, "load cuda: ")) << warmed.log;
}

}  // namespace
}  // namespace tgc
