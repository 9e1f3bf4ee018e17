// Timed convolution algorithm choices in the kernel cache (see cudnn_algo_cache.h).
#include "backends/cuda/cudnn_algo_cache.h"

#include <cstring>

#include "backends/cuda/cudnn_algo_order.h"
#include "runtime/kernel_cache.h"

namespace tgc::cuda {

namespace {

// One algorithm in an entry: the algorithm, the math type, the workspace bytes.
struct Record {
  int32_t algo;
  int32_t math;
  uint64_t workspace;
};

int algo_count(int direction) {
  return direction == 0   ? static_cast<int>(CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
         : direction == 1 ? static_cast<int>(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)
                          : static_cast<int>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
}

}  // namespace

KernelCacheKey conv_algo_cache_key(const ConvAlgoKey& key, const CudaDevice& device) {
  KernelCacheKey k;
  k.backend = "cudnn";
  for (size_t i = 0; i < key.size(); ++i) k.kernel += (i ? "," : "conv:") + std::to_string(key[i]);
  k.compiler = "cuDNN " + cudnn_version_str(static_cast<size_t>(cudnn_api().GetVersion()));
  k.target = device.info().name + " sm_" + std::to_string(device.arch());
  k.flags = "find";
  return k;
}

std::optional<std::vector<ConvAlgo>> load_conv_algos(const std::string& cache_dir, const KernelCacheKey& key,
                                                     int direction) {
  const auto blob = kernel_cache_for(cache_dir).get(key);
  if (!blob || !*blob || (*blob)->empty() || (*blob)->size() % sizeof(Record) != 0 ||
      (*blob)->size() / sizeof(Record) > static_cast<size_t>(algo_count(direction)))
    return std::nullopt;
  std::vector<ConvAlgo> out;
  for (size_t at = 0; at < (*blob)->size(); at += sizeof(Record)) {
    Record r;
    std::memcpy(&r, (*blob)->data() + at, sizeof r);
    const bool math_ok = r.math == CUDNN_DEFAULT_MATH || r.math == CUDNN_TENSOR_OP_MATH ||
                         r.math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION || r.math == CUDNN_FMA_MATH;
    if (r.algo < 0 || r.algo >= algo_count(direction) || !math_ok || r.workspace > kMaxConvWorkspaceBytes)
      return std::nullopt;
    out.push_back(ConvAlgo{r.algo, static_cast<cudnnMathType_t>(r.math), static_cast<size_t>(r.workspace)});
  }
  return out;
}

void store_conv_algos(const std::string& cache_dir, const KernelCacheKey& key, const std::vector<ConvAlgo>& algos) {
  if (algos.empty()) return;
  KernelBlob blob(algos.size() * sizeof(Record));
  for (size_t i = 0; i < algos.size(); ++i) {
    const Record r{algos[i].algo, static_cast<int32_t>(algos[i].math), algos[i].workspace};
    std::memcpy(blob.data() + i * sizeof r, &r, sizeof r);
  }
  kernel_cache_for(cache_dir).put(key, std::move(blob));
}

}  // namespace tgc::cuda
