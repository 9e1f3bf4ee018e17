// The convolution thunks through cuDNN's legacy API. Every size comes from conv_geometry
// (ops/conv/conv_params.h); operands are made dense in their layout (a no-op for the usual
// contiguous tensors) and described to cuDNN as they are, NCHW or NHWC, so no transpose is
// made. cuDNN pads both sides of an axis alike: padding that differs (PyTorch's "same" with
// an even kernel, explicit (top, bottom, left, right)) is made by copying the input into a
// zeroed larger tensor, cuDNN padding the common part. Algorithms are chosen once per problem
// and device by timing them (cudnnFind*Ex, on the first call that meets the problem, which is
// never a call being recorded: calls are recorded from the second with the same shapes), the
// choice kept in the kernel cache for later processes (cudnn_algo_cache.h); cuDNN's heuristics
// (the _v7 queries, which run nothing) size the timing's workspace and serve a problem first met
// while recording. They are tried in order until one runs: deterministic ones first unless
// config deterministic is off (cudnn_algo_order.h), no TF32 unless config cuda_tf32 asks for it.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cuda/cudnn_algo_cache.h"
#include "backends/cuda/cudnn_algo_order.h"
#include "backends/cuda/cudnn_context.h"
#include "backends/cuda/cudnn_padding.h"
#include "backends/cuda/cudnn_thunks.h"
#include "backends/gpu/device_copy.h"
#include "ops/conv/conv2d.h"
#include "ops/conv/fused_conv2d.h"
#include "runtime/error.h"

namespace tgc::cuda {

namespace {

using Problem = PaddedConv;

enum class Dir { Forward = 0, BackwardData = 1, BackwardFilter = 2 };

bool not_supported(cudnnStatus_t s) { return s >= CUDNN_STATUS_NOT_SUPPORTED && s < 4000; }

// The descriptors of one problem, in the layout, over the padded input extent.
struct Descs {
  Descs(DType dt, const Conv2dParams& p, const Problem& pr)
      : w(dt, p.layout, pr.g.o, pr.g.c / p.groups, pr.g.kh, pr.g.kw), conv(dt, p, pr.pad_h, pr.pad_w) {
    x.set_dense(dt, p.layout, pr.g.n, pr.g.c, pr.hp, pr.wp);
    y.set_dense(dt, p.layout, pr.g.n, pr.g.o, pr.g.oh, pr.g.ow);
  }
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;
};

// The descriptor of the unpadded input's place inside the padded one, and the element offset
// of its first element there.
int64_t interior(TensorDesc& desc, DType dt, ConvLayout layout, const Problem& pr) {
  const Interior in = interior_of(pr, layout);
  const Conv2dGeometry& g = pr.g;
  auto i32 = [](int64_t v) { return static_cast<int>(v); };
  desc.set(dt, {i32(g.n), i32(g.c), i32(g.h), i32(g.w)},
           {i32(in.strides[0]), i32(in.strides[1]), i32(in.strides[2]), i32(in.strides[3])});
  return in.offset;
}

char* at_element(void* base, DType dt, int64_t offset) {
  return static_cast<char*>(base) + offset * static_cast<int64_t>(dtype_size(dt));
}

struct ConvThunk {
  CudaDevice* device;
  std::shared_ptr<const ConvOpBase> op;
  Dir dir;
  bool fused = false, relu = false;
  bool tf32 = false;
  bool deterministic = true;  // config deterministic: deterministic algorithms first (cudnn_algo_order.h)
  std::string cache_dir{};    // config cache_dir: where timed choices are kept

  // The operands of this direction's call for cudnnFind*Ex to time each algorithm on (it
  // writes only the output): forward x, w, y; backward data w, dy, dx; backward filter x, dy, dw.
  struct FindArgs {
    const void* a;
    const void* b;
    void* out;
  };

  // FMA only for float32 unless TF32 was asked for (cuDNN's default math allows TF32 on
  // Ampere and later, which rounds operands to 10 bits of mantissa).
  cudnnMathType_t math_of(DType dt, const ConvAlgo& a) const {
    return dt == DType::Float32 && !tf32 ? CUDNN_FMA_MATH : a.math;
  }

