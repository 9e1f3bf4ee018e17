// The forward convolution through the API's convolution-as-GEMM (see conv_gemm_thunk.h).
#include "backends/gpu/conv_gemm_thunk.h"

#include "backends/gpu/conv_thunks.h"
#include "backends/gpu/device_copy.h"
#include "ops/conv/conv2d.h"

namespace tgc::gpu {

bool conv_gemm_covers(const Node& node) {
  const auto* c = dynamic_cast<const Conv2d*>(&node.op());
  if (!c || c->params().layout != ConvLayout::NCHW || c->params().groups != 1) return false;
  const DType dt = node.output_raw(0)->type().dtype;
  for (const auto& v : node.inputs())
    if (v->type().dtype != dt) return false;
  return dt == DType::Float32 || dt == DType::Float64;
}

ThunkFn make_conv_gemm_thunk(GpuDevice& device, const Node& node, const Config& config,
                             std::unique_ptr<BlasLibrary> library) {
  ThunkFn direct = make_conv_thunk(device, node, config);
  std::shared_ptr<BlasLibrary> lib(std::move(library));
  auto op = std::static_pointer_cast<const Conv2d>(node.op_ptr());
  GpuDevice* dev = &device;
  return [dev, op, lib, direct](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Tensor x = inputs.at(0).on_host() ? inputs[0].to(*dev) : inputs[0];
    const Tensor w = inputs.at(1).on_host() ? inputs[1].to(*dev) : inputs[1];
    const Conv2dParams& p = op->params();
    const Conv2dGeometry g = conv_geometry(p, x.shape(), w.shape(), op->user_name());  // the op's errors
    if (g.pad[0] != g.pad[1] || g.pad[2] != g.pad[3] || g.c == 0) return direct(inputs, outputs);
    const Shape out_shape = op->infer_shapes({x.shape(), w.shape()}).at(0);
    Tensor& out = ensure_output(outputs.at(0), x.dtype(), out_shape, *dev);
    if (out.numel() == 0) return;
    const ConvGemmShape s{g.n, g.c, g.h, g.w, g.o, g.kh, g.kw, g.pad[0], g.pad[2],
                          p.stride[0], p.stride[1], p.dilation[0], p.dilation[1]};
    const Tensor xd = contiguous_on_device(*dev, x), wd = contiguous_on_device(*dev, w);
    if (!lib->conv2d(x.dtype(), s, xd.raw_data(), wd.raw_data(), out.raw_data())) direct(inputs, outputs);
  };
}

}  // namespace tgc::gpu
