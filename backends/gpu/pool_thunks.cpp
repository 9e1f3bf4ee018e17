// The pool thunks: each call takes the operands' strides along (n, c, h, w), whatever their
// layout, picks the entry (int32 offsets where every operand's reach and the element count
// fit) and launches a grid-stride loop over the result's elements.
#include "backends/gpu/pool_thunks.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "backends/c_family/render_pool.h"
#include "backends/gpu/process_modules.h"
#include "ops/pool/pool2d.h"
#include "runtime/error.h"

namespace tgc::gpu {

namespace {

using cfam::PoolOp;

// Each entry of the pool unit is a module of its own per device and fast-math setting,
// compiled on its first launch and kept for the process: a network launches a few of them.
GpuModule& pool_module(GpuDevice& device, int entry, bool fast_math, const std::string& cache_dir) {
  return process_module(device, "pool", entry * 2 + (fast_math ? 1 : 0), [&] {
    const cfam::Dialect dialect = device.dialect();
    return unit_entry_source("pool", cfam::pool_entry_name(cfam::pool_kernels().at(static_cast<size_t>(entry))),
                             [dialect, entry] { return cfam::render_pool(dialect, entry); }, fast_math, cache_dir);
  });
}

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

struct PoolThunk {
  GpuDevice* device;
  Pool2dParams params;
  bool grad = false;
  bool fast_math = false;
  std::string cache_dir;

  void operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    GpuDevice& dev = *device;
    std::vector<Tensor> in;
    for (const Tensor& t : inputs) in.push_back(t.on_host() ? t.to(dev) : t);
    const Tensor& x = in.at(0);
    const ConvAxes a = conv_axes(params.layout);
    std::vector<Shape> shapes;
    for (const Tensor& t : in) shapes.push_back(t.shape());
    // The reference's checks and errors (a gradient of the wrong shape, a kernel too large).
    const Shape out_shape = grad ? Pool2dGrad(params).infer_shapes(shapes).at(0) : Pool2d(params).infer_shapes(shapes).at(0);
    Tensor& out = ensure_output(outputs.at(0), x.dtype(), out_shape, dev);
    if (out.numel() == 0) return;
    const Shape& pooled = grad ? in.at(1).shape() : out.shape();

    using namespace cfam::poolp;
    std::vector<int64_t> blob(cfam::kPoolParams, 0);
    blob[kN] = x.shape()[0];
    blob[kC] = x.shape()[a.c];
    blob[kH] = x.shape()[a.h];
    blob[kW] = x.shape()[a.w];
    blob[kOH] = pooled[a.h];
    blob[kOW] = pooled[a.w];
    blob[kKH] = params.kernel[0];
    blob[kKW] = params.kernel[1];
    blob[kSH] = params.stride[0];
    blob[kSW] = params.stride[1];
    blob[kPH] = params.pad[0];
    blob[kPW] = params.pad[1];
    blob[kIncludePad] = params.count_include_pad ? 1 : 0;
    std::vector<Tensor> operands = {out};
    operands.insert(operands.end(), in.begin(), in.end());
    const GridStride grid = grid_stride(dev.limits(), out.numel());
    bool i32 = out.numel() + grid.blocks * grid.threads <= kInt32Max;  // the loop's index stays below 2^31
    for (size_t o = 0; o < operands.size(); ++o) {
      const Tensor& t = operands[o];
      const int axes[4] = {0, a.c, a.h, a.w};
      int64_t reach = 0;
      for (int d = 0; d < 4; ++d) {
        blob[strides(static_cast<int>(o)) + d] = t.strides()[axes[d]];
        reach += std::max<int64_t>(t.shape()[axes[d]] - 1, 0) * std::abs(t.strides()[axes[d]]);
      }
      i32 = i32 && reach <= kInt32Max;
    }
    const PoolOp kind = params.mode == PoolMode::Max ? (grad ? PoolOp::MaxGrad : PoolOp::MaxForward)
                                                     : (grad ? PoolOp::AvgGrad : PoolOp::AvgForward);
    const int entry = cfam::pool_entry({kind, x.dtype(), i32});
    TGC_INTERNAL_CHECK(entry >= 0, "no pool entry for " + std::string(dtype_name(x.dtype())));
    std::vector<LaunchArg> args;
    for (const Tensor& t : operands) args.push_back(LaunchArg::operand(t.raw_data(), dtype_size(t.dtype())));
    args.push_back(LaunchArg::value(blob.data(), blob.size() * sizeof(int64_t)));
    pool_module(dev, entry, fast_math, cache_dir).launch(0, grid.blocks, grid.threads, 0, args);
  }
};

}  // namespace

bool is_pool_op(const Node& node) {
  return dynamic_cast<const Pool2d*>(&node.op()) || dynamic_cast<const Pool2dGrad*>(&node.op());
}

ThunkFn make_pool_thunk(GpuDevice& device, const Node& node, const Config& config) {
  PoolThunk t{&device, {}, false, config.fast_math, config.cache_dir};
  if (const auto* p = dynamic_cast<const Pool2d*>(&node.op())) {
    t.params = p->params();
  } else if (const auto* g = dynamic_cast<const Pool2dGrad*>(&node.op())) {
    t.params = g->params();
    t.grad = true;
  } else {
    TGC_INTERNAL_CHECK(false, "pool thunk for " + node.op().name());
  }
  return t;
}

}  // namespace tgc::gpu
