// The row thunks: each call splits the operands' dims into the kept ones (which enumerate the
// rows) and the reduced ones (a row), collapses each group, and launches one row entry with a
// block per row (a grid-stride loop over rows beyond the grid's cap).
#include "backends/gpu/row_thunks.h"
#include "backends/gpu/process_modules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>

#include "backends/c_family/render_rows.h"
#include "ops/elemwise/broadcast.h"
#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/logsumexp.h"
#include "ops/nn/softmax_cross_entropy.h"
#include "ops/nn/softmax.h"
#include "runtime/error.h"

namespace tgc::gpu {

namespace {

using cfam::RowKernel;
using cfam::RowOp;
using cfam::kRowMaxRank;

// ---- the module ------------------------------------------------------------------------

// Each entry of the row unit is a module of its own per device and rendering (float32_math,
// fast math), compiled on its first launch and kept for the process (devices are): a function
// launches one or two of the unit's entries.
GpuModule& row_module(GpuDevice& device, int entry, const cfam::RowOptions& options, bool fast_math,
                      const std::string& cache_dir) {
  const int variant = entry * 4 + (options.float32_in_double ? 2 : 0) + (fast_math ? 1 : 0);
  return process_module(device, "row", variant, [&] {
    const cfam::Dialect dialect = device.dialect();
    return unit_entry_source("row", cfam::row_entry_name(cfam::row_kernels().at(static_cast<size_t>(entry))),
                             [dialect, options, entry] { return cfam::render_rows(dialect, options, entry); },
                             fast_math, cache_dir);
  });
}

// ---- planning ----------------------------------------------------------------------------

// Dims of one group (kept or reduced), strides per operand (out first).
struct Group {
  Shape shape;
  std::vector<Strides> strides;

  // collapse_dims; a rank-0 group becomes one dim of size 1.
  void simplify() {
    collapse_dims(shape, strides);
    if (shape.empty()) {
      shape.push_back(1);
      for (Strides& s : strides) s.push_back(0);
    }
  }
  int rank() const { return static_cast<int>(shape.size()); }
};

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

struct RowThunk {
  GpuDevice* device;
  RowOp op;
  std::vector<int> axes;  // reduced axes, empty: every axis
  bool keepdims = true;   // LogSumExp's
  double scale = 0;       // SoftmaxCrossEntropy's, when it has one
  cfam::RowOptions options;
  bool fast_math = false;
  std::string cache_dir;

  bool reduced(int d) const { return axes.empty() || std::find(axes.begin(), axes.end(), d) != axes.end(); }

  void operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    GpuDevice& dev = *device;
    std::vector<Tensor> in;
    for (const Tensor& t : inputs) in.push_back(t.on_host() ? t.to(dev) : t);
    if (op == RowOp::SoftmaxXent || op == RowOp::SoftmaxXentScaled) return xent(in, outputs);
    const bool grad = op == RowOp::LogSoftmaxGrad;
    const Tensor& x = in.back();  // the tensor whose shape the rows are of (y for the gradient)
    Shape out_shape = x.shape();
    if (op == RowOp::LogSumExp) {
      out_shape.clear();
      for (int d = 0; d < x.ndim(); ++d)
        if (!reduced(d)) out_shape.push_back(x.shape()[d]);
        else if (keepdims) out_shape.push_back(1);
    }
    Tensor& out = ensure_output(outputs.at(0), x.dtype(), out_shape, dev);
    if (out.numel() == 0) return;  // no rows, or (softmax) empty rows: nothing to write
    // Operands in the entry's order: out, then x (or g, of y's shape, then y).
    std::vector<Strides> operand_strides(1);
    if (grad) {
      if (in[0].shape() != x.shape())
        throw ShapeError("log_softmax_grad: g of shape " + shape_str(in[0].shape()) + " and y of shape " +
                             shape_str(x.shape()) + " differ",
                         "", "g is the gradient of y, of y's shape");
      operand_strides.push_back(in[0].strides());
    }
    operand_strides.push_back(x.strides());
    operand_strides[0] = op != RowOp::LogSumExp ? out.strides() : reduced_strides(x.shape());
    std::vector<Tensor> operands = {out};
    operands.insert(operands.end(), in.begin(), in.end());
    launch(x, operand_strides, operands);
  }

