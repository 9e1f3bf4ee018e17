// The index and data-movement thunks: each call plans its launches from the operands' shapes
// and strides (size-1 dims dropped, mergeable dims merged, int32 offsets where they fit) and
// enqueues them on the device's stream; zero-size results launch nothing.
#include "backends/gpu/index_thunks.h"
#include "backends/gpu/process_modules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

#include "backends/c_family/render_index.h"
#include "backends/gpu/device_copy.h"
#include "backends/gpu/host_fallback.h"
#include "ops/elemwise/broadcast.h"
#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/arange_like.h"
#include "ops/alloc/eye.h"
#include "ops/join/join.h"
#include "ops/join/split.h"
#include "ops/join/split_like.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/shape/reshape_like.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"
#include "runtime/convert.h"
#include "runtime/error.h"

namespace tgc::gpu {

namespace {

using cfam::IndexKernel;
using cfam::IndexOp;
using cfam::kIndexMaxRank;
using Blob = std::vector<int64_t>;

// ---- the module ------------------------------------------------------------------------

// Each entry of the index unit is a module of its own, compiled on its first launch and kept
// per device for the process (devices are): a function launches a handful of the unit's 129
// entries, and NVRTC takes 23 s to make a sm_90 cubin of the whole unit against 0.06-0.3 s
// per entry (measured with this build's NVRTC 13); PoCL builds per entry anyway.
GpuModule& index_module(GpuDevice& device, int entry, const std::string& cache_dir) {
  return process_module(device, "index", entry, [&] {
    const cfam::Dialect dialect = device.dialect();
    return unit_entry_source("index", cfam::index_entry_name(cfam::index_kernels(dialect).at(static_cast<size_t>(entry))),
                             [dialect, entry] { return cfam::render_index(dialect, entry); }, false, cache_dir);
  });
}

// What a thunk launches with.
struct Kernels {
  GpuDevice& device;
  const std::string& cache_dir;