  // The problem's algorithms in the order to try them, chosen once per problem and device
  // (under the context's lock): from the kernel cache, else timed by cudnnFind*Ex on `find`'s
  // operands, else (a call being recorded cannot time) cuDNN's heuristics. The one that ran is
  // moved to the front (run_first).
  std::vector<ConvAlgo>& candidates(CudnnContext& ctx, DType dt, const Problem& pr, Descs& d, const FindArgs& find) const {
    const Conv2dParams& p = op->params();
    const Conv2dGeometry& g = pr.g;
    const ConvAlgoKey key{static_cast<int64_t>(dir), static_cast<int64_t>(dt), static_cast<int64_t>(p.layout), tf32, deterministic,
                          g.n, g.c, pr.hp, pr.wp, g.o, g.kh, g.kw, g.oh, g.ow, pr.pad_h, pr.pad_w, p.stride[0],
                          p.stride[1], p.dilation[0], p.dilation[1], p.groups};
    if (auto it = ctx.algos.find(key); it != ctx.algos.end()) return it->second;
    const CudnnApi& api = cudnn_api();
    TGC_CUDNN_CHECK(api.SetConvolutionMathType(
        d.conv.get(), dt == DType::Float32 && !tf32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH));
    std::vector<ConvAlgo> algos;
    int n = 0;
    if (dir == Dir::Forward) {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      TGC_CUDNN_CHECK(api.GetConvolutionForwardAlgorithm_v7(ctx.handle, d.x.get(), d.w.get(), d.conv.get(), d.y.get(),
                                                            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf));
      algos = conv_algorithm_order(perf, n, deterministic);
    } else if (dir == Dir::BackwardData) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      TGC_CUDNN_CHECK(api.GetConvolutionBackwardDataAlgorithm_v7(ctx.handle, d.w.get(), d.y.get(), d.conv.get(),
                                                                 d.x.get(), CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n,
                                                                 perf));
      algos = conv_algorithm_order(perf, n, deterministic);
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      TGC_CUDNN_CHECK(api.GetConvolutionBackwardFilterAlgorithm_v7(ctx.handle, d.x.get(), d.y.get(), d.conv.get(),
                                                                   d.w.get(), CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                                   &n, perf));
      algos = conv_algorithm_order(perf, n, deterministic);
    }
    if (!device->recording()) algos = timed(ctx, d, key, algos, find);
    return ctx.algos.emplace(key, std::move(algos)).first->second;
  }

  // The candidates ordered by cuDNN's timing of each on this problem (those that fit the
  // heuristics' largest workspace), kept in the kernel cache; `heuristic` when timing found none.
  std::vector<ConvAlgo> timed(CudnnContext& ctx, Descs& d, const ConvAlgoKey& key,
                              const std::vector<ConvAlgo>& heuristic, const FindArgs& find) const {
    const int direction = static_cast<int>(dir);
    const KernelCacheKey cache_key = conv_algo_cache_key(key, *device);
    if (std::optional<std::vector<ConvAlgo>> kept = load_conv_algos(cache_dir, cache_key, direction)) return *kept;
    size_t bytes = 0;
    for (const ConvAlgo& a : heuristic) bytes = std::max(bytes, a.workspace);
    Workspace ws(*device, bytes);
    const CudnnApi& api = cudnn_api();
    std::vector<ConvAlgo> algos;
    int n = 0;
    if (dir == Dir::Forward) {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      TGC_CUDNN_CHECK(api.FindConvolutionForwardAlgorithmEx(ctx.handle, d.x.get(), find.a, d.w.get(), find.b, d.conv.get(),
                                                            d.y.get(), find.out, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n,
                                                            perf, ws.get(), ws.size()));
      algos = conv_algorithm_order(perf, n, deterministic);
    } else if (dir == Dir::BackwardData) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      TGC_CUDNN_CHECK(api.FindConvolutionBackwardDataAlgorithmEx(ctx.handle, d.w.get(), find.a, d.y.get(), find.b,
                                                                 d.conv.get(), d.x.get(), find.out,
                                                                 CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, perf,
                                                                 ws.get(), ws.size()));
      algos = conv_algorithm_order(perf, n, deterministic);
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      TGC_CUDNN_CHECK(api.FindConvolutionBackwardFilterAlgorithmEx(ctx.handle, d.x.get(), find.a, d.y.get(), find.b,
                                                                   d.conv.get(), d.w.get(), find.out,
                                                                   CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, perf,
                                                                   ws.get(), ws.size()));
      algos = conv_algorithm_order(perf, n, deterministic);
    }
    if (algos.empty()) return heuristic;
    store_conv_algos(cache_dir, cache_key, algos);
    return algos;
  }