  // The strides over x's dims of a dense result of the kept dims (0 along the reduced ones):
  // logsumexp's, and softmax_xent's row values.
  Strides reduced_strides(const Shape& x) const {
    Shape kept_dims;
    for (int d = 0; d < static_cast<int>(x.size()); ++d)
      if (!reduced(d)) kept_dims.push_back(x[d]);
    const Strides dense_kept = contiguous_strides(kept_dims);
    Strides s;
    for (int d = 0, k = 0; d < static_cast<int>(x.size()); ++d) s.push_back(reduced(d) ? 0 : dense_kept[k++]);
    return s;
  }

  // softmax_xent: inputs (z, t, g), or (z, t) with the scale; outputs (r: the rows' values,
  // d: z's shape).
  void xent(const std::vector<Tensor>& in, std::vector<Tensor>& outputs) const {
    GpuDevice& dev = *device;
    const Tensor& z = in.at(0);
    const Tensor& t = in.at(1);
    const bool scaled = op == RowOp::SoftmaxXentScaled;
    if (t.shape() != z.shape() || (!scaled && in.at(2).shape() != z.shape()))
      throw ShapeError("softmax_cross_entropy: z of shape " + shape_str(z.shape()) + ", t of shape " +
                           shape_str(t.shape()) + (scaled ? "" : " and g of shape " + shape_str(in[2].shape())) +
                           " do not fit",
                       "", "t (and g) have z's shape");
    Shape rows;
    for (int d = 0; d < z.ndim(); ++d)
      if (!reduced(d)) rows.push_back(z.shape()[d]);
    Tensor& r = ensure_output(outputs.at(0), z.dtype(), rows, dev);
    Tensor& dz = ensure_output(outputs.at(1), z.dtype(), z.shape(), dev);
    if (r.numel() == 0) return;  // no rows
    std::vector<Strides> operand_strides = {reduced_strides(z.shape()), dz.strides(), z.strides(), t.strides()};
    std::vector<Tensor> operands = {r, dz, z, t};
    if (!scaled) {
      operand_strides.push_back(in[2].strides());
      operands.push_back(in[2]);
    }
    launch(z, operand_strides, operands);
  }

  // Plans the rows of x (kept dims enumerate them, reduced dims make one) for the operands'
  // strides over x's dims, in the entry's pointer order, and launches the entry.
  void launch(const Tensor& x, const std::vector<Strides>& operand_strides, const std::vector<Tensor>& operands) const {
    GpuDevice& dev = *device;
    const size_t nops = operand_strides.size();
    Group kept{{}, std::vector<Strides>(nops)}, red{{}, std::vector<Strides>(nops)};
    for (int d = 0; d < x.ndim(); ++d) {
      Group& g = reduced(d) ? red : kept;
      g.shape.push_back(x.shape()[d]);
      for (size_t o = 0; o < nops; ++o) g.strides[o].push_back(operand_strides[o][d]);
    }
    const int64_t nrows = shape_numel(kept.shape), nred = shape_numel(red.shape);
    kept.simplify();
    red.simplify();
    TGC_INTERNAL_CHECK(kept.rank() <= kRowMaxRank && red.rank() <= kRowMaxRank, "row kernel above the maximum rank");

    using namespace cfam::rowp;
    std::vector<int64_t> blob(cfam::kRowParams, 0);
    blob[kNRows] = nrows;
    blob[kNRed] = nred;
    blob[kKeptRank] = kept.rank();
    blob[kRedRank] = red.rank();
    std::copy(kept.shape.begin(), kept.shape.end(), blob.begin() + kKeptShape);
    std::copy(red.shape.begin(), red.shape.end(), blob.begin() + kRedShape);
    if (op == RowOp::SoftmaxXentScaled) {  // the scale as the bits of the dtype's float
      if (x.dtype() == DType::Float32) {
        const float f = static_cast<float>(scale);
        int32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        blob[cfam::kRowScaleSlot] = bits;
      } else {
        std::memcpy(&blob[cfam::kRowScaleSlot], &scale, sizeof scale);
      }
    }
    bool i32 = nrows + 65536 <= kInt32Max && nred + cfam::kRowMaxThreads <= kInt32Max;
    for (size_t o = 0; o < nops; ++o) {
      int64_t reach = 0;
      for (int d = 0; d < kept.rank(); ++d) reach += (kept.shape[d] - 1) * std::abs(kept.strides[o][d]);
      for (int d = 0; d < red.rank(); ++d) reach += std::max<int64_t>(red.shape[d] - 1, 0) * std::abs(red.strides[o][d]);
      i32 = i32 && reach <= kInt32Max;
      std::copy(kept.strides[o].begin(), kept.strides[o].end(), blob.begin() + kept_strides(static_cast<int>(o)));
      std::copy(red.strides[o].begin(), red.strides[o].end(), blob.begin() + red_strides(static_cast<int>(o)));
    }

    // A block as wide as the row (a power of two, from 32 up to the tree's 256 lanes).
    const int max_threads = std::min(cfam::kRowMaxThreads, dev.limits().max_threads_per_block);
    int cap = 1;
    while (cap * 2 <= max_threads) cap *= 2;
    int threads = std::min(32, cap);
    while (threads < nred && threads < cap) threads *= 2;
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(nrows, 65535));

