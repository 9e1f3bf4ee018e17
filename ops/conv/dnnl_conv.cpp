// The oneDNN convolution calls (see dnnl_conv.h): the one file of the conv family with a
// TGC_HAVE_DNNL seam. Primitives are made per call (oneDNN caches them by descriptor).
#include "ops/conv/dnnl_conv.h"

#include <cstdlib>
#include <cstring>

#include "ops/blas/dnnl_gemm.h"
#include "ops/core/op.h"
#include "runtime/error.h"

#include "ops/conv/dnnl_call.h"

namespace tgc {

bool dnnl_conv_enabled(DType dtype) {
  if (!dnnl_available() || dtype != DType::Float32) return false;
  static const bool off = [] {
    const char* v = std::getenv("TGC_DNNL_CONV");
    return v && std::strcmp(v, "0") == 0;
  }();
  return !off;
}

bool dnnl_conv_applies(DType dtype, const Conv2dGeometry& g) {
  if (g.n == 0 || g.c == 0 || g.o == 0 || g.oh <= 0 || g.ow <= 0) return false;
  return dnnl_conv_enabled(dtype);
}

#if TGC_HAVE_DNNL
namespace {

using dnnl::memory;
using dims = memory::dims;

// An activation (N, C, H, W) stored C-contiguously in the layout.
memory::desc act_md(ConvLayout l, int64_t n, int64_t c, int64_t h, int64_t w) {
  if (l == ConvLayout::NCHW) return {{n, c, h, w}, memory::data_type::f32, {c * h * w, h * w, w, 1}};
  return {{n, c, h, w}, memory::data_type::f32, {h * w * c, 1, w * c, c}};
}

// The weights (O, C/groups, KH, KW) of the layout (OIHW or OHWI), with a leading groups dim
// when groups > 1.
memory::desc weights_md(const Conv2dParams& p, const Conv2dGeometry& g) {
  const int64_t G = p.groups, og = g.o / G, ig = g.c / G, kh = g.kh, kw = g.kw;
  const bool nchw = p.layout == ConvLayout::NCHW;
  // Strides of (o, i, kh, kw) in the stored order.
  const int64_t so = ig * kh * kw, si = nchw ? kh * kw : 1, sh = nchw ? kw : kw * ig, sw = nchw ? 1 : ig;
  if (G == 1) return {{g.o, ig, kh, kw}, memory::data_type::f32, {so, si, sh, sw}};
  return {{G, og, ig, kh, kw}, memory::data_type::f32, {og * so, so, si, sh, sw}};
}

// The user's memory descs (the tensors as they are), and the descs the primitive is asked for
// (`*_any`). The weights' layout is left to oneDNN (`any`: blocked; given OHWI it takes its
// reference loops). So are NCHW activations' (given NCHW it takes im2col and a product,
// gemm:jit), reordered in and out per call as PyTorch's oneDNN path does. NHWC activations
// are given as they are (`plain_nhwc`): its brgconv and jit kernels read and write them with no
// reorder (ResNet-18's channels-last step at batch 64 on the 2-core machine: 1.69 -> 1.29-1.37
// s; docs/performance.md, run 8), unless that leaves a reference kernel (dnnl_conv retries
// with `any`).
struct Descs {
  memory::desc src, wei, dst, bias;
  dims strides, dilates, pad_l, pad_r;
  memory::desc src_any, wei_any, dst_any;
};

Descs descs(const Conv2dParams& p, const Conv2dGeometry& g, bool with_bias, bool plain_nhwc) {
  Descs d{act_md(p.layout, g.n, g.c, g.h, g.w),
          weights_md(p, g),
          act_md(p.layout, g.n, g.o, g.oh, g.ow),
          with_bias ? memory::desc({g.o}, memory::data_type::f32, memory::format_tag::a) : memory::desc(),
          {p.stride[0], p.stride[1]},
          {p.dilation[0] - 1, p.dilation[1] - 1},
          {g.pad[0], g.pad[2]},
          {g.pad[1], g.pad[3]},
          {},
          {},
          {}};
  const bool plain = plain_nhwc && p.layout == ConvLayout::NHWC;
  d.src_any = plain ? d.src : memory::desc(d.src.dims(), memory::data_type::f32, memory::format_tag::any);
  d.wei_any = memory::desc(d.wei.dims(), memory::data_type::f32, memory::format_tag::any);
  d.dst_any = plain ? d.dst : memory::desc(d.dst.dims(), memory::data_type::f32, memory::format_tag::any);
  return d;
}

dnnl::convolution_forward::primitive_desc forward_pd(const Descs& d, bool relu) {
  dnnl::primitive_attr attr;
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  const dnnl::convolution_forward::desc desc =
      d.bias.is_zero()
          ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                            d.src_any, d.wei_any, d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r)
          : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                            d.src_any, d.wei_any, d.bias, d.dst_any, d.strides, d.dilates, d.pad_l,
                                            d.pad_r);
  return {desc, attr, dnnl_cpu_engine()};
}

// `user` in the layout `want`: itself when they agree, else a reordered copy.
memory in_layout(const memory& user, const memory::desc& want, dnnl::stream& s) {
  if (user.get_desc() == want) return user;
  memory m(want, dnnl_cpu_engine());
  dnnl::reorder(user, m).execute(s, const_cast<memory&>(user), m);
  return m;
}

