// cudnn_algo_cache.h: a timed algorithm order read back from the kernel cache as it was
// stored, in a directory a later process reads too; an entry that is not a valid order (an
// algorithm number out of range, a workspace over the cap, a size that is no whole record) is
// a miss, never an algorithm handed to cuDNN. No GPU needed.
#include "backends/cuda/cudnn_algo_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "backends/cuda/cudnn_algo_order.h"

namespace tgc::cuda {
namespace {

struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("tgc-algo-cache-" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(path); std::filesystem::permissions(path, std::filesystem::perms::owner_all); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

KernelCacheKey key(const std::string& problem) {
  return KernelCacheKey{"cudnn", "conv:" + problem, "cuDNN 9.0.0", "test GPU sm_90", "find"};
}

TEST(CudnnAlgoCache, AnOrderReadsBackAsStored) {
  TempDir dir;
  const std::vector<ConvAlgo> order = {{CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_TENSOR_OP_MATH, 4096},
                                       {CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, CUDNN_FMA_MATH, 0}};
  store_conv_algos(dir.path.string(), key("1"), order);
  const auto back = load_conv_algos(dir.path.string(), key("1"), 1);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->size(), 2u);
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ((*back)[i].algo, order[i].algo);
    EXPECT_EQ((*back)[i].math, order[i].math);
    EXPECT_EQ((*back)[i].workspace, order[i].workspace);
  }
  EXPECT_FALSE(load_conv_algos(dir.path.string(), key("2"), 1).has_value()) << "another problem";
}

TEST(CudnnAlgoCache, AnInvalidEntryIsAMiss) {
  TempDir dir;
  // An algorithm number the forward direction does not have, and a workspace over the cap.
  store_conv_algos(dir.path.string(), key("bad-algo"), {{CUDNN_CONVOLUTION_FWD_ALGO_COUNT, CUDNN_DEFAULT_MATH, 0}});
  EXPECT_FALSE(load_conv_algos(dir.path.string(), key("bad-algo"), 0).has_value());
  store_conv_algos(dir.path.string(), key("big"), {{0, CUDNN_DEFAULT_MATH, kMaxConvWorkspaceBytes + 1}});
  EXPECT_FALSE(load_conv_algos(dir.path.string(), key("big"), 0).has_value());
  // More records than the direction has algorithms.
  std::vector<ConvAlgo> many(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT + 1, ConvAlgo{0, CUDNN_DEFAULT_MATH, 0});
  store_conv_algos(dir.path.string(), key("many"), many);
  EXPECT_FALSE(load_conv_algos(dir.path.string(), key("many"), 2).has_value());
}

}  // namespace
}  // namespace tgc::cuda