  // A grid-stride launch covering `n` work items.
  void launch(const IndexKernel& k, int64_t n, const Blob& blob, std::vector<LaunchArg> args) {
    const GridStride g = grid_stride(device.limits(), n);
    launch_blocks(k, g.blocks, g.threads, blob, std::move(args));
  }
  // The sort and block-per-output entries size their local arrays for their fixed block
  // (kSortThreads, kArgBlockThreads: 256, which every CUDA device and PoCL allow).
  void launch_blocks(const IndexKernel& k, int64_t blocks, int threads, const Blob& blob, std::vector<LaunchArg> args) {
    TGC_INTERNAL_CHECK(blob.size() == static_cast<size_t>(cfam::kIndexParams), "index params blob of the wrong size");
    const int e = cfam::index_entry(device.dialect(), k);
    TGC_INTERNAL_CHECK(e >= 0, "no index entry " + cfam::index_entry_name(k));
    args.push_back(LaunchArg::value(blob.data(), blob.size() * sizeof(int64_t)));
    index_module(device, e, cache_dir).launch(0, blocks, threads, 0, args);
  }
};

// An empty operand is never read (a gather from an empty axis flags every index): its address
// may lie anywhere, so the null address goes instead.
LaunchArg operand(const Tensor& t) {
  return LaunchArg::operand(t.numel() ? t.raw_data() : nullptr, dtype_size(t.dtype()));
}
LaunchArg operand(const void* p, size_t esize) { return LaunchArg::operand(p, esize); }

// ---- device memory -----------------------------------------------------------------------

// A device block for the duration of one call; back to the allocator after the launches are
// enqueued (the stream is in order).
struct Scratch {
  GpuDevice& device;
  size_t bytes;
  void* ptr;
  Scratch(GpuDevice& d, size_t n) : device(d), bytes(n), ptr(n ? d.allocate(n, d.default_stream()) : nullptr) {}
  ~Scratch() {
    if (ptr) device.deallocate(ptr, bytes, device.default_stream());
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

// The device's error word (GpuDevice::error_word), which the index kernels OR into when an
// index is out of range.
struct ErrorFlag {
  GpuDevice* device;
  void* ptr;
  explicit ErrorFlag(GpuDevice& d) : device(&d), ptr(d.error_word()) {}
  // After the thunk's kernels: the host reference raises the exact error (naming the index,
  // the axis and its size) if a kernel flagged one. While a call is recorded the device takes
  // the check, and each replay makes it at its end; otherwise the flag is read now (a wait),
  // and cleared when set.
  // The first `data` inputs are the indexed tensor (and a scatter's values): the deferred
  // check keeps stand-ins of their shape and dtype (one element broadcast, on the host) rather
  // than the tensors, since the reference raises on the indices alone and a reference kept by
  // the recording would stop an update from being written into its variable's buffer (the
  // bag-of-words step copied its 51 MB embedding twice a call).
  void check(const std::shared_ptr<const Op>& op, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
             size_t data) {
    GpuDevice* d = device;
    if (d->recording()) {
      std::vector<Tensor> kept = inputs;
      for (size_t i = 0; i < std::min(data, kept.size()); ++i)
        kept[i] = Tensor::zeros(inputs[i].dtype(), Shape{}).broadcast_to(inputs[i].shape());
      if (d->defer_flag_check([d, op, in = std::move(kept)] {
            std::vector<Tensor> out(1);
            run_on_host(*op, *d, in, out);
          }))
        return;
    }
    if (d->read_int(ptr) == 0) return;
    d->fill_zero(ptr, sizeof(int));
    run_on_host(*op, *d, inputs, outputs);
  }
};

// An input as a device tensor (inputs of device nodes are placed there; a host one is copied,
// which never waits for the device).
Tensor on_device(GpuDevice& device, const Tensor& t) { return t.on_host() ? t.to(device) : t; }

// ---- planning ----------------------------------------------------------------------------

// A loop space shared by several operands: dims outermost first, strides per operand.
struct Space {
  Shape shape;
  std::vector<Strides> strides;  // [operand][dim]

  // collapse_dims (size-1 dims dropped, dims every operand walks as one merged); a rank-0
  // space becomes one dim of size 1. Planned spaces are never empty (callers return first).
  void simplify() {
    collapse_dims(shape, strides);
    if (shape.empty()) {
      shape.push_back(1);
      for (Strides& x : strides) x.push_back(0);
    }
  }
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const { return shape_numel(shape); }
  // The largest |offset| operand o reaches from its first element.
  int64_t reach(size_t o) const {
    int64_t r = 0;
    for (size_t d = 0; d < shape.size(); ++d) r += (shape[d] - 1) * std::abs(strides[o][d]);
    return r;
  }
};

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// The extent of a whole tensor (any index may land anywhere in it).
int64_t tensor_reach(const Tensor& t) {
  int64_t r = 0;
  for (int d = 0; d < t.ndim(); ++d) r += std::max<int64_t>(t.shape()[d] - 1, 0) * std::abs(t.strides()[d]);
  return r;
}

Blob new_blob() { return Blob(cfam::kIndexParams, 0); }

void put_dims(Blob& b, int slot, const Shape& v) {
  TGC_INTERNAL_CHECK(v.size() <= static_cast<size_t>(kIndexMaxRank), "index kernel space above the maximum rank");
  std::copy(v.begin(), v.end(), b.begin() + slot);
}

// dst[...] = src[...] (or +=) over dst's shape; src already broadcast to it and of dst's dtype.
void strided_assign(Kernels& k, const Tensor& dst, const Tensor& src, bool add) {
  TGC_INTERNAL_CHECK(dst.dtype() == src.dtype() && dst.shape() == src.shape(), "strided assign of unlike tensors");
  if (dst.numel() == 0) return;
  Space sp{dst.shape(), {dst.strides(), src.strides()}};
  sp.simplify();
  TGC_INTERNAL_CHECK(sp.rank() <= kIndexMaxRank, "strided assign above the maximum rank");
  using namespace cfam::ixp;
  Blob b = new_blob();
  b[kN] = sp.numel();
  b[kRank] = sp.rank();
  put_dims(b, kShape, sp.shape);
  put_dims(b, kDstStride, sp.strides[0]);
  put_dims(b, kSrcStride, sp.strides[1]);
  const bool i32 = sp.numel() <= kInt32Max && sp.reach(0) <= kInt32Max && sp.reach(1) <= kInt32Max;
  const DType t = add ? dst.dtype() : cfam::bits_dtype(dtype_size(dst.dtype()));
  k.launch({add ? IndexOp::Add : IndexOp::Copy, t, DType::Int64, i32}, sp.numel(), b, {operand(dst), operand(src)});
}

// The index arrays of an advanced index, as the layout orders its entries.
struct Arrays {
  std::vector<Tensor> tensors;  // broadcast to the layout's bshape, one per array entry
  DType dtype = DType::Int64;
  int64_t base = 0;             // integer entries' contribution to the offset
  std::vector<const IndexLayout::Advanced*> entries;  // the array entries
};

Arrays layout_arrays(GpuDevice& device, const IndexLayout& l, const std::vector<Tensor>& inputs, size_t first) {
  Arrays a;
  for (const IndexLayout::Advanced& adv : l.advanced) {
    if (adv.array < 0) {
      a.base += adv.value * l.view_strides[adv.view_axis];
      continue;
    }
    Tensor t = on_device(device, inputs[first + static_cast<size_t>(adv.array)]);
    a.dtype = t.dtype();
    a.tensors.push_back(t.broadcast_to(l.bshape));
    a.entries.push_back(&adv);
  }
  return a;
}

// Whether some index array has elements although the indexed result has none: the reference
// still checks every index then, so such calls go to the host (never a hot path).
bool arrays_need_checking(const std::vector<Tensor>& inputs, size_t first) {
  for (size_t i = first; i < inputs.size(); ++i)
    if (inputs[i].numel() > 0) return true;
  return false;
}

// The index pointers i0..i3 (unused ones repeat the first: never read).
void add_index_operands(std::vector<LaunchArg>& args, const Arrays& a) {
  for (int i = 0; i < cfam::kIndexMaxArrays; ++i) {
    const Tensor& t = a.tensors[std::min<size_t>(static_cast<size_t>(i), a.tensors.size() - 1)];
    args.push_back(operand(t));
  }
}

// ---- gather ------------------------------------------------------------------------------

struct GatherState {
  std::shared_ptr<const AdvancedSubtensor> op;
  ErrorFlag flag;
  GatherState(GpuDevice& d, std::shared_ptr<const AdvancedSubtensor> o) : op(std::move(o)), flag(d) {}
};

void gather(Kernels& k, GatherState& s, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  const Tensor x = on_device(k.device, inputs[0]);
  std::vector<Shape> array_shapes;
  for (size_t i = 1; i < inputs.size(); ++i) array_shapes.push_back(inputs[i].shape());
  const IndexLayout l = resolve_index(s.op->name(), s.op->spec(), x.shape(), x.strides(), array_shapes);
  Tensor& out = ensure_output(outputs[0], x.dtype(), l.result_shape, k.device);
  if (out.numel() == 0) {
    if (arrays_need_checking(inputs, 1)) run_on_host(*s.op, k.device, inputs, outputs);
    return;
  }
  const Arrays a = layout_arrays(k.device, l, inputs, 1);
  // The result's dims: the basic view dims with the broadcast dims at bpos.
  const int nb = static_cast<int>(l.bshape.size());
  std::vector<bool> is_adv(l.view_shape.size(), false);
  for (const auto& adv : l.advanced) is_adv[adv.view_axis] = true;
  Space sp;
  sp.strides.assign(2 + a.tensors.size(), {});  // out, x, arrays
  auto add_dim = [&](int64_t n, int64_t x_stride, int bdim) {
    sp.shape.push_back(n);
    sp.strides[1].push_back(x_stride);
    for (size_t i = 0; i < a.tensors.size(); ++i) sp.strides[2 + i].push_back(bdim < 0 ? 0 : a.tensors[i].strides()[bdim]);
  };
  std::vector<size_t> basic;  // view axes not indexed by an array, in order
  for (size_t d = 0; d < l.view_shape.size(); ++d)
    if (!is_adv[d]) basic.push_back(d);
  for (size_t i = 0; i <= basic.size(); ++i) {
    if (static_cast<int>(i) == l.bpos)
      for (int j = 0; j < nb; ++j) add_dim(l.bshape[j], 0, j);
    if (i < basic.size()) add_dim(l.view_shape[basic[i]], l.view_strides[basic[i]], -1);
  }
  TGC_INTERNAL_CHECK(sp.shape == l.result_shape, "gather plan disagrees with the result shape");
  sp.strides[0] = contiguous_strides(l.result_shape);
  sp.simplify();

  using namespace cfam::ixp;
  Blob b = new_blob();
  b[kN] = sp.numel();
  b[kRank] = sp.rank();
  put_dims(b, kShape, sp.shape);
  put_dims(b, kGXStride, sp.strides[1]);
  b[kGBase] = l.view_offset + a.base;
  b[kGArrays] = static_cast<int64_t>(a.tensors.size());
  bool i32 = sp.numel() <= kInt32Max && tensor_reach(x) <= kInt32Max && std::abs(b[kGBase]) <= kInt32Max;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const int rec = kGArray0 + static_cast<int>(i) * kArrayStride;
    b[rec] = l.view_shape[a.entries[i]->view_axis];
    b[rec + 1] = l.view_strides[a.entries[i]->view_axis];
    put_dims(b, rec + 2, sp.strides[2 + i]);
    i32 = i32 && sp.reach(2 + i) <= kInt32Max;
  }
  std::vector<LaunchArg> args = {operand(out), operand(x), operand(s.flag.ptr, sizeof(int))};
  add_index_operands(args, a);
  k.launch({IndexOp::Gather, cfam::bits_dtype(dtype_size(x.dtype())), a.dtype, i32}, sp.numel(), b, std::move(args));
  // The reference raises the exact error (naming the index, the axis and its size).
  s.flag.check(s.op, inputs, outputs, 1);
}

// ---- scatter (IncSubtensor) --------------------------------------------------------------

struct ScatterState {
  std::shared_ptr<const IncSubtensor> op;
  bool deterministic;
  ErrorFlag flag;
  ScatterState(GpuDevice& d, std::shared_ptr<const IncSubtensor> o, bool det)
      : op(std::move(o)), deterministic(det), flag(d) {}
};

int64_t next_pow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Sorts npad (key, pos) pairs: tiles in local memory, then for each larger bitonic size k the
// global steps down to the tile and one merge launch for the steps inside tiles.
void sort_pairs(Kernels& k, void* keys, void* pos, int64_t npad) {
  using namespace cfam;
  Blob b = new_blob();
  b[ixp::kSNPad] = npad;
  const std::vector<LaunchArg> args = {operand(keys, 8), operand(pos, 8)};
  k.launch_blocks({IndexOp::SortTile}, npad / kSortTile, kSortThreads, b, args);
  for (int64_t kk = 2 * kSortTile; kk <= npad; kk <<= 1) {
    b[ixp::kSK] = kk;
    for (int64_t j = kk / 2; j >= kSortTile; j >>= 1) {
      b[ixp::kSJ] = j;
      k.launch({IndexOp::SortStep}, npad / 2, b, args);
    }
    k.launch_blocks({IndexOp::SortMerge}, npad / kSortTile, kSortThreads, b, args);
  }
}

// The short lists' sort (cfam::IndexOp::RankCount): each pair's rank counted in chunks spread
// over about two blocks per multiprocessor, then placed. `keys_in` holds the unsorted keys.
void rank_sort_pairs(Kernels& k, const void* keys_in, void* keys, void* pos, int64_t n) {
  using namespace cfam;
  const int64_t span = int64_t{kIndexUnroll} * kSortThreads, nbi = (n + span - 1) / span;
  const int64_t want = std::max<int64_t>(1, 2 * int64_t{k.device.limits().multiprocessors});
  const int64_t chunks_wanted = std::clamp<int64_t>((want + nbi - 1) / nbi, 1, (n + kSortThreads - 1) / kSortThreads);
  const int64_t chunk = ((n + chunks_wanted - 1) / chunks_wanted + kSortThreads - 1) / kSortThreads * kSortThreads;
  const int64_t chunks = (n + chunk - 1) / chunk;
  Scratch part(k.device, static_cast<size_t>(chunks * n) * sizeof(int));
  Blob b = new_blob();
  b[ixp::kN] = n;
  b[ixp::kRankChunks] = chunks;
  b[ixp::kRankChunk] = chunk;
  k.launch_blocks({IndexOp::RankCount}, nbi * chunks, kSortThreads, b, {operand(keys_in, 8), operand(part.ptr, sizeof(int))});
  k.launch({IndexOp::RankPlace}, n, b,
           {operand(keys_in, 8), operand(part.ptr, sizeof(int)), operand(keys, 8), operand(pos, 8)});
}

// The advanced IncSubtensor. Deterministic (the default, and every set): sort the index list's
// (key, position) pairs, then the first thread of each run of equal keys writes its
// destination — set the run's last value, inc the destination plus the run's values in
// position order, which is the reference's loop order, so the bits are the reference's.
// Why a sort: for an embedding gradient (50k x 256 table, N = 512 x L indices; N = 65,536 at
// L = 128) the scatter itself reads N x 256 values once, coalesced along the row (16.8M
// loads), whatever the scheme. The alternatives considered: (a) a thread per (column, block
// of the list) accumulating privately must still combine blocks that share a row — in a fixed
// order that needs per-block partial rows (blocks x 256 floats per touched row) or a second
// pass over the list per row; (b) a counting sort by row needs a histogram and scan over the
// 50k rows and atomically placed positions, whose order within a row then has to be sorted
// anyway to be deterministic; (c) a bitonic sort of 64-bit (key, pos) pairs: for N = 65,536,
// 136 steps of N/2 compare-exchanges (4.5M), all but 28 steps inside tiles of 512 pairs in
// local memory (36 launches); the 28 global steps move 28 x 65,536 x 32 B = 59 MB, about what
// the scatter itself reads (67 MB of values): a few tens of microseconds on an H100, with no
// atomics, no per-row scratch, and the reference's bits. The serial part is a row's own run: a token
// seen m times costs m dependent adds in one thread (a padding token filling half of the
// batch is the slow case; summing it in position order is what gives the reference's bits).
// Lists of up to kRankSortMax pairs whose composites fit 32 bits take the rank sort instead:
// two launches of n^2 32-bit comparisons (at n = 8,192 the bitonic sort was 15 launches).
// deterministic=false with a float dtype the dialect has atomics for: no sort, one atomic add
// per value (the fastest for long lists; the order of the adds, so the last bits, varies).
void advanced_scatter(Kernels& k, ScatterState& s, const IndexLayout& l, Tensor& out, const Tensor& v,
                      const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  using namespace cfam::ixp;
  const bool set = s.op->mode() == IncSubtensor::Mode::Set;
  const Arrays a = layout_arrays(k.device, l, inputs, 2);
  const Tensor vb = v.broadcast_to(l.result_shape);
  const int nb = static_cast<int>(l.bshape.size());
  // The list (broadcast index) dims and the basic dims, with the value's strides for each.
  std::vector<bool> is_adv(l.view_shape.size(), false);
  for (const auto& adv : l.advanced) is_adv[adv.view_axis] = true;
  Space basic;
  basic.strides.assign(2, {});  // out, value
  int r = 0;
  for (size_t d = 0; d < l.view_shape.size(); ++d) {
    if (is_adv[d]) continue;
    if (r == l.bpos) r += nb;
    basic.shape.push_back(l.view_shape[d]);
    basic.strides[0].push_back(l.view_strides[d]);
    basic.strides[1].push_back(vb.strides()[r++]);
  }
  Space list;
  list.shape = l.bshape;
  list.strides.assign(1 + a.tensors.size(), {});  // value, arrays
  for (int j = 0; j < nb; ++j) {
    list.strides[0].push_back(vb.strides()[l.bpos + j]);
    for (size_t i = 0; i < a.tensors.size(); ++i) list.strides[1 + i].push_back(a.tensors[i].strides()[j]);
  }
  const int64_t n = list.numel(), bn = basic.numel();
  if (n == 0 || bn == 0) {
    if (arrays_need_checking(inputs, 2)) run_on_host(*s.op, k.device, inputs, outputs);
    return;
  }
  // Keys number the destinations in mixed radix over the indexed axes' sizes.
  std::vector<int64_t> radix(a.tensors.size(), 1);
  long double range = 1;
  for (size_t i = a.tensors.size(); i-- > 0;) {
    radix[i] = static_cast<int64_t>(range);
    range *= static_cast<long double>(l.view_shape[a.entries[i]->view_axis]);
  }
  if (range > 4.0e18L) return run_on_host(*s.op, k.device, inputs, outputs);  // keys beyond int64

  basic.simplify();
  list.simplify();
  // Float atomics only where allowed, and where the dialect has them for this dtype.
  const DType t = out.dtype();
  const bool atomic = !s.deterministic && !set &&
                      cfam::index_entry(k.device.dialect(), {IndexOp::ScatterAtomicInc, t}) >= 0;
  // Composites (key + 1) * n + position below 2^32 - 1 (key -1 marks a flagged pair).
  const bool rank_sort = !atomic && n <= cfam::kRankSortMax &&
                         (range + 1) * static_cast<long double>(n) < 4294967295.0L;
  const int64_t npad = atomic || rank_sort ? n : std::max<int64_t>(cfam::kSortTile, next_pow2(n));
  Scratch keys(k.device, static_cast<size_t>(npad) * 8), pos(k.device, static_cast<size_t>(npad) * 8);
  Scratch unsorted(k.device, rank_sort ? static_cast<size_t>(n) * 8 : 0);

  Blob kb = new_blob();
  kb[kN] = n;
  kb[kRank] = list.rank();
  put_dims(kb, kShape, list.shape);
  kb[kKNPad] = npad;
  kb[kKArrays] = static_cast<int64_t>(a.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const int rec = kKArray0 + static_cast<int>(i) * kArrayStride;
    kb[rec] = l.view_shape[a.entries[i]->view_axis];
    kb[rec + 1] = radix[i];
    put_dims(kb, rec + 2, list.strides[1 + i]);
  }
  std::vector<LaunchArg> kargs = {operand(rank_sort ? unsorted.ptr : keys.ptr, 8), operand(pos.ptr, 8),
                                  operand(s.flag.ptr, sizeof(int))};
  add_index_operands(kargs, a);
  k.launch({IndexOp::ScatterKeys, DType::Int64, a.dtype}, npad, kb, std::move(kargs));
  if (rank_sort) rank_sort_pairs(k, unsorted.ptr, keys.ptr, pos.ptr, n);
  else if (!atomic) sort_pairs(k, keys.ptr, pos.ptr, npad);

  Blob cb = new_blob();
  cb[kN] = n;
  cb[kCBasicN] = bn;
  cb[kCBasicRank] = basic.rank();
  put_dims(cb, kCBasicShape, basic.shape);
  put_dims(cb, kCBasicOut, basic.strides[0]);
  put_dims(cb, kCBasicVal, basic.strides[1]);
  cb[kCListRank] = list.rank();
  put_dims(cb, kCListShape, list.shape);
  put_dims(cb, kCListVal, list.strides[0]);
  cb[kCBase] = l.view_offset + a.base;
  cb[kCArrays] = static_cast<int64_t>(a.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const int rec = kCArray0 + static_cast<int>(i) * kCArrayStride;
    cb[rec] = l.view_shape[a.entries[i]->view_axis];
    cb[rec + 1] = radix[i];
    cb[rec + 2] = l.view_strides[a.entries[i]->view_axis];
  }
  // Lanes per pair: the basic elements' count over kIndexUnroll up to a block, so a pair's row
  // is coalesced stretches of one block and short rows share a block with other pairs.
  const int64_t lanes =
      std::min<int64_t>(cfam::kSortThreads, next_pow2((bn + cfam::kIndexUnroll - 1) / cfam::kIndexUnroll));
  cb[kCLanes] = lanes;
  const int64_t per_block = cfam::kSortThreads / lanes;
  const int64_t cap = std::max<int64_t>(1, int64_t{k.device.limits().multiprocessors} * 32);
  const IndexOp op = atomic ? IndexOp::ScatterAtomicInc : set ? IndexOp::ScatterSet : IndexOp::ScatterInc;
  const DType et = op == IndexOp::ScatterSet ? cfam::bits_dtype(dtype_size(t)) : t;
  k.launch_blocks({op, et}, std::clamp<int64_t>((n + per_block - 1) / per_block, 1, cap), cfam::kSortThreads, cb,
                  {operand(out), operand(vb), operand(keys.ptr, 8), operand(pos.ptr, 8), operand(s.flag.ptr, sizeof(int))});
  s.flag.check(s.op, inputs, outputs, 2);
}

void inc_subtensor(Kernels& k, ScatterState& s, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  const IncSubtensor& op = *s.op;
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  op.infer_shapes(shapes);  // the value's broadcast, with the reference's message
  const Tensor& x_in = inputs[0];
  Tensor& out = op.inplace_input(0) == 0 ? ensure_output_inplace(outputs[0], x_in.dtype(), x_in.shape(), inputs, {0}, k.device)
                                          : ensure_output(outputs[0], x_in.dtype(), x_in.shape(), k.device);
  // (After the output: a handle of x taken before would have kept it from being written in place.)
  const Tensor x = on_device(k.device, x_in);
  const Tensor v = on_device(k.device, inputs[1]);
  if (!out.shares_buffer(x)) strided_assign(k, out, x, false);  // in place, out is x (in x's layout)
  const std::vector<Shape> array_shapes(shapes.begin() + 2, shapes.end());
  const IndexLayout l = resolve_index(op.name(), op.spec(), out.shape(), out.strides(), array_shapes);
  if (!l.is_advanced()) {
    const Tensor view = out.view(l.view_shape, l.view_strides, out.offset() + l.view_offset);
    strided_assign(k, view, v.broadcast_to(l.view_shape), op.mode() == IncSubtensor::Mode::Inc);
    return;
  }
  advanced_scatter(k, s, l, out, v, inputs, outputs);
}

// ---- arg reductions ----------------------------------------------------------------------

void arg_reduce(Kernels& k, const ArgReduce& op, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  const Tensor x = on_device(k.device, inputs[0]);
  const Shape out_shape = op.infer_shapes({x.shape()})[0];  // raises the reference's error for empty reductions
  Tensor& out = ensure_output(outputs[0], DType::Int64, out_shape, k.device);
  if (out.numel() == 0) return;
  Space kept, red;
  kept.strides.assign(1, {});
  red.strides.assign(1, {});
  for (int d = 0; d < x.ndim(); ++d) {
    Space& s = op.axis() && x.ndim() > 0 && d != *op.axis() ? kept : red;
    s.shape.push_back(x.shape()[d]);
    s.strides[0].push_back(x.strides()[d]);
  }
  kept.simplify();
  red.simplify();
  using namespace cfam::ixp;
  Blob b = new_blob();
  b[kANOut] = kept.numel();
  b[kANRed] = red.numel();
  b[kAKeptRank] = kept.rank();
  b[kARedRank] = red.rank();
  put_dims(b, kAKeptShape, kept.shape);
  put_dims(b, kARedShape, red.shape);
  put_dims(b, kAKeptStride, kept.strides[0]);
  put_dims(b, kARedStride, red.strides[0]);
  const bool max = op.kind() == ArgKind::Argmax;
  const int64_t nout = kept.numel(), nred = red.numel();
  // A thread per output while outputs fill the device and rows are short; else a block per
  // output, its lanes sweeping the row together.
  const int64_t resident = int64_t{k.device.limits().multiprocessors} * 1024;
  const bool block = nred >= 64 && nout < resident;
  const IndexOp kind = block ? (max ? IndexOp::ArgmaxBlock : IndexOp::ArgminBlock)
                             : (max ? IndexOp::ArgmaxThread : IndexOp::ArgminThread);
  const std::vector<LaunchArg> args = {operand(out), operand(x)};
  if (block) k.launch_blocks({kind, x.dtype()}, std::min<int64_t>(nout, 65535), cfam::kArgBlockThreads, b, args);
  else k.launch({kind, x.dtype()}, nout, b, args);
}

// ---- joins and fills -------------------------------------------------------------------

void join(Kernels& k, const Op& op, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  const Shape shape = op.infer_shapes(shapes)[0];
  Tensor& out = ensure_output(outputs[0], inputs[0].dtype(), shape, k.device);
  if (const auto* c = dynamic_cast<const Concatenate*>(&op)) {
    const int axis = c->axis() < 0 ? c->axis() + static_cast<int>(shape.size()) : c->axis();
    int64_t start = 0;
    for (const Tensor& in : inputs) {
      strided_assign(k, out.view(in.shape(), out.strides(), out.offset() + start * out.strides()[axis]),
                     on_device(k.device, in), false);
      start += in.shape()[axis];
    }
    return;
  }
  const auto& st = dynamic_cast<const Stack&>(op);
  const int axis = st.axis() < 0 ? st.axis() + static_cast<int>(shape.size()) : st.axis();
  Strides slab = out.strides();
  slab.erase(slab.begin() + axis);
  for (size_t i = 0; i < inputs.size(); ++i)
    strided_assign(k, out.view(inputs[i].shape(), slab, out.offset() + static_cast<int64_t>(i) * out.strides()[axis]),
                   on_device(k.device, inputs[i]), false);
}

// n values start, start + step, ... of `dtype` into outputs[0] (Arange, ArangeLike).
void launch_arange(Kernels& k, std::vector<Tensor>& outputs, DType dtype, double start, double step, int64_t n) {
  using namespace cfam::ixp;
  Tensor& out = ensure_output(outputs[0], dtype, {n}, k.device);
  if (n == 0) return;
  Blob b = new_blob();
  b[kN] = n;
  dispatch_dtype(dtype, [&]<typename T>() {
    const T first = convert_value<T>(start);
    const T second = convert_value<T>(start + step);
    if constexpr (is_float_type_v<T>) {
      const double f = first, s2 = second;
      std::memcpy(&b[kRFirst], &f, 8);
      std::memcpy(&b[kRSecond], &s2, 8);
    } else {
      b[kRFirst] = static_cast<int64_t>(first);
      b[kRDelta] = static_cast<int64_t>(second) - static_cast<int64_t>(first);
    }
  });
  k.launch({IndexOp::Arange, dtype}, n, b, {operand(out)});
}

void fill(Kernels& k, const Op& op, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  using namespace cfam::ixp;
  if (const auto* ar = dynamic_cast<const Arange*>(&op)) {
    launch_arange(k, outputs, ar->dtype(), ar->start(), ar->step(), ar->length());
    return;
  }
  if (const auto* like = dynamic_cast<const ArangeLike*>(&op)) {
    // The like tensor's shape only: it may still be on the host (placement moves nothing for it).
    launch_arange(k, outputs, DType::Int64, 0, 1, inputs[0].shape().at(like->axis()));
    return;
  }
  if (const auto* eye = dynamic_cast<const Eye*>(&op)) {
    const Shape shape = eye->infer_shapes({})[0];
    Tensor& out = ensure_output(outputs[0], eye->dtype(), shape, k.device);
    if (out.numel() == 0) return;
    Blob b = new_blob();
    b[kN] = out.numel();
    b[kECols] = eye->m();
    b[kEK] = eye->k();
    dispatch_dtype(eye->dtype(), [&]<typename T>() {
      const T one = T(1);
      int64_t bits = 0;
      std::memcpy(&bits, &one, sizeof(T));
      b[kEOne] = bits;
    });
    k.launch({IndexOp::Eye, cfam::bits_dtype(dtype_size(eye->dtype()))}, out.numel(), b, {operand(out)});
    return;
  }
  // Alloc {value}, Fill {like, value}: the value broadcast to the result.
  const Tensor value = on_device(k.device, inputs.back());
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  const Shape shape = op.infer_shapes(shapes)[0];
  Tensor& out = ensure_output(outputs[0], value.dtype(), shape, k.device);
  strided_assign(k, out, value.broadcast_to(shape), false);
}

// ---- declines ----------------------------------------------------------------------------

bool rank_fits(const Node& node) {
  for (const auto& v : node.inputs())
    if (v->type().ndim() > kIndexMaxRank) return false;
  for (int i = 0; i < node.num_outputs(); ++i)
    if (node.output_raw(i)->type().ndim() > kIndexMaxRank) return false;
  return true;
}

std::string arrays_decline(const IndexSpec& spec, const Node& node, size_t first) {
  if (spec.num_arrays() > cfam::kIndexMaxArrays)
    return fmt::format("more than {} index arrays", cfam::kIndexMaxArrays);
  for (size_t i = first + 1; i < node.inputs().size(); ++i)
    if (node.inputs()[i]->type().dtype != node.inputs()[first]->type().dtype)
      return "index arrays of different dtypes (cast them to one)";
  return "";
}

}  // namespace

std::string index_op_declines(const Node& node) {
  const Op& op = node.op();
  if (!rank_fits(node)) return fmt::format("a tensor of more than {} dims", kIndexMaxRank);
  if (const auto* a = dynamic_cast<const AdvancedSubtensor*>(&op)) return arrays_decline(a->spec(), node, 1);
  // Half tensors (the rules say they take them): moves copy their bits, so gathers, joins,
  // fills, set_subtensor and eye run; what adds or compares in the element type does not yet.
  const DType out_dtype = node.num_outputs() ? node.output_raw(0)->type().dtype : DType::Float32;
  if (const auto* inc = dynamic_cast<const IncSubtensor*>(&op)) {
    if (node.inputs()[1]->type().dtype != node.inputs()[0]->type().dtype)
      return "a value of another dtype than the tensor (cast it first)";
    if (inc->mode() != IncSubtensor::Mode::Set && is_half(out_dtype))
      return fmt::format("inc_subtensor (a scatter-add) takes no {} tensors on the device yet", dtype_name(out_dtype));
    return inc->spec().has_arrays() ? arrays_decline(inc->spec(), node, 2) : "";
  }
  if (dynamic_cast<const Concatenate*>(&op) || dynamic_cast<const Stack*>(&op)) {
    for (const auto& v : node.inputs())
      if (v->type().dtype != node.output_raw(0)->type().dtype) return "inputs of mixed dtypes (cast them to one)";
  }
  if (dynamic_cast<const Arange*>(&op) && is_half(out_dtype))
    return fmt::format("arange makes no {} tensors on the device yet", dtype_name(out_dtype));
  return "";
}

ThunkFn make_index_view_thunk(GpuDevice& device, const Node& node) {
  std::shared_ptr<const Op> op = node.op_ptr();
  GpuDevice* dev = &device;
  // ReshapeLike is a view of a dense x: a strided x is made dense on the device first (like's
  // elements are never read).
  if (dynamic_cast<const ReshapeLike*>(op.get()))
    return [dev, op](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
      op->perform({contiguous_on_device(*dev, inputs.at(0)), inputs.at(1)}, outputs);
    };
  // perform() makes the views (Tensor::view keeps the device buffer): no copy, no launch.
  return [op](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { op->perform(inputs, outputs); };
}

// The thunk that calls `run(kernels, *what, inputs, outputs)` with this device's index kernels
// (`what`: the op, or the op's state kept across calls).
template <typename What, typename Run>
ThunkFn index_thunk(GpuDevice& device, std::shared_ptr<What> what, const Config& config, Run run) {
  GpuDevice* dev = &device;
  return [dev, what, run, cache_dir = config.cache_dir](const std::vector<Tensor>& inputs,
                                                       std::vector<Tensor>& outputs) {
    Kernels k{*dev, cache_dir};
    run(k, *what, inputs, outputs);
  };
}

ThunkFn make_gather_thunk(GpuDevice& device, const Node& node, const Config& config) {
  auto op = std::dynamic_pointer_cast<const AdvancedSubtensor>(node.op_ptr());
  TGC_INTERNAL_CHECK(op != nullptr, "gather thunk for " + node.op().name());
  return index_thunk(device, std::make_shared<GatherState>(device, op), config, gather);
}

ThunkFn make_inc_subtensor_thunk(GpuDevice& device, const Node& node, const Config& config) {
  auto op = std::dynamic_pointer_cast<const IncSubtensor>(node.op_ptr());
  TGC_INTERNAL_CHECK(op != nullptr, "scatter thunk for " + node.op().name());
  return index_thunk(device, std::make_shared<ScatterState>(device, op, config.deterministic), config, inc_subtensor);
}

ThunkFn make_arg_reduce_thunk(GpuDevice& device, const Node& node, const Config& config) {
  auto op = std::dynamic_pointer_cast<const ArgReduce>(node.op_ptr());
  TGC_INTERNAL_CHECK(op != nullptr, "arg reduce thunk for " + node.op().name());
  return index_thunk(device, op, config, arg_reduce);
}

ThunkFn make_join_thunk(GpuDevice& device, const Node& node, const Config& config) {
  return index_thunk(device, node.op_ptr(), config, join);
}

ThunkFn make_fill_thunk(GpuDevice& device, const Node& node, const Config& config) {
  return index_thunk(device, node.op_ptr(), config, fill);
}

}  // namespace tgc::gpu
