// Saved functions on CUDA (docs/save.md): a training step with a row kernel (log_softmax), a
// gather (take) and a random draw, saved and loaded into an empty kernel cache, runs without a
// compile and gives the saved function's bits; and a function saved after another one built
// the process's shared modules (row, index, random units) still ships their cubins.
#include <tgc/tgc.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "cuda_test_util.h"
#include "runtime/compile_log.h"
#include "runtime/saved_file.h"

#include <nlohmann/json.hpp>

namespace tgc {
namespace {

struct Net {
  RandomStreams streams{7};
  Shared emb = shared(cuda_test::uniform_signed({50, 16}, DType::Float32, 1), "emb");
  Shared w = shared(cuda_test::uniform_signed({16, 5}, DType::Float32, 2), "w");
  Var ids = vector("ids", DType::Int64);
  Var labels = matrix("labels");  // one-hot rows
  Function make(const std::string& name, const std::string& cache) {
    Var h = take(emb, ids, 0) * streams.binomial(Shape{6, 1}, 1, 0.9, DType::Float32);
    Var logp = log_softmax(dot(h, w));
    Var cost = -mean(sum(labels * logp, 1));
    std::vector<Var> g = grad(cost, {emb, w});
    return function({ids, labels}, {cost}, {{emb, emb - 0.1 * g[0]}, {w, w - 0.1 * g[1]}},
                    {.name = name, .config = {{"device", "cuda"}, {"cache_dir", cache}}});
  }
};

std::string temp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tgc_save_cuda_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::set<std::string> kernel_keys(const std::string& path) {
  const SavedFile f = read_saved_file(path, "saved function");
  std::set<std::string> keys;
  const nlohmann::json manifest = nlohmann::json::parse(f.manifest);  // alive for the loop
  for (const auto& k : manifest.at("kernels")) keys.insert(k.at("key").dump());
  return keys;
}

const Tensor kIds = Tensor::from_vector(std::vector<int64_t>{1, 4, 9, 4, 30, 2});
const Tensor kLabels = Tensor::from_vector(std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0,
                                                               0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0})
                            .reshape({6, 5});

TEST(SaveCuda, ALoadedStepRunsWithoutACompileAndGivesTheSameBits) {
  TGC_REQUIRE_CUDA();
  Net net;
  Function f = net.make("step", temp("cache"));
  f(kIds, kLabels);  // the shared modules are built on a first call
  save(f, temp("step.tgf"));
  EXPECT_GE(kernel_keys(temp("step.tgf")).size(), 10u) << testing::PrintToString(kernel_keys(temp("step.tgf")));
  Function g = load_function(temp("step.tgf"), "", {.config = {{"cache_dir", temp("empty")}}});
  EXPECT_EQ(g.compile_phases().kernels_compiled, 0);
  for (int i = 0; i < 3; ++i) {
    Tensor a = f(kIds, kLabels)[0].to_host(), b = g(kIds, kLabels)[0].to_host();
    EXPECT_EQ(0, std::memcmp(a.raw_data(), b.raw_data(), a.nbytes())) << "step " << i;
  }
  std::filesystem::remove(temp("step.tgf"));
  std::filesystem::remove_all(temp("empty"));
}

TEST(SaveCuda, AFunctionSavedAfterAnotherBuiltTheSharedModulesShipsThemToo) {
  TGC_REQUIRE_CUDA();
  Net net;
  Function first = net.make("first", temp("cache"));
  first(kIds, kLabels);
  save(first, temp("first.tgf"));
  Function second = net.make("second", temp("cache"));
  second(kIds, kLabels);  // finds the row, index and random modules built
  save(second, temp("second.tgf"));
  const std::set<std::string> a = kernel_keys(temp("first.tgf")), b = kernel_keys(temp("second.tgf"));
  // The composites' cubins, the row, index and random units', cuBLASLt's choices.
  EXPECT_GE(a.size(), 10u) << "first: " << testing::PrintToString(a);
  EXPECT_EQ(a, b);
  std::filesystem::remove(temp("first.tgf"));
  std::filesystem::remove(temp("second.tgf"));
}

}  // namespace
}  // namespace tgc
