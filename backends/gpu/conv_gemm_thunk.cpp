// The convolutions through the API's convolution-as-GEMM (see conv_gemm_thunk.h): the forward
// pass as one batched call, the gradients image by image as columns and a product.
#include "backends/gpu/conv_gemm_thunk.h"

#include "backends/gpu/conv_thunks.h"
#include "backends/gpu/device_copy.h"
#include "ops/conv/conv2d.h"
#include "ops/conv/fused_conv2d.h"

namespace tgc::gpu {

namespace {

enum class Kind { Forward, GradInput, GradWeights };

// The output size the library computes for an input extent (floor division, as conv2d's).
int64_t library_out(int64_t in, int64_t pad, int64_t dilation, int64_t k, int64_t stride) {
  return (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

// The data of image n of a dense batch whose images hold `size` elements each.
void* image(const Tensor& t, int64_t n, int64_t size) { return t.view({size}, {1}, t.offset() + n * size).raw_data(); }

struct ConvGemmThunk {
  GpuDevice* dev;
  std::shared_ptr<const ConvOpBase> op;
  Kind kind;
  std::shared_ptr<BlasLibrary> lib;
  ThunkFn direct;

  void operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    std::vector<Tensor> in;
    for (const Tensor& t : inputs) in.push_back(t.on_host() ? t.to(*dev) : t);
    const Conv2dParams& p = op->params();
    // The geometry as the direct kernel reads it (with the op's errors).
    Conv2dGeometry g;
    if (kind == Kind::GradInput) {
      g = conv_geometry_from_output(p, in[0].shape(), in[1].shape(), in.size() > 2 ? &in[2].shape() : nullptr,
                                    op->user_name());
    } else if (kind == Kind::GradWeights) {
      g = conv_geometry_from_output(p, in[1].shape(), in[2].shape(), &in[0].shape(), op->user_name());
    } else {
      g = conv_geometry(p, in[0].shape(), in[1].shape(), op->user_name());
    }
    // What the library cannot describe: padding that differs between the sides, an output
    // size other than its own (conv_transpose2d's output padding), no channel.
    if (g.pad[0] != g.pad[1] || g.pad[2] != g.pad[3] || g.c == 0 || g.o == 0 ||
        library_out(g.h, g.pad[0], p.dilation[0], g.kh, p.stride[0]) != g.oh ||
        library_out(g.w, g.pad[2], p.dilation[1], g.kw, p.stride[1]) != g.ow)
      return direct(inputs, outputs);
    std::vector<Shape> shapes;
    for (const Tensor& t : in) shapes.push_back(t.shape());
    const DType dt = in[0].dtype();
    Tensor& out = ensure_output(outputs.at(0), dt, op->infer_shapes(shapes).at(0), *dev);
    if (out.numel() == 0) return;
    const ConvGemmShape s{g.n, g.c, g.h, g.w, g.o, g.kh, g.kw, g.pad[0], g.pad[2],
                          p.stride[0], p.stride[1], p.dilation[0], p.dilation[1]};
    const int64_t ckk = g.c * g.kh * g.kw, ohw = g.oh * g.ow, chw = g.c * g.h * g.w, out_image = g.o * ohw;
    bool done = false;
    if (kind == Kind::Forward) {
      const Tensor x = contiguous_on_device(*dev, in[0]), w = contiguous_on_device(*dev, in[1]);
      done = lib->conv2d(dt, s, x.raw_data(), w.raw_data(), out.raw_data());
    } else if (kind == Kind::GradInput) {
      // Per image: columns = w^T (ckk x o) @ dy (o x ohw), then summed back into dx.
      const Tensor dy = contiguous_on_device(*dev, in[0]), w = contiguous_on_device(*dev, in[1]);
      const Tensor col = Tensor::empty(dt, {ckk, ohw}, *dev);
      dev->fill_zero(out.raw_data(), out.nbytes());  // CLBlast's Col2im adds into the image
      for (int64_t n = 0; n < g.n; ++n) {
        lib->gemm(dt, ckk, ohw, g.o, 1, {w.raw_data(), true, ckk}, {image(dy, n, out_image), false, ohw}, 0,
                  col.raw_data(), ohw);
        done = lib->col2im(dt, s, col.raw_data(), image(out, n, chw));
        if (!done) break;
      }
    } else {
      // Per image: dw (o x ckk) += dy (o x ohw) @ columns^T (ohw x ckk).
      const Tensor x = contiguous_on_device(*dev, in[0]), dy = contiguous_on_device(*dev, in[1]);
      const Tensor col = Tensor::empty(dt, {ckk, ohw}, *dev);
      for (int64_t n = 0; n < g.n; ++n) {
        done = lib->im2col(dt, s, image(x, n, chw), col.raw_data());
        if (!done) break;
        lib->gemm(dt, g.o, ckk, ohw, 1, {image(dy, n, out_image), false, ohw}, {col.raw_data(), true, ohw},
                  n == 0 ? 0 : 1, out.raw_data(), ckk);
      }
    }
    if (!done) direct(inputs, outputs);  // a library without these calls (the first one refused)
  }
};

}  // namespace

bool conv_gemm_covers(const Node& node) {
  const auto* c = dynamic_cast<const ConvOpBase*>(&node.op());
  if (!c || dynamic_cast<const FusedConv2d*>(c) || c->params().layout != ConvLayout::NCHW || c->params().groups != 1)
    return false;
  const DType dt = node.output_raw(0)->type().dtype;
  for (const auto& v : node.inputs())
    if (v->type().dtype != dt) return false;
  return dt == DType::Float32 || dt == DType::Float64;
}

ThunkFn make_conv_gemm_thunk(GpuDevice& device, const Node& node, const Config& config,
                             std::unique_ptr<BlasLibrary> library) {
  ConvGemmThunk t{&device, std::dynamic_pointer_cast<const ConvOpBase>(node.op_ptr()), Kind::Forward,
                  std::shared_ptr<BlasLibrary>(std::move(library)), make_conv_thunk(device, node, config)};
  TGC_INTERNAL_CHECK(t.op != nullptr, "conv-as-GEMM thunk for " + node.op().name());
  if (dynamic_cast<const Conv2dGradInput*>(t.op.get())) t.kind = Kind::GradInput;
  if (dynamic_cast<const Conv2dGradWeights*>(t.op.get())) t.kind = Kind::GradWeights;
  return t;
}

}  // namespace tgc::gpu