  // Calls `call(algo, workspace)` with each candidate until one runs: a heuristic's algorithm
  // may still be NOT_SUPPORTED for a problem (a layout or float64 case), then the next is tried.
  // The one that ran goes first next time. DeviceError when none runs.
  template <typename Call>
  void run_first(std::vector<ConvAlgo>& algos, DType dt, Descs& d, const Conv2dGeometry& g, const char* name,
                 Call call) const {
    for (size_t i = 0; i < algos.size(); ++i) {
      TGC_CUDNN_CHECK(cudnn_api().SetConvolutionMathType(d.conv.get(), math_of(dt, algos[i])));
      Workspace ws(*device, algos[i].workspace);
      const cudnnStatus_t st = call(algos[i].algo, ws);
      if (st == CUDNN_STATUS_SUCCESS) {
        // [0, i] -> [i, 0, ..., i-1]: the one that ran first, the rest in their order.
        if (i > 0) std::rotate(algos.begin(), algos.begin() + static_cast<std::ptrdiff_t>(i), algos.begin() + static_cast<std::ptrdiff_t>(i + 1));
        return;
      }
      if (!not_supported(st)) throw_cudnn_error(st, name);
    }
    const Conv2dParams& p = op->params();
    throw DeviceError(op->user_name() + ": cuDNN has no algorithm for this convolution (" + p.describe() + ", " +
                          std::string(dtype_name(dt)) + ", input " + std::to_string(g.n) + "x" + std::to_string(g.c) +
                          "x" + std::to_string(g.h) + "x" + std::to_string(g.w) + ", " + name + ")",
                      "", "run it on the host (device=cpu), or report the shape: docs/conv.md says what cuDNN runs");
  }

  void operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    const Conv2dParams& p = op->params();
    const std::string what = op->user_name();
    const DType dt = inputs[0].dtype();
    std::vector<Shape> shapes;
    for (const Tensor& t : inputs) shapes.push_back(t.shape());
    const Shape out_shape = op->infer_shapes(shapes)[0];
    Conv2dGeometry g;
    if (dir == Dir::BackwardData)
      g = conv_geometry_from_output(p, shapes[0], shapes[1], inputs.size() > 2 ? &shapes[2] : nullptr, what);
    else if (dir == Dir::BackwardFilter)
      g = conv_geometry(p, shapes[0], shapes[2], what);
    else
      g = conv_geometry(p, shapes[0], shapes[1], what);
    Tensor& out = ensure_output(outputs[0], dt, out_shape, *device);
    if (out.numel() == 0) return;
    const Problem pr = split_padding(g);

    CudnnContext& ctx = cudnn_context(*device);
    const CudnnApi& api = cudnn_api();
    DeviceGuard guard(device->ordinal());
    std::lock_guard<std::mutex> lock(ctx.mutex);
    Descs d(dt, p, pr);
    const Scalars s(dt);
    cudnnHandle_t h = ctx.handle;

    if (dir == Dir::BackwardData) {
      const Tensor dy = gpu::contiguous_on_device(*device, inputs[0]);
      const Tensor w = gpu::contiguous_on_device(*device, inputs[1]);
      Tensor dx = pr.padded() ? Tensor::empty(dt, conv_act_shape(p.layout, g.n, g.c, pr.hp, pr.wp), *device) : out;
      std::vector<ConvAlgo>& algos = candidates(ctx, dt, pr, d, {w.raw_data(), dy.raw_data(), dx.raw_data()});
      run_first(algos, dt, d, g, "cudnnConvolutionBackwardData", [&](int algo, const Workspace& ws) {
        return api.ConvolutionBackwardData(h, s.one(), d.w.get(), w.raw_data(), d.y.get(), dy.raw_data(), d.conv.get(),
                                           static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws.get(), ws.size(),
                                           s.zero(), d.x.get(), dx.raw_data());
      });
      if (pr.padded()) {  // the gradient of the rows and columns the thunk added is dropped
        TensorDesc inner, dense;
        const int64_t off = interior(inner, dt, p.layout, pr);
        dense.set_dense(dt, p.layout, g.n, g.c, g.h, g.w);
        TGC_CUDNN_CHECK(api.TransformTensor(h, s.one(), inner.get(), at_element(dx.raw_data(), dt, off), s.zero(),
                                            dense.get(), out.raw_data()));
      }
      return;
    }

