// Which convolution and pooling nodes cuDNN runs, why it declines the others, and their thunks.
#include "backends/cuda/cudnn_rules.h"

#include "backends/cuda/cudnn_library.h"
#include "backends/cuda/cudnn_thunks.h"
#include "ops/conv/conv2d.h"
#include "ops/pool/pool2d.h"

namespace tgc::cuda {

namespace {

bool is_conv(const Node& n) { return dynamic_cast<const ConvOpBase*>(&n.op()) != nullptr; }
bool is_pool(const Node& n) {
  return dynamic_cast<const Pool2d*>(&n.op()) != nullptr || dynamic_cast<const Pool2dGrad*>(&n.op()) != nullptr;
}

// Shared by both rules: cuDNN loaded, float operands of one dtype.
std::string common_declines(const Node& n) {
  const CudnnStatus& st = cudnn_status();
  if (!st.available) return "cuDNN not found: " + st.reason;
  const DType dt = n.output(0)->type().dtype;
  if (dt != DType::Float32 && dt != DType::Float64)
    return "cuDNN takes float32 and float64 operands, not " + std::string(dtype_name(dt));
  for (const auto& in : n.inputs())
    if (in->type().dtype != dt) return "cuDNN takes operands of one dtype";
  return "";
}

std::string conv_declines(const Node& n) { return common_declines(n); }

// An average that counts padding, in ceil_mode, over a last window reaching past the input and
// its padding: PyTorch divides by the part of the window inside them, cuDNN by the whole window.
bool average_divisor_differs(const Pool2dParams& p, const std::vector<int64_t>& x_shape) {
  if (p.mode != PoolMode::Avg || !p.count_include_pad || !p.ceil_mode) return false;
  const ConvAxes a = conv_axes(p.layout);
  for (int i = 0; i < 2; ++i) {
    const int64_t in = x_shape.at(static_cast<size_t>(i == 0 ? a.h : a.w));
    if (in == kUnknownDim) return true;  // not known when compiled: cannot promise
    const int64_t out = p.out_size(in, i);
    if (out > 0 && (out - 1) * p.stride[i] - p.pad[i] + p.kernel[i] > in + p.pad[i]) return true;
  }
  return false;
}

std::string pool_declines(const Node& n) {
  if (std::string why = common_declines(n); !why.empty()) return why;
  const auto* f = dynamic_cast<const Pool2d*>(&n.op());
  const Pool2dParams& p = f ? f->params() : static_cast<const Pool2dGrad&>(n.op()).params();
  if (average_divisor_differs(p, n.inputs()[0]->type().shape))
    return "avg_pool2d with ceil_mode and count_include_pad over a last window past the padding (or an input size "
           "unknown when compiled): cuDNN divides by the whole window, PyTorch's rule by its part inside the padding";
  return "";
}

ThunkFn make_conv(gpu::GpuDevice& d, const Node& n, const Config& c) {
  return make_cudnn_conv_thunk(static_cast<CudaDevice&>(d), n, c);
}
ThunkFn make_pool(gpu::GpuDevice& d, const Node& n, const Config& c) {
  return make_cudnn_pool_thunk(static_cast<CudaDevice&>(d), n, c);
}

// Not self-contained: the calls share the device's handle. A domain of their own, so they run
// beside cuBLAS calls and collectives in a recorded call.
const gpu::DeviceOpRule kRules[] = {
    {"convolution (cuDNN)", is_conv, conv_declines, make_conv, false, kCudnnDomain},
    {"pooling (cuDNN)", is_pool, pool_declines, make_pool, false, kCudnnDomain},
};

}  // namespace

std::span<const gpu::DeviceOpRule> cudnn_op_rules() { return kRules; }

}  // namespace tgc::cuda
