// The oneDNN pooling calls (see dnnl_pool.h): the pool family's one TGC_HAVE_DNNL seam.
#include "ops/pool/dnnl_pool.h"

#include <cstdlib>
#include <cstring>

#include "ops/blas/dnnl_gemm.h"
#include "ops/conv/dnnl_call.h"
#include "ops/core/op.h"
#include "runtime/error.h"

namespace tgc {

namespace {

// Right/bottom padding that gives Pool2dParams' output size under oneDNN's floor formula
// (ceil_mode's extra window), or -1 when none does.
int64_t right_pad(const Pool2dParams& p, int64_t in, int i) {
  const int64_t out = p.out_size(in, i);
  const int64_t pr = std::max<int64_t>(p.pad[i], (out - 1) * p.stride[i] + p.kernel[i] - in - p.pad[i]);
  return (in + p.pad[i] + pr - p.kernel[i]) / p.stride[i] + 1 == out ? pr : -1;
}

}  // namespace

bool dnnl_pool_applies(const Pool2dParams& p, const Tensor& x) {
  if (!dnnl_available() || x.dtype() != DType::Float32 || x.ndim() != 4 || x.numel() == 0) return false;
  const ConvAxes a = conv_axes(p.layout);
  const int64_t h = x.shape()[a.h], w = x.shape()[a.w];
  const int64_t rh = right_pad(p, h, 0), rw = right_pad(p, w, 1);
  if (rh < 0 || rw < 0) return false;
  if (p.mode == PoolMode::Avg && p.count_include_pad && (rh != p.pad[0] || rw != p.pad[1])) return false;
  static const bool off = [] {
    const char* v = std::getenv("TGC_DNNL_POOL");
    return v && std::strcmp(v, "0") == 0;
  }();
  return !off;
}

#if TGC_HAVE_DNNL

void dnnl_pool(const Pool2dParams& p, const Tensor& x_in, const Tensor& gy_in, Tensor& out) {
  using dnnl::memory;
  const Tensor x = x_in.contiguous();
  const ConvAxes a = conv_axes(p.layout);
  const int64_t n = x.shape()[0], c = x.shape()[a.c], h = x.shape()[a.h], w = x.shape()[a.w];
  const int64_t oh = p.out_size(h, 0), ow = p.out_size(w, 1);
  auto md = [&](int64_t hh, int64_t ww) {
    if (p.layout == ConvLayout::NCHW)
      return memory::desc({n, c, hh, ww}, memory::data_type::f32, memory::dims{c * hh * ww, hh * ww, ww, 1});
    return memory::desc({n, c, hh, ww}, memory::data_type::f32, memory::dims{hh * ww * c, 1, ww * c, c});
  };
  const memory::desc src = md(h, w), dst = md(oh, ow);
  const dnnl::algorithm alg = p.mode == PoolMode::Max   ? dnnl::algorithm::pooling_max
                              : p.count_include_pad     ? dnnl::algorithm::pooling_avg_include_padding
                                                        : dnnl::algorithm::pooling_avg_exclude_padding;
  const memory::dims strides{p.stride[0], p.stride[1]}, kernel{p.kernel[0], p.kernel[1]},
      pad_l{p.pad[0], p.pad[1]}, pad_r{right_pad(p, h, 0), right_pad(p, w, 1)};
  dnnl::stream s(dnnl_cpu_engine());
  DnnlThreadScope threads;
  try {
    dnnl::pooling_forward::primitive_desc fwd(
        dnnl::pooling_forward::desc(dnnl::prop_kind::forward_training, alg, src, dst, strides, kernel, pad_l, pad_r),
        dnnl_cpu_engine());
    if (!gy_in.defined()) {
      Tensor& y = ensure_output(out, DType::Float32, conv_act_shape(p.layout, n, c, oh, ow));
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, dnnl_memory(src, x)}, {DNNL_ARG_DST, dnnl_memory(dst, y)}};
      if (p.mode == PoolMode::Max) args.emplace(DNNL_ARG_WORKSPACE, memory(fwd.workspace_desc(), dnnl_cpu_engine()));
      dnnl::pooling_forward(fwd).execute(s, args);
      s.wait();
      return;
    }
    const Tensor gy = gy_in.contiguous();
    Tensor& gx = ensure_output(out, DType::Float32, x.shape());
    dnnl::pooling_backward::primitive_desc bwd(
        dnnl::pooling_backward::desc(alg, src, dst, strides, kernel, pad_l, pad_r), dnnl_cpu_engine(), fwd);
    std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, dnnl_memory(dst, gy)}, {DNNL_ARG_DIFF_SRC, dnnl_memory(src, gx)}};
    if (p.mode == PoolMode::Max) {
      // Max's backward reads which element won each window from the forward's workspace.
      memory ws(fwd.workspace_desc(), dnnl_cpu_engine());
      memory y(fwd.dst_desc(), dnnl_cpu_engine());
      dnnl::pooling_forward(fwd).execute(s, {{DNNL_ARG_SRC, dnnl_memory(src, x)}, {DNNL_ARG_DST, y}, {DNNL_ARG_WORKSPACE, ws}});
      args.emplace(DNNL_ARG_WORKSPACE, ws);
    }
    dnnl::pooling_backward(bwd).execute(s, args);
    s.wait();
  } catch (const dnnl::error& e) {
    TGC_INTERNAL_CHECK(false, std::string("oneDNN pooling (") + p.describe() + ") failed: " + e.what());
  }
}

#else

void dnnl_pool(const Pool2dParams&, const Tensor&, const Tensor&, Tensor&) {
  TGC_INTERNAL_CHECK(false, "dnnl_pool: tgc was built without oneDNN");
}

#endif

}  // namespace tgc
