// The convolution algorithms cuDNN's timing chose for a problem (cudnnFind*Ex, run by
// cudnn_conv_thunk.cpp on the first call that meets the problem), kept in the kernel cache so
// that later processes on the same GPU and cuDNN skip the timing. An entry is the candidates
// in the order to try them; the directory is untrusted, so an entry that does not read back
// as valid algorithms is a miss. Needs cudnn.h (TGC_HAVE_CUDNN_HEADERS).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backends/cuda/cudnn_context.h"
#include "runtime/kernel_cache.h"

namespace tgc::cuda {

// The entry's key: the problem (`key`), the device's model and arch, cuDNN's version.
KernelCacheKey conv_algo_cache_key(const ConvAlgoKey& key, const CudaDevice& device);

// The algorithms stored for `key` in the cache of `cache_dir`; nullopt when absent or invalid
// (an algorithm number out of range for `direction`, a workspace over the cap).
std::optional<std::vector<ConvAlgo>> load_conv_algos(const std::string& cache_dir, const KernelCacheKey& key,
                                                     int direction);
void store_conv_algos(const std::string& cache_dir, const KernelCacheKey& key, const std::vector<ConvAlgo>& algos);

}  // namespace tgc::cuda