    const int entry = cfam::row_entry({op, x.dtype(), i32});
    TGC_INTERNAL_CHECK(entry >= 0, "no row entry for " + std::string(dtype_name(x.dtype())));
    // An empty operand is never read: the null address goes instead.
    std::vector<LaunchArg> args;
    for (const Tensor& t : operands)
      args.push_back(LaunchArg::operand(t.numel() ? t.raw_data() : nullptr, dtype_size(t.dtype())));
    args.push_back(LaunchArg::value(blob.data(), blob.size() * sizeof(int64_t)));
    row_module(dev, entry, options, fast_math, cache_dir).launch(0, blocks, threads, 0, args);
  }
};

bool any_dim_above_max(const Node& node) {
  for (const auto& v : node.inputs())
    if (v->type().ndim() > kRowMaxRank) return true;
  return false;
}

}  // namespace

bool is_row_op(const Node& node) {
  const Op& op = node.op();
  return dynamic_cast<const Softmax*>(&op) || dynamic_cast<const LogSumExp*>(&op) ||
         dynamic_cast<const LogSoftmaxGrad*>(&op) || dynamic_cast<const SoftmaxCrossEntropy*>(&op);
}

std::string row_op_declines(const Node& node) {
  const DType out = node.output_raw(0)->type().dtype;
  for (const auto& v : node.inputs())
    if (v->type().dtype != out)
      return "an input of another dtype than the result (decompose_for_fusion casts it and builds the op from "
             "reductions)";
  if (any_dim_above_max(node)) return fmt::format("a tensor of more than {} dims", kRowMaxRank);
  return "";
}

ThunkFn make_row_thunk(GpuDevice& device, const Node& node, const Config& config) {
  RowThunk t{&device, RowOp::Softmax, {}, true, 0, {config.float32_math == "double"}, config.fast_math, config.cache_dir};
  const Op& op = node.op();
  const int ndim = node.inputs().back()->type().ndim();  // (softmax_xent's z has rank >= 1)
  if (const auto* sm = dynamic_cast<const Softmax*>(&op)) {
    t.op = sm->log() ? RowOp::LogSoftmax : RowOp::Softmax;
    if (ndim > 0) t.axes = {sm->axis()};
  } else if (const auto* g = dynamic_cast<const LogSoftmaxGrad*>(&op)) {
    t.op = RowOp::LogSoftmaxGrad;
    if (ndim > 0) t.axes = {g->axis()};
  } else if (const auto* x = dynamic_cast<const SoftmaxCrossEntropy*>(&op)) {
    t.op = x->scale() ? RowOp::SoftmaxXentScaled : RowOp::SoftmaxXent;
    t.axes = {x->axis()};
    t.scale = x->scale().value_or(0);
  } else if (const auto* lse = dynamic_cast<const LogSumExp*>(&op)) {
    t.op = RowOp::LogSumExp;
    if (lse->axes()) t.axes = *lse->axes();
    t.keepdims = lse->keepdims();
    // An empty axis list reduces nothing: each element is its own row.
    if (lse->axes() && lse->axes()->empty()) t.axes = {-1};
  } else {
    TGC_INTERNAL_CHECK(false, "row thunk for " + op.name());
  }
  return t;
}

}  // namespace tgc::gpu
