// cudnn_algo_order.h: the candidates that fit the workspace cap, in cuDNN's order; with
// deterministic (tgc's default) the deterministic ones first and the others after, without it
// cuDNN's order as it is. Perf records made here: no GPU needed.
#include "backends/cuda/cudnn_algo_order.h"

#include <gtest/gtest.h>

namespace tgc::cuda {
namespace {

cudnnConvolutionBwdFilterAlgoPerf_t perf(cudnnConvolutionBwdFilterAlgo_t algo, bool deterministic, size_t memory,
                                         cudnnStatus_t status = CUDNN_STATUS_SUCCESS) {
  cudnnConvolutionBwdFilterAlgoPerf_t p{};
  p.algo = algo;
  p.status = status;
  p.determinism = deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
  p.memory = memory;
  p.mathType = CUDNN_DEFAULT_MATH;
  return p;
}

std::vector<int> algos(const std::vector<ConvAlgo>& order) {
  std::vector<int> out;
  for (const ConvAlgo& a : order) out.push_back(a.algo);
  return out;
}

TEST(CudnnAlgoOrder, DeterministicFirstUnlessTurnedOff) {
  // cuDNN's order: a fast non-deterministic one, one over the workspace cap, a failed query,
  // two deterministic ones, another non-deterministic one.
  const cudnnConvolutionBwdFilterAlgoPerf_t records[] = {
      perf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, false, 0),
      perf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, true, kMaxConvWorkspaceBytes + 1),
      perf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, true, 16, CUDNN_STATUS_NOT_SUPPORTED),
      perf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, true, 1024),
      perf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING, true, 4096),
      perf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3, false, 64),
  };
  EXPECT_EQ(algos(conv_algorithm_order(records, 6, true)),
            (std::vector<int>{CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING,
                              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3}));
  EXPECT_EQ(algos(conv_algorithm_order(records, 6, false)),
            (std::vector<int>{CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
                              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3}));
  const std::vector<ConvAlgo> order = conv_algorithm_order(records, 6, true);
  EXPECT_EQ(order[0].workspace, 1024u);  // the records' workspace and math go with them
  EXPECT_EQ(order[0].math, CUDNN_DEFAULT_MATH);
  EXPECT_TRUE(conv_algorithm_order(records, 0, true).empty());
}

}  // namespace
}  // namespace tgc::cuda
