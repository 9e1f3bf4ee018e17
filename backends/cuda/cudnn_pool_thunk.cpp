// The pooling thunks through cuDNN. Windows, padding and divisors are PyTorch's
// (ops/pool/pool2d.h), which cuDNN's modes give: max with NaN propagated, average with or
// without the padding counted. ceil_mode needs no padding of ours: cuDNN takes the output's
// extent from its descriptor and clips each window to the input and its padding, so a last
// window that starts inside them is pooled over what it covers; the one case where PyTorch's
// divisor differs from cuDNN's (an average counting padding over such a window) is declined
// by the rule (cudnn_rules.cpp). Pool2dGrad gets x and dy; cuDNN's backward also reads the
// pooled values, which the thunk makes again with a forward call into scratch memory.
#include <memory>

#include "backends/cuda/cudnn_context.h"
#include "backends/cuda/cudnn_thunks.h"
#include "backends/gpu/device_copy.h"
#include "ops/pool/pool2d.h"
#include "runtime/error.h"

namespace tgc::cuda {

namespace {

cudnnPoolingMode_t mode_of(const Pool2dParams& p) {
  // The deterministic max: the same bits on every run (its forward is the plain max's).
  if (p.mode == PoolMode::Max) return CUDNN_POOLING_MAX_DETERMINISTIC;
  return p.count_include_pad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
}

struct PoolThunk {
  CudaDevice* device;
  Pool2dParams params;
  bool backward;

  void operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    const Pool2dParams& p = params;
    const Tensor x = gpu::contiguous_on_device(*device, inputs[0]);
    const DType dt = x.dtype();
    const ConvAxes a = conv_axes(p.layout);
    const int64_t n = x.shape()[0], c = x.shape()[a.c], h = x.shape()[a.h], w = x.shape()[a.w];
    const int64_t oh = p.out_size(h, 0), ow = p.out_size(w, 1);
    Tensor& out = ensure_output(outputs[0], dt, backward ? x.shape() : conv_act_shape(p.layout, n, c, oh, ow), *device);
    if (out.numel() == 0) return;
    if (oh <= 0 || ow <= 0) {  // no window: nothing flows back
      device->fill_zero(out.raw_data(), out.nbytes());
      return;
    }
    CudnnContext& ctx = cudnn_context(*device);
    const CudnnApi& api = cudnn_api();
    DeviceGuard guard(device->ordinal());
    std::lock_guard<std::mutex> lock(ctx.mutex);
    PoolDesc pd;
    TGC_CUDNN_CHECK(api.SetPooling2dDescriptor(pd.get(), mode_of(p), CUDNN_PROPAGATE_NAN, static_cast<int>(p.kernel[0]),
                                               static_cast<int>(p.kernel[1]), static_cast<int>(p.pad[0]),
                                               static_cast<int>(p.pad[1]), static_cast<int>(p.stride[0]),
                                               static_cast<int>(p.stride[1])));
    TensorDesc xd, yd;
    xd.set_dense(dt, p.layout, n, c, h, w);
    yd.set_dense(dt, p.layout, n, c, oh, ow);
    const Scalars s(dt);
    if (!backward) {
      TGC_CUDNN_CHECK(
          api.PoolingForward(ctx.handle, pd.get(), s.one(), xd.get(), x.raw_data(), s.zero(), yd.get(), out.raw_data()));
      return;
    }
    const Tensor dy = gpu::contiguous_on_device(*device, inputs[1]);
    const Tensor y = Tensor::empty(dt, conv_act_shape(p.layout, n, c, oh, ow), *device);
    TGC_CUDNN_CHECK(
        api.PoolingForward(ctx.handle, pd.get(), s.one(), xd.get(), x.raw_data(), s.zero(), yd.get(), y.raw_data()));
    TGC_CUDNN_CHECK(api.PoolingBackward(ctx.handle, pd.get(), s.one(), yd.get(), y.raw_data(), yd.get(), dy.raw_data(),
                                        xd.get(), x.raw_data(), s.zero(), xd.get(), out.raw_data()));
  }
};

}  // namespace

ThunkFn make_cudnn_pool_thunk(CudaDevice& device, const Node& node, const Config&) {
  cudnn_context(device);  // the handle now, inside function(), not in a call being recorded
  if (const auto* f = dynamic_cast<const Pool2d*>(&node.op())) return PoolThunk{&device, f->params(), false};
  const auto* g = dynamic_cast<const Pool2dGrad*>(&node.op());
  TGC_INTERNAL_CHECK(g != nullptr, "cuDNN pooling thunk for " + node.op().name());
  return PoolThunk{&device, g->params(), true};
}

}  // namespace tgc::cuda