// The result's memory in the layout `have` the primitive writes: the user's own when they agree.
memory out_layout(const memory& user, const memory::desc& have) {
  return user.get_desc() == have ? user : memory(have, dnnl_cpu_engine());
}

// After the primitive ran: its result copied into the user's memory, unless it wrote there.
void to_user(const memory& result, const memory& user, dnnl::stream& s) {
  if (result != user) dnnl::reorder(result, user).execute(s, const_cast<memory&>(result), const_cast<memory&>(user));
}

// One call with the descs `d`; false (and nothing run) where `allow_ref` is false and oneDNN
// would take its reference loops for them.
bool run_conv(ConvDirection dir, const Descs& d, const Tensor& a, const Tensor& b, const Tensor& bias, bool relu,
              Tensor& o, bool allow_ref) {
  auto reference = [&](const std::string& impl) { return !allow_ref && impl.rfind("ref", 0) == 0; };
  dnnl::stream s(dnnl_cpu_engine());
  DnnlThreadScope threads;
  const auto fwd = forward_pd(d, dir == ConvDirection::Forward && relu);
  switch (dir) {
    case ConvDirection::Forward: {
      if (reference(fwd.impl_info_str())) return false;
      const memory user = dnnl_memory(d.dst, o), dst = out_layout(user, fwd.dst_desc());
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, in_layout(dnnl_memory(d.src, a), fwd.src_desc(), s)},
                                           {DNNL_ARG_WEIGHTS, in_layout(dnnl_memory(d.wei, b), fwd.weights_desc(), s)},
                                           {DNNL_ARG_DST, dst}};
      if (bias.defined()) args.emplace(DNNL_ARG_BIAS, dnnl_memory(d.bias, bias));
      dnnl::convolution_forward(fwd).execute(s, args);
      to_user(dst, user, s);
      break;
    }
    case ConvDirection::GradInput: {
      dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, d.src_any, d.wei_any,
                                                 d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r);
      dnnl::convolution_backward_data::primitive_desc pd(desc, dnnl_cpu_engine(), fwd);
      if (reference(pd.impl_info_str())) return false;
      const memory user = dnnl_memory(d.src, o), diff_src = out_layout(user, pd.diff_src_desc());
      dnnl::convolution_backward_data(pd).execute(
          s, {{DNNL_ARG_DIFF_DST, in_layout(dnnl_memory(d.dst, a), pd.diff_dst_desc(), s)},
              {DNNL_ARG_WEIGHTS, in_layout(dnnl_memory(d.wei, b), pd.weights_desc(), s)},
              {DNNL_ARG_DIFF_SRC, diff_src}});
      to_user(diff_src, user, s);
      break;
    }
    case ConvDirection::GradWeights: {
      dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct, d.src_any, d.wei_any,
                                                    d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r);
      dnnl::convolution_backward_weights::primitive_desc pd(desc, dnnl_cpu_engine(), fwd);
      if (reference(pd.impl_info_str())) return false;
      const memory user = dnnl_memory(d.wei, o), dw = out_layout(user, pd.diff_weights_desc());
      dnnl::convolution_backward_weights(pd).execute(
          s, {{DNNL_ARG_SRC, in_layout(dnnl_memory(d.src, a), pd.src_desc(), s)},
              {DNNL_ARG_DIFF_DST, in_layout(dnnl_memory(d.dst, b), pd.diff_dst_desc(), s)},
              {DNNL_ARG_DIFF_WEIGHTS, dw}});
      to_user(dw, user, s);
      break;
    }
  }
  s.wait();
  return true;
}

}  // namespace

void dnnl_conv(ConvDirection dir, const Conv2dParams& p, const Conv2dGeometry& g, const Tensor& a_in,
               const Tensor& b_in, const Tensor& bias_in, bool relu, Tensor& out) {
  const Tensor a = a_in.contiguous(), b = b_in.contiguous();
  const Tensor bias = bias_in.defined() ? bias_in.contiguous() : Tensor();
  const bool with_bias = dir == ConvDirection::Forward && bias.defined();
  const Shape out_shape = dir == ConvDirection::Forward     ? conv_act_shape(p.layout, g.n, g.o, g.oh, g.ow)
                          : dir == ConvDirection::GradInput ? conv_act_shape(p.layout, g.n, g.c, g.h, g.w)
                                                            : conv_weight_shape(p.layout, g.o, g.c / p.groups, g.kh, g.kw);
  Tensor& o = ensure_output(out, DType::Float32, out_shape);
  try {
    // NHWC activations as they are, unless oneDNN has only its reference loops for that (Descs).
    if (p.layout == ConvLayout::NHWC && run_conv(dir, descs(p, g, with_bias, true), a, b, bias, relu, o, false)) return;
    run_conv(dir, descs(p, g, with_bias, false), a, b, bias, relu, o, true);
  } catch (const dnnl::error& e) {
    TGC_INTERNAL_CHECK(false, std::string("oneDNN convolution (") + p.describe() + ") failed: " + e.what());
  }
}

#else

void dnnl_conv(ConvDirection, const Conv2dParams&, const Conv2dGeometry&, const Tensor&, const Tensor&, const Tensor&,
               bool, Tensor&) {
  TGC_INTERNAL_CHECK(false, "dnnl_conv: tgc was built without oneDNN");
}

#endif

}  // namespace tgc
