// The cuDNN thunks in a build without cudnn.h: cudnn_rules.cpp declines every convolution and
// pooling node there (cudnn_status() says why), so these are never reached.
#include "backends/cuda/cudnn_thunks.h"
#include "runtime/error.h"

namespace tgc::cuda {

ThunkFn make_cudnn_conv_thunk(CudaDevice&, const Node& node, const Config&) {
  TGC_INTERNAL_CHECK(false, "cuDNN thunk for " + node.op().name() + " in a build without cuDNN headers");
  return {};
}

ThunkFn make_cudnn_pool_thunk(CudaDevice& device, const Node& node, const Config& config) {
  return make_cudnn_conv_thunk(device, node, config);
}

}  // namespace tgc::cuda
