// Inside the C-family renderer: what render_*.cpp and launch_plan.cpp must agree on — the
// entry list of a kernel, the layout of the params blob, the vector width — and the pieces
// every entry is made of (the per-element functions, index decomposition, loads, stores).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "backends/c_family/dialect.h"
#include "backends/c_family/kernel_render.h"
#include "backends/c_family/render_scalar.h"

namespace tgc::cfam::detail {

// The entries of a kernel, in Source::entries order (entry_list): each kind in an int32 and
// an int64 index version, except EwStridedVector and the vector reductions (int32 only: a reduction over more
// than 2^31 elements reads at its scalar speed rather than cost every kernel two more entries).
enum class EntryKind {
  // Elementwise kernels.
  EwVector,      // dense, same-shaped, aligned operands: 16-byte accesses and a scalar tail
  EwContiguous,  // dense, same-shaped operands: flat index
  EwStrided,     // any strides and broadcasts over the collapsed dims
  // EwStrided with w-element vectors along the innermost dim: every operand dense along it
  // (or one element), its extent and the other strides multiples of w, aligned bases (NHWC
  // activations with (C,) vectors broadcast over the rows: a batch norm's y and dx).
  EwStridedVector,
  // Reduction kernels.
  RedThread,  // one thread per output element, its reduction in C order
  RedBlock,   // one block per output element: strided lanes, then a fixed tree
  RedPass1,   // blocks reduce fixed, interleaved chunks of each output's reduction into partials
  RedPass2,   // one block per output: the chunk partials combined in order, the epilogue
  // Column reductions (the kept innermost dim dense, the reduced ones strided: a batch norm's
  // sums over (N, H, W) of NHWC activations): a thread folds a stretch of rows of one output,
  // consecutive threads taking consecutive outputs so that a warp's loads of a row are
  // adjacent, into partials that pass 2 combines.
  RedColumn,
  // RedBlock and RedPass1 reading 16-byte vectors along a dense reduced dim (aligned rows),
  // a scalar tail after the last whole vector.
  RedBlockVector,
  RedPass1Vector,
  // RedColumn with a thread folding kColumnVectorOutputs adjacent outputs (one vector load per
  // row and input) and a block's row lanes combined in shared memory before the partials.
  RedColumnVector,
};
// RedColumnVector's shape: outputs per thread (the vector), threads per block (its shared
// combining buffers are sized for it), and the most Reduce values it takes (a buffer each).
constexpr int kColumnVectorOutputs = 4;
constexpr int kColumnVectorBlock = 256;
constexpr int kColumnVectorMaxReduces = 4;
// Its blocks resident on a multiprocessor (CUDA's launch bounds; the planner's grid fills them).
constexpr int kColumnVectorBlocksResident = 4;
// Vectors a lane of the vector reductions loads before folding the first: the renderer's
// batch, and the planner's bound on how far past n_red a lane's index runs (int32 or not).
constexpr int kReductionLoadBatch = 4;

struct EntrySpec {
  EntryKind kind;
  bool index32;
};
std::vector<EntrySpec> entry_list(const Kernel& k);
// The position of (kind, index32) in entry_list (InternalError when the kernel has no such entry).
int entry_index(const Kernel& k, EntryKind kind, bool index32);
std::string entry_name(const std::string& prefix, EntryKind kind, bool index32);

// The params blob: v[] slots. Elementwise: n, rank, shape[R], strides[R] per operand (inputs
// then outputs). Reductions: n_out, n_red, chunks, kept rank, reduced rank,
// kept shape[Rk], reduced shape[Rr], then per operand kept strides[Rk] and reduced
// strides[Rr]. Both end with each shape dim's fast divisor (fast_divisor.h), kept dims then
// reduced ones. Used dims sit at the end of each group (leading unused dims are 1 / 0).
struct ParamLayout {
  bool reduction = false;
  int kept_cap = 1;  // R (elementwise) or Rk
  int red_cap = 0;   // Rr (0 for elementwise)
  int nops = 0;
  static constexpr int kN = 0, kRank = 1;                                       // elementwise
  static constexpr int kNOut = 0, kNRed = 1, kChunks = 2, kKeptRank = 3, kRedRank = 4;  // reductions
  int header() const { return reduction ? 5 : 2; }
  int kept_shape() const { return header(); }
  int red_shape() const { return header() + kept_cap; }
  int kept_strides(int op) const { return header() + kept_cap + red_cap + op * (kept_cap + red_cap); }
  int red_strides(int op) const { return kept_strides(op) + kept_cap; }
  int kept_divisors() const { return kept_strides(nops); }
  int red_divisors() const { return kept_divisors() + kept_cap; }
  size_t capacity() const { return static_cast<size_t>(red_divisors() + red_cap); }
};
ParamLayout param_layout(const Kernel& k);

// Elements per vector access of the EwVector entry: 16 bytes of the widest operand (2 when
// some operand has 8-byte elements, else 4).
int vector_width(const Kernel& k);
// The same for the vector reductions, over the inputs they read along the reduction (the
// loop-space inputs not constant along it).
int reduction_vector_width(const Kernel& k);
// Whether loop-space input j is the same along every reduced axis by its static shape (each
// such dim known to be 1, or absent): a batch norm's (1, C, 1, 1) mean in an NCHW sum. The
// vector reductions read it once per output rather than along the row.
bool constant_along_reduction(const Kernel& k, int input);
// Whether the kernel's Reduce values fit RedColumnVector's shared buffers.
bool column_vector_reduces(const Kernel& k);
// Whether input j is a single element by its static shape (every dim known to be 1): read
// once, at offset 0, even on the dense paths.
bool statically_scalar(const Kernel& k, int input);
// Whether some value may set an error bit.
bool kernel_may_fail(const Kernel& k);

// What an entry's body is written with.
struct Ctx {
  const Kernel& k;
  DialectHooks d;
  Float32Rows float32_rows;  // from RenderOptions::fast_math and float32_in_double
  std::string prefix;
  ParamLayout layout;
  int only_entry = -1;             // RenderOptions::only_entry
  std::vector<bool> only_entries;  // RenderOptions::only_entries
  // Whether the entry at this index of Source::entries gets its definition.
  bool defines(size_t entry_index) const {
    if (!only_entries.empty() && (entry_index >= only_entries.size() || !only_entries[entry_index])) return false;
    return only_entry < 0 || static_cast<size_t>(only_entry) == entry_index;
  }
  int nin() const { return static_cast<int>(k.inputs.size()); }
  int nops() const { return layout.nops; }
  DType operand_dtype(int op) const;
  std::string param(int slot, const std::string& idx) const;  // "((IDX)P.v[slot])"
  // The entry's signature: "QUAL name(ptrs..., scratch, errors, params P[, offsets...])".
  std::string signature(EntryKind kind, bool index32) const;
  // The signature and the body's first lines (OpenCL: operand pointers moved by their offsets).
  std::string open_entry(EntryKind kind, bool index32) const;
  std::string params_type() const { return prefix + "_params"; }
};

// A per-element function "static NAME_out NAME(T vA, ...)" computing `results` from `params`
// (value indices), for the values between them; NAME_out holds the results (r0, r1, ...) and
// the error bits (err). The struct typedef comes first.
std::string element_function(const Ctx& c, const std::string& name, const std::vector<int>& params,
                             const std::vector<int>& results);
// The call of such a function with argument expressions: a block statement that assigns the
// result lvalues and ORs the error bits into the entry's tgc_errors.
std::string element_call(const std::string& name, const std::vector<std::string>& args,
                         const std::vector<std::string>& results);

// Straight-line code splitting `flat` over the dims of one group (shape at `shape_slot`, its
// fast divisors at `divisor_slot`, `cap` dims, `rank` used) and adding coordinate * stride to
// each (offset variable, stride slot) pair. int32 indices divide by multiply-high and shift.
std::string decompose(const Ctx& c, const std::string& idx, const std::string& flat, int shape_slot, int divisor_slot,
                      int cap, const std::string& rank, const std::vector<std::pair<std::string, int>>& offsets);

// The register value of input j read at `offset` (bool bytes read as nonzero).
std::string load(const Ctx& c, int input, const std::string& offset);
// Stores the register value `value` to output j at `offset`.
std::string store(const Ctx& c, int output, const std::string& offset, const std::string& value);
// "if (tgc_errors) atomicOr(errors, tgc_errors);" (or nothing when no value can fail).
std::string flush_errors(const Ctx& c);
// The Load value of input j.
int load_value(const Kernel& k, int input);

// Entry bodies (render_elementwise.cpp, render_reduction.cpp).
std::string render_elementwise_entries(const Ctx& c, std::vector<std::string>& entries, std::vector<bool>& wide_index);
std::string render_reduction_entries(const Ctx& c, std::vector<std::string>& entries, std::vector<bool>& wide_index);

}  // namespace tgc::cfam::detail
