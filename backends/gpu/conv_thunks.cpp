// The conv thunks: each call takes the geometry from the op's own rules (conv_params.h, with
// its errors), the operands' strides along (n, c, h, w) and (o, c, kh, kw) whatever their
// layout, picks the entry (int32 offsets where every operand's reach and the element count
// fit) and launches a grid-stride loop over the result's elements.
#include "backends/gpu/conv_thunks.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>

#include "backends/c_family/render_conv.h"
#include "backends/gpu/process_modules.h"
#include "ops/conv/conv2d.h"
#include "ops/conv/fused_conv2d.h"
#include "runtime/error.h"

namespace tgc::gpu {

namespace {

using cfam::ConvOp;

// Each entry of the conv unit is a module of its own per device and fast-math setting,
// compiled on its first launch and kept for the process.
GpuModule& conv_module(GpuDevice& device, int entry, bool fast_math, const std::string& cache_dir) {
  return process_module(device, "conv", entry * 2 + (fast_math ? 1 : 0), [&] {
    const cfam::Dialect dialect = device.dialect();
    return unit_entry_source("conv", cfam::conv_entry_name(cfam::conv_kernels().at(static_cast<size_t>(entry))),
                             [dialect, entry] { return cfam::render_conv(dialect, entry); }, fast_math, cache_dir);
  });
}

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// A tensor's strides along the kernel's axis order, and its farthest element's offset.
struct Addressed {
  std::array<int64_t, 4> strides{};
  int64_t reach = 0;
};
Addressed addressed(const Tensor& t, const std::array<int, 4>& axes) {
  Addressed a;
  for (int d = 0; d < 4; ++d) {
    a.strides[d] = t.strides()[axes[d]];
    a.reach += std::max<int64_t>(t.shape()[axes[d]] - 1, 0) * std::abs(a.strides[d]);
  }
  return a;
}

struct ConvThunk {
  GpuDevice* device;
  std::shared_ptr<const Op> op;  // for the output shape and the geometry's checks
  ConvOp kind = ConvOp::Forward;
  bool fast_math = false;
  std::string cache_dir;

  void operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    GpuDevice& dev = *device;
    std::vector<Tensor> in;
    for (const Tensor& t : inputs) in.push_back(t.on_host() ? t.to(dev) : t);
    std::vector<Shape> shapes;
    for (const Tensor& t : in) shapes.push_back(t.shape());
    const Shape out_shape = op->infer_shapes(shapes).at(0);  // the op's checks and errors
    const Conv2dParams& p = static_cast<const ConvOpBase&>(*op).params();
    Conv2dGeometry g;
    switch (kind) {
      case ConvOp::GradInput: {
        const Shape* like = in.size() == 3 ? &in[2].shape() : nullptr;
        g = conv_geometry_from_output(p, in[0].shape(), in[1].shape(), like, op->user_name());
        break;
      }
      case ConvOp::GradWeights:
        g = conv_geometry_from_output(p, in[1].shape(), in[2].shape(), &in[0].shape(), op->user_name());
        break;
      default: g = conv_geometry(p, in[0].shape(), in[1].shape(), op->user_name());
    }
    Tensor& out = ensure_output(outputs.at(0), in[0].dtype(), out_shape, dev);
    if (out.numel() == 0) return;

    const ConvAxes ax = conv_axes(p.layout);
    const std::array<int, 4> act{0, ax.c, ax.h, ax.w}, wgt{0, ax.wi, ax.wh, ax.ww};
    // out, a, b in the entry's order, each with its axis order.
    const std::array<const Tensor*, 3> ops{&out, &in[0], &in[1]};
    std::array<std::array<int, 4>, 3> orders{act, act, wgt};  // forward: y, x, w
    if (kind == ConvOp::GradInput) orders = {act, act, wgt};   // dx, dy, w
    if (kind == ConvOp::GradWeights) orders = {wgt, act, act};  // dw, x, dy

    using namespace cfam::convp;
    std::vector<int64_t> blob(cfam::kConvParams, 0);
    const int64_t geometry[] = {g.n,         g.c,         g.h,         g.w,         g.o,       g.kh,
                                g.kw,        g.oh,        g.ow,        p.stride[0], p.stride[1], p.dilation[0],
                                p.dilation[1], g.pad[0],  g.pad[2],    p.groups};
    std::copy(std::begin(geometry), std::end(geometry), blob.begin());
    const GridStride grid = grid_stride(dev.limits(), out.numel());
    bool i32 = out.numel() + grid.blocks * grid.threads <= kInt32Max;  // the loop's index stays below 2^31
    for (int o = 0; o < 3; ++o) {
      const Addressed a = addressed(*ops[o], orders[o]);
      std::copy(a.strides.begin(), a.strides.end(), blob.begin() + strides(o));
      i32 = i32 && a.reach <= kInt32Max;
    }
    std::vector<LaunchArg> args;
    for (const Tensor* t : ops) args.push_back(LaunchArg::operand(t->raw_data(), dtype_size(t->dtype())));
    if (kind == ConvOp::ForwardBias || kind == ConvOp::ForwardBiasRelu) {
      const Tensor& bias = in[2];
      blob[kBiasStride] = bias.strides()[0];
      i32 = i32 && std::max<int64_t>(bias.shape()[0] - 1, 0) * std::abs(bias.strides()[0]) <= kInt32Max;
      args.push_back(LaunchArg::operand(bias.raw_data(), dtype_size(bias.dtype())));
    }
    const int entry = cfam::conv_entry({kind, out.dtype(), i32});
    TGC_INTERNAL_CHECK(entry >= 0, "no conv entry for " + std::string(dtype_name(out.dtype())));
    args.push_back(LaunchArg::value(blob.data(), blob.size() * sizeof(int64_t)));
    conv_module(dev, entry, fast_math, cache_dir).launch(0, grid.blocks, grid.threads, 0, args);
  }
};

}  // namespace

bool is_conv_op(const Node& node) {
  const Op& op = node.op();
  return dynamic_cast<const Conv2d*>(&op) || dynamic_cast<const FusedConv2d*>(&op) ||
         dynamic_cast<const Conv2dGradInput*>(&op) || dynamic_cast<const Conv2dGradWeights*>(&op);
}

ThunkFn make_conv_thunk(GpuDevice& device, const Node& node, const Config& config) {
  ConvThunk t{&device, node.op_ptr(), ConvOp::Forward, config.fast_math, config.cache_dir};
  const Op& op = node.op();
  if (const auto* f = dynamic_cast<const FusedConv2d*>(&op)) t.kind = f->relu() ? ConvOp::ForwardBiasRelu : ConvOp::ForwardBias;
  else if (dynamic_cast<const Conv2dGradInput*>(&op)) t.kind = ConvOp::GradInput;
  else if (dynamic_cast<const Conv2dGradWeights*>(&op)) t.kind = ConvOp::GradWeights;
  else TGC_INTERNAL_CHECK(dynamic_cast<const Conv2d*>(&op), "conv thunk for " + op.name());
  return t;
}

}  // namespace tgc::gpu
