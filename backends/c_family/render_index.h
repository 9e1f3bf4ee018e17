// The index and data-movement kernels of GPU devices (gathers, scatters, strided copies and
// adds, arg reductions, fills), rendered once as C-family source for CUDA C and OpenCL C 1.2
// through the dialect hooks. Device-agnostic: backends/gpu/index_thunks plans and launches them.
//
// The ABI of every entry: its pointer arguments (listed per op below; OpenCL: __global), then
// the params blob by value (`struct { long long v[kIndexParams]; }`, slots per op below;
// shapes are run-time values, never compiled in), then, OpenCL only, one ulong per pointer
// argument in order: its offset in elements (kernel_render.h; every pointer is an operand).
// Shapes in a blob hold only the dims in use (size-1 dims dropped, mergeable dims merged by
// the planner), at most kIndexMaxRank, outermost first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "runtime/dtype.h"

namespace tgc::cfam {

constexpr int kIndexMaxRank = 8;
constexpr int kIndexMaxArrays = 4;   // index arrays of one gather or scatter
constexpr int kIndexParams = 64;     // long longs in the params blob of every index entry
constexpr int kSortThreads = 256;    // threads of the sort entries' blocks
constexpr int kSortTile = 2 * kSortThreads;  // keys a sort block holds in local memory
// The longest list the rank sort takes: its n^2 comparisons (n = 8,192: 67M, about 4 us on an
// H100 in one launch pair) beat the bitonic sort's log^2 n launches (15 at n = 8,192, 32 us)
// up to here; past it the bitonic sort's n log^2 n work wins.
constexpr int64_t kRankSortMax = 16384;
constexpr int kArgBlockThreads = 256;        // threads of the block-per-output arg reduction
// Elements a scatter thread takes at once, their loads issued together (with the lanes per
// pair instead of a flat index's division: 24.7 -> 13.9 us for the bag of words' 8,192 x 256
// scatter on an H100). The same in the gather and the strided elementwise kernels made them
// slower (16.0 -> 17.1 and 12.8 -> 13.8 us): their time is index arithmetic, not latency.
constexpr int kIndexUnroll = 4;

enum class IndexOp : uint8_t {
  // (dst, src): dst[q_dst] = src[q_src] over a strided space; by element size (the dtype
  // stands for its size: uint8, int16, int32, int64). Alloc, Fill, Concatenate, Stack,
  // set_subtensor with slices, copies of x into IncSubtensor's result.
  Copy,
  // (dst, src): dst[q_dst] = (T)(dst[q_dst] + src[q_src]); by dtype (bool: or). inc_subtensor
  // with slices.
  Add,
  // (out, x, flag, idx0..idx3): out[i] = x[base + sum of coords * x strides + sum over arrays
  // of wrap(idx_k[...]) * adv stride_k]; by element size and index dtype. An index outside
  // [-n, n) ORs 1 into *flag and writes nothing.
  Gather,
  // (keys, pos, flag, idx0..idx3): for each position i of the broadcast index list, keys[i]
  // = the mixed-radix number of the destination's index tuple, pos[i] = i; keys of the padding
  // [n, n_pad) are the largest long long; by index dtype. Out-of-range: as Gather, and the
  // pair's key is -1, which the scatters skip.
  ScatterKeys,
  // (keys, pos): bitonic sort of (key, pos) pairs, ascending: SortTile sorts each tile of
  // kSortTile pairs in local memory, SortStep is one compare-exchange step (k, j) over all
  // pairs, SortMerge the steps j < kSortTile of one k, in local memory.
  SortTile,
  SortStep,
  SortMerge,
  // (keys_in, part) and (keys_in, part, keys, pos): the short lists' sort (n <= kRankSortMax
  // and (range + 1) * n below 2^32, see index_thunks): each pair's rank is the number of
  // pairs before it, counted with 32-bit composites (key + 1) * n + position. RankCount: block
  // b counts, for the kIndexUnroll x kSortThreads positions of b mod ceil(n / that), the pairs
  // of chunk b div that number below each; part[chunk * n + i] = the count. RankPlace sums a
  // position's counts r and writes keys[r] = keys_in[i], pos[r] = i. Two launches, no atomics.
  RankCount,
  RankPlace,
  // (out, v, keys, pos): over the sorted pairs x the basic elements, `lanes` threads per pair
  // (blocks of kSortThreads, grid-stride over the pairs); the first pair of each
  // run of equal keys writes its destination: Set the value of the run's last position (the
  // last wins, as the reference's loop), Inc the destination plus every value of the run in
  // position order (the reference's order, so its bits). Set by element size, Inc by dtype.
  ScatterSet,
  ScatterInc,
  // (out, v, keys, pos): unsorted pairs, one float atomic add per (position, basic element)
  // (deterministic=false only): float32 (OpenCL: a compare-exchange loop) and float64 (CUDA).
  ScatterAtomicInc,
  // (out, x): out[o] = the first index of the largest / smallest element of output o's
  // reduction (NaN wins, the first NaN), by dtype: one thread per output, or one block of
  // kArgBlockThreads per output.
  ArgmaxThread,
  ArgminThread,
  ArgmaxBlock,
  ArgminBlock,
  // (out): out[i] = NumPy's arange value i; by dtype (no bool).
  Arange,
  // (out): out[i] = one where col - row == k, else 0, over a dense n x m; by element size.
  Eye,
};

struct IndexKernel {
  IndexOp op = IndexOp::Copy;
  DType dtype = DType::Int32;  // value dtype, or the element size's stand-in
  DType index = DType::Int64;  // index arrays' dtype (Gather, ScatterKeys)
  bool index32 = false;        // int32 offsets (Copy, Add, Gather); the others use 64-bit ones
  bool operator==(const IndexKernel&) const = default;
};

// The dtype standing for an element size in by-size entries (1: uint8, 2: int16, ...).
DType bits_dtype(size_t element_size);

// Every entry of the index unit, in order; launch indices are positions in this list.
const std::vector<IndexKernel>& index_kernels(Dialect dialect);
// The position of `k` in index_kernels(dialect); -1 when the unit has no such entry.
int index_entry(Dialect dialect, const IndexKernel& k);
std::string index_entry_name(const IndexKernel& k);  // "tgc_ix_gather_b4_int64_i32"

// The whole unit (only_entry < 0) or the unit with only that entry defined (PoCL builds
// each entry on its first launch).
std::string render_index(Dialect dialect, int only_entry = -1);

// The params slots of each op (blob positions).
namespace ixp {
// Copy / Add.
constexpr int kN = 0, kRank = 1, kShape = 2, kDstStride = 2 + kIndexMaxRank, kSrcStride = 2 + 2 * kIndexMaxRank;
// Gather: result rank and shape (C order; out is dense), x strides per result dim, the base
// offset into x, then per array: axis size, x stride of its axis, strides per result dim.
constexpr int kGXStride = 2 + kIndexMaxRank, kGBase = 2 + 2 * kIndexMaxRank, kGArrays = kGBase + 1, kGArray0 = kGArrays + 1;
constexpr int kArrayStride = 2 + kIndexMaxRank;  // slots per array record
// ScatterKeys: n, rank, bshape, n_pad, arrays; per array: axis size, radix, strides over bshape.
constexpr int kKNPad = 2 + kIndexMaxRank, kKArrays = kKNPad + 1, kKArray0 = kKArrays + 1;
// Sorts: n_pad, k, j. Rank sort: n, chunks, chunk length (a multiple of kSortThreads).
constexpr int kSNPad = 0, kSK = 1, kSJ = 2;
constexpr int kRankChunks = 1, kRankChunk = 2;
// Scatter Set / Inc / AtomicInc: n (list length), basic n, basic rank, basic shape, basic
// out strides, basic value strides, list rank, list shape, list value strides, base offset
// into out, arrays; per array: axis size, radix, out stride of its axis.
constexpr int kCBasicN = 1, kCBasicRank = 2, kCBasicShape = 3, kCBasicOut = kCBasicShape + kIndexMaxRank,
              kCBasicVal = kCBasicOut + kIndexMaxRank, kCListRank = kCBasicVal + kIndexMaxRank,
              kCListShape = kCListRank + 1, kCListVal = kCListShape + kIndexMaxRank,
              kCBase = kCListVal + kIndexMaxRank, kCArrays = kCBase + 1, kCArray0 = kCArrays + 1;
constexpr int kCArrayStride = 3;
// ... and after the arrays: the lanes per list position (a power of two dividing the block).
constexpr int kCLanes = kCArray0 + kIndexMaxArrays * kCArrayStride;
// Arg reductions: outputs, reduced count, kept rank, reduced rank, kept shape, reduced shape,
// kept strides, reduced strides (out is dense).
constexpr int kANOut = 0, kANRed = 1, kAKeptRank = 2, kARedRank = 3, kAKeptShape = 4,
              kARedShape = kAKeptShape + kIndexMaxRank, kAKeptStride = kARedShape + kIndexMaxRank,
              kARedStride = kAKeptStride + kIndexMaxRank;
// Arange: n, first, second (doubles' bits for float dtypes, values for integers), delta
// (double bits / integer); Eye: n * m, m, k, the bits of one.
constexpr int kRFirst = 1, kRSecond = 2, kRDelta = 3;
constexpr int kECols = 1, kEK = 2, kEOne = 3;
}  // namespace ixp

static_assert(ixp::kGArray0 + kIndexMaxArrays * ixp::kArrayStride <= kIndexParams);
static_assert(ixp::kKArray0 + kIndexMaxArrays * ixp::kArrayStride <= kIndexParams);
static_assert(ixp::kCLanes + 1 <= kIndexParams);
static_assert(ixp::kARedStride + kIndexMaxRank <= kIndexParams);

}  // namespace tgc::cfam