    const Tensor x = padded_input(ctx, dt, pr, gpu::contiguous_on_device(*device, inputs[0]));
    if (dir == Dir::BackwardFilter) {
      const Tensor dy = gpu::contiguous_on_device(*device, inputs[1]);
      std::vector<ConvAlgo>& algos = candidates(ctx, dt, pr, d, {x.raw_data(), dy.raw_data(), out.raw_data()});
      run_first(algos, dt, d, g, "cudnnConvolutionBackwardFilter", [&](int algo, const Workspace& ws) {
        return api.ConvolutionBackwardFilter(h, s.one(), d.x.get(), x.raw_data(), d.y.get(), dy.raw_data(),
                                             d.conv.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
                                             ws.get(), ws.size(), s.zero(), d.w.get(), out.raw_data());
      });
      return;
    }
    const Tensor w = gpu::contiguous_on_device(*device, inputs[1]);
    std::vector<ConvAlgo>& algos = candidates(ctx, dt, pr, d, {x.raw_data(), w.raw_data(), out.raw_data()});
    auto forward = [&](int algo, const Workspace& ws) {
      return api.ConvolutionForward(h, s.one(), d.x.get(), x.raw_data(), d.w.get(), w.raw_data(), d.conv.get(),
                                    static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws.get(), ws.size(), s.zero(),
                                    d.y.get(), out.raw_data());
    };
    if (!fused) return run_first(algos, dt, d, g, "cudnnConvolutionForward", forward);

    const Tensor bias = gpu::contiguous_on_device(*device, inputs[2]);
    TensorDesc bd;
    bd.set(dt, {1, static_cast<int>(g.o), 1, 1}, {static_cast<int>(g.o), 1, 1, 1});
    ActivationDesc act;
    if (relu && fused_call_works(algos, dt, d, [&](int algo, const Workspace& ws) {
          // The fused call reads a residual z, scaled here by 0: z is the output itself, zeroed
          // first, as 0 times the garbage of fresh memory may be NaN.
          device->fill_zero(out.raw_data(), out.nbytes());
          return api.ConvolutionBiasActivationForward(
              h, s.one(), d.x.get(), x.raw_data(), d.w.get(), w.raw_data(), d.conv.get(),
              static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws.get(), ws.size(), s.zero(), d.y.get(), out.raw_data(),
              bd.get(), bias.raw_data(), act.get(), d.y.get(), out.raw_data());
        }))
      return;
    // Otherwise the convolution, the bias added in place, and the relu in place.
    run_first(algos, dt, d, g, "cudnnConvolutionForward", forward);
    TGC_CUDNN_CHECK(api.AddTensor(h, s.one(), bd.get(), bias.raw_data(), s.one(), d.y.get(), out.raw_data()));
    if (relu)
      TGC_CUDNN_CHECK(
          api.ActivationForward(h, act.get(), s.one(), d.y.get(), out.raw_data(), s.zero(), d.y.get(), out.raw_data()));
  }

  // cuDNN's fused convolution, bias and relu with the problem's first algorithm (the fused call
  // supports fewer problems than the forward: false when it has none for this one).
  template <typename Call>
  bool fused_call_works(std::vector<ConvAlgo>& algos, DType dt, Descs& d, Call call) const {
    if (algos.empty()) return false;
    TGC_CUDNN_CHECK(cudnn_api().SetConvolutionMathType(d.conv.get(), math_of(dt, algos[0])));
    Workspace ws(*device, algos[0].workspace);
    const cudnnStatus_t st = call(algos[0].algo, ws);
    if (st == CUDNN_STATUS_SUCCESS) return true;
    if (!not_supported(st)) throw_cudnn_error(st, "cudnnConvolutionBiasActivationForward");
    return false;
  }

  // `x` itself, or (padding that differs between the sides) x inside a zeroed tensor with the
  // extra rows and columns.
  Tensor padded_input(CudnnContext& ctx, DType dt, const Problem& pr, const Tensor& x) const {
    if (!pr.padded()) return x;
    const Conv2dParams& p = op->params();
    Tensor xp = Tensor::empty(dt, conv_act_shape(p.layout, pr.g.n, pr.g.c, pr.hp, pr.wp), *device);
    device->fill_zero(xp.raw_data(), xp.nbytes());
    TensorDesc inner, dense;
    const int64_t off = interior(inner, dt, p.layout, pr);
    dense.set_dense(dt, p.layout, pr.g.n, pr.g.c, pr.g.h, pr.g.w);
    const Scalars s(dt);
    TGC_CUDNN_CHECK(cudnn_api().TransformTensor(ctx.handle, s.one(), dense.get(), x.raw_data(), s.zero(), inner.get(),
                                                at_element(xp.raw_data(), dt, off)));
    return xp;
  }
};

// `op` with NCHW operands instead of NHWC ones.
std::shared_ptr<const ConvOpBase> in_nchw(const ConvOpBase& op) {
  Conv2dParams q = op.params();
  q.layout = ConvLayout::NCHW;
  if (const auto* gi = dynamic_cast<const Conv2dGradInput*>(&op)) return std::make_shared<Conv2dGradInput>(q, gi->transpose());
  if (dynamic_cast<const Conv2dGradWeights*>(&op)) return std::make_shared<Conv2dGradWeights>(q);
  if (const auto* f = dynamic_cast<const FusedConv2d*>(&op)) return std::make_shared<FusedConv2d>(q, f->relu());
  return std::make_shared<Conv2d>(q);
}

// cuDNN 9 computes float64 convolutions in NCHW only (on an H200 its NHWC float64 backward
// data has no algorithm at all): a float64 NHWC convolution runs on NCHW copies of its rank-4
// operands (activations (N, H, W, C) and weights (O, KH, KW, C) both permute by (0, 3, 1, 2)),
// its result copied back into NHWC.
ThunkFn through_nchw(CudaDevice& device, ConvThunk nchw) {
  CudaDevice* dev = &device;
  return [dev, nchw](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    std::vector<Tensor> in;
    for (const Tensor& t : inputs)
      in.push_back(t.ndim() == 4 ? gpu::contiguous_on_device(*dev, t.transpose({0, 3, 1, 2})) : t);
    std::vector<Tensor> out(1);
    nchw(in, out);
    const Tensor back = out[0].transpose({0, 2, 3, 1});
    Tensor& o = ensure_output(outputs[0], back.dtype(), back.shape(), *dev);
    gpu::copy_strided(*dev, back, o);
  };
}

}  // namespace

ThunkFn make_cudnn_conv_thunk(CudaDevice& device, const Node& node, const Config& config) {
  cudnn_context(device);  // the handle now, inside function(), not in a call being recorded
  auto op = std::dynamic_pointer_cast<const ConvOpBase>(node.op_ptr());
  TGC_INTERNAL_CHECK(op != nullptr, "cuDNN convolution thunk for " + node.op().name());
  ConvThunk t{&device, op, Dir::Forward};
  t.tf32 = config.cuda_tf32;
  t.deterministic = config.deterministic;
  t.cache_dir = config.cache_dir;
  if (dynamic_cast<const Conv2dGradInput*>(op.get())) t.dir = Dir::BackwardData;
  if (dynamic_cast<const Conv2dGradWeights*>(op.get())) t.dir = Dir::BackwardFilter;
  if (const auto* f = dynamic_cast<const FusedConv2d*>(op.get())) {
    t.fused = true;
    t.relu = f->relu();
  }
  if (op->params().layout == ConvLayout::NHWC && node.output_raw(0)->type().dtype == DType::Float64) {
    t.op = in_nchw(*op);
    return through_nchw(device, t);
  }
  return t;
}

}  // namespace tgc::cuda
