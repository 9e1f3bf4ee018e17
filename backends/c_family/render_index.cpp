// The index and data-movement kernels as one C-family translation unit: templates with $TOKENS
// filled from the dialect hooks and each entry's types. See render_index.h for the ABI.
#include "backends/c_family/render_index.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/c_family/dialect.h"
#include "backends/c_family/render_template.h"
#include "runtime/error.h"

namespace tgc::cfam {

namespace {

using tmpl::Ptr;
using tmpl::Tokens;

const DType kBitsDTypes[] = {DType::UInt8, DType::Int16, DType::Int32, DType::Int64};
const DType kIndexDTypes[] = {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64};
const DType kAllDTypes[] = {DType::Bool,  DType::Int8,  DType::UInt8,   DType::Int16,
                            DType::Int32, DType::Int64, DType::Float32, DType::Float64};


const char* op_name(IndexOp op) {
  switch (op) {
    case IndexOp::Copy: return "copy";
    case IndexOp::Add: return "add";
    case IndexOp::Gather: return "gather";
    case IndexOp::ScatterKeys: return "scatter_keys";
    case IndexOp::SortTile: return "sort_tile";
    case IndexOp::SortStep: return "sort_step";
    case IndexOp::SortMerge: return "sort_merge";
    case IndexOp::RankCount: return "rank_count";
    case IndexOp::RankPlace: return "rank_place";
    case IndexOp::ScatterSet: return "scatter_set";
    case IndexOp::ScatterInc: return "scatter_inc";
    case IndexOp::ScatterAtomicInc: return "scatter_atomic_inc";
    case IndexOp::ArgmaxThread: return "argmax_thread";
    case IndexOp::ArgminThread: return "argmin_thread";
    case IndexOp::ArgmaxBlock: return "argmax_block";
    case IndexOp::ArgminBlock: return "argmin_block";
    case IndexOp::Arange: return "arange";
    case IndexOp::Eye: return "eye";
  }
  return "?";
}

bool by_size(IndexOp op) {
  return op == IndexOp::Copy || op == IndexOp::Gather || op == IndexOp::ScatterSet || op == IndexOp::Eye;
}
bool has_index_dtype(IndexOp op) { return op == IndexOp::Gather || op == IndexOp::ScatterKeys; }
bool has_index32(IndexOp op) { return op == IndexOp::Copy || op == IndexOp::Add || op == IndexOp::Gather; }
bool has_dtype(IndexOp op) {
  return op != IndexOp::ScatterKeys && op != IndexOp::SortTile && op != IndexOp::SortStep && op != IndexOp::SortMerge &&
         op != IndexOp::RankCount && op != IndexOp::RankPlace;
}

std::vector<IndexKernel> make_list(Dialect dialect) {
  std::vector<IndexKernel> l;
  for (bool i32 : {true, false})
    for (DType t : kBitsDTypes) l.push_back({IndexOp::Copy, t, DType::Int64, i32});
  for (bool i32 : {true, false})
    for (DType t : kAllDTypes) l.push_back({IndexOp::Add, t, DType::Int64, i32});
  for (bool i32 : {true, false})
    for (DType t : kBitsDTypes)
      for (DType ix : kIndexDTypes) l.push_back({IndexOp::Gather, t, ix, i32});
  for (DType ix : kIndexDTypes) l.push_back({IndexOp::ScatterKeys, DType::Int64, ix, false});
  for (IndexOp op : {IndexOp::SortTile, IndexOp::SortStep, IndexOp::SortMerge, IndexOp::RankCount, IndexOp::RankPlace})
    l.push_back({op, DType::Int64});
  for (DType t : kBitsDTypes) l.push_back({IndexOp::ScatterSet, t});
  for (DType t : kAllDTypes) l.push_back({IndexOp::ScatterInc, t});
  // OpenCL 1.2 has 32-bit atomics only (64-bit ones are an extension): float64 stays sorted.
  l.push_back({IndexOp::ScatterAtomicInc, DType::Float32});
  if (dialect == Dialect::Cuda) l.push_back({IndexOp::ScatterAtomicInc, DType::Float64});
  for (IndexOp op : {IndexOp::ArgmaxThread, IndexOp::ArgminThread, IndexOp::ArgmaxBlock, IndexOp::ArgminBlock})
    for (DType t : kAllDTypes) l.push_back({op, t});
  for (DType t : kAllDTypes)
    if (t != DType::Bool) l.push_back({IndexOp::Arange, t});
  for (DType t : kBitsDTypes) l.push_back({IndexOp::Eye, t});
  return l;
}

// What every template may use: the dialect's tokens and the index kernels' sizes.
Tokens base_tokens(const DialectHooks& d) {
  Tokens t = tmpl::dialect_tokens(d);
  t.insert({{"I64MAX", d.cuda() ? "0x7fffffffffffffffLL" : "0x7fffffffffffffffL"},
            {"TILE", std::to_string(kSortTile)},
            {"ST", std::to_string(kSortThreads)},
            {"UNROLL", std::to_string(kIndexUnroll)},
            {"ABT", std::to_string(kArgBlockThreads)},
            {"ABT2", std::to_string(kArgBlockThreads / 2)}});
  return t;
}

std::string open_entry(const DialectHooks& d, const std::string& name, const std::vector<Ptr>& ptrs) {
  return tmpl::open_entry(d, name, ptrs, "tgc_ix_params");
}

using tmpl::decompose;

std::string grid_loop(const std::string& ix, const std::string& var, const std::string& bound) {
  return fmt::format("  for ({0} {1} = ({0})$BID * ({0})$BDIM + ({0})$TID; {1} < {2}; {1} += ({0})$GDIM * ({0})$BDIM) {{\n",
                     ix, var, bound);
}

std::string ix_type(const DialectHooks& d, bool index32) { return index32 ? "int" : d.i64(); }

std::string strided_entry(const DialectHooks& d, const IndexKernel& k, const std::string& name) {
  using namespace ixp;
  const std::string ix = ix_type(d, k.index32), t = memory_type(k.dtype, d.dialect());
  std::string s = open_entry(d, name, {{t, false, "dst"}, {t, true, "src"}});
  s += fmt::format("  const {0} n = ({0})P.v[{1}];\n  const int rank = (int)P.v[{2}];\n", ix, kN, kRank);
  s += grid_loop(ix, "i", "n");
  s += fmt::format("    {} qd = 0, qs = 0;\n", ix);
  s += decompose(ix, "i", "rank", kShape, {{"qd", kDstStride}, {"qs", kSrcStride}}, "    ");
  if (k.op == IndexOp::Copy) s += "    dst[qd] = src[qs];\n";
  else if (k.dtype == DType::Bool) s += "    dst[qd] = (unsigned char)(dst[qd] | src[qs]);\n";
  else s += fmt::format("    dst[qd] = ({0})(dst[qd] + src[qs]);\n", t);
  return s + "  }\n}\n";
}

// The index pointers i0..i3 of gathers and key entries.
std::vector<Ptr> index_ptrs(const DialectHooks& d, DType index) {
  std::vector<Ptr> p;
  for (int a = 0; a < kIndexMaxArrays; ++a) p.push_back({memory_type(index, d.dialect()), true, fmt::format("i{}", a)});
  return p;
}

// For array a (its record at `rec`): reads idx_a at offset a{a}, wraps it into [0, m) or marks
// `bad`, and adds `value * P.v[rec + 1]` (stride or radix) to `target`.
std::string read_index(const std::string& ix, int a, int rec, const std::string& target) {
  return fmt::format(
      "    if (na > {0}) {{\n"
      "      $I64 v_ = ($I64)i{0}[a{0}];\n"
      "      const $I64 m_ = P.v[{1}];\n"
      "      if (v_ < 0) v_ += m_;\n"
      "      if (v_ < 0 || v_ >= m_) bad = 1; else {2} += ({3})v_ * ({3})P.v[{1} + 1];\n"
      "    }}\n",
      a, rec, target, ix);
}

std::string gather_entry(const DialectHooks& d, const IndexKernel& k, const std::string& name) {
  using namespace ixp;
  const std::string ix = ix_type(d, k.index32), t = memory_type(k.dtype, d.dialect());
  std::vector<Ptr> ptrs = {{t, false, "out"}, {t, true, "x"}, {"int", false, "flag"}};
  for (const Ptr& p : index_ptrs(d, k.index)) ptrs.push_back(p);
  std::string s = open_entry(d, name, ptrs);
  s += fmt::format("  const {0} n = ({0})P.v[{1}];\n  const int rank = (int)P.v[{2}];\n", ix, kN, kRank);
  s += fmt::format("  const int na = (int)P.v[{}];\n", kGArrays);
  s += grid_loop(ix, "i", "n");
  s += fmt::format("    {0} q = ({0})P.v[{1}], a0 = 0, a1 = 0, a2 = 0, a3 = 0;\n", ix, kGBase);
  std::vector<std::pair<std::string, int>> offs = {{"q", kGXStride}};
  for (int a = 0; a < kIndexMaxArrays; ++a) offs.emplace_back(fmt::format("a{}", a), kGArray0 + a * kArrayStride + 2);
  s += decompose(ix, "i", "rank", kShape, offs, "    ");
  s += "    int bad = 0;\n";
  for (int a = 0; a < kIndexMaxArrays; ++a) s += read_index(ix, a, kGArray0 + a * kArrayStride, "q");
  s += "    if (bad) { " + d.atomic_or("flag", "1") + "; continue; }\n";
  s += "    out[i] = x[q];\n";
  return s + "  }\n}\n";
}

std::string keys_entry(const DialectHooks& d, const IndexKernel& k, const std::string& name) {
  using namespace ixp;
  std::vector<Ptr> ptrs = {{d.i64(), false, "keys"}, {d.i64(), false, "pos"}, {"int", false, "flag"}};
  for (const Ptr& p : index_ptrs(d, k.index)) ptrs.push_back(p);
  std::string s = open_entry(d, name, ptrs);
  s += fmt::format("  const $I64 n = P.v[{}];\n  const int rank = (int)P.v[{}];\n", kN, kRank);
  s += fmt::format("  const $I64 npad = P.v[{}];\n  const int na = (int)P.v[{}];\n", kKNPad, kKArrays);
  s += grid_loop(d.i64(), "i", "npad");
  s += "    if (i >= n) { keys[i] = $I64MAX; pos[i] = i; continue; }\n";
  s += "    $I64 a0 = 0, a1 = 0, a2 = 0, a3 = 0, key = 0;\n";
  std::vector<std::pair<std::string, int>> offs;
  for (int a = 0; a < kIndexMaxArrays; ++a) offs.emplace_back(fmt::format("a{}", a), kKArray0 + a * kArrayStride + 2);
  s += decompose(d.i64(), "i", "rank", kShape, offs, "    ");
  s += "    int bad = 0;\n";
  for (int a = 0; a < kIndexMaxArrays; ++a) s += read_index(d.i64(), a, kKArray0 + a * kArrayStride, "key");
  // A flagged pair keeps key -1: the scatters skip it (the host then raises the error).
  s += "    if (bad) { " + d.atomic_or("flag", "1") + "; key = -1; }\n";
  s += "    keys[i] = key;\n    pos[i] = i;\n";
  return s + "  }\n}\n";
}

// Pairs (key, pos) compare lexicographically; positions are distinct, so the order is total.
const char* kSwapIfOutOfOrder =
    "      const $I64 ka = K[i], kb = K[l], pa = Q[i], pb = Q[l];\n"
    "      const int greater = ka > kb || (ka == kb && pa > pb);\n"
    "      if (greater == up) { K[i] = kb; K[l] = ka; Q[i] = pb; Q[l] = pa; }\n";

std::string sort_entry(const DialectHooks& d, const IndexKernel& k, const std::string& name) {
  using namespace ixp;
  std::string s = open_entry(d, name, {{d.i64(), false, "keys"}, {d.i64(), false, "pos"}});
  if (k.op == IndexOp::SortStep) {
    s += fmt::format("  const $I64 npad = P.v[{}], k = P.v[{}], j = P.v[{}];\n", kSNPad, kSK, kSJ);
    s += grid_loop(d.i64(), "t", "npad / 2");
    s += "    const $I64 i = 2 * j * (t / j) + t % j, l = i + j;\n";
    s += "    const int up = (i & k) == 0;\n    {\n";
    s += std::string(kSwapIfOutOfOrder) + "    }\n  }\n}\n";
    std::string out = s;
    // K and Q are the global arrays here.
    size_t at;
    while ((at = out.find("K[")) != std::string::npos) out.replace(at, 2, "keys[");
    while ((at = out.find("Q[")) != std::string::npos) out.replace(at, 2, "pos[");
    return out;
  }
  // A tile of kSortTile pairs in local memory; kSortThreads threads, one pair each per step.
  s += "  $SHARED $I64 K[$TILE];\n  $SHARED $I64 Q[$TILE];\n";
  s += "  const $I64 base = ($I64)$BID * $TILE;\n  const int t = $TID;\n";
  s += "  K[t] = keys[base + t]; K[t + $ST] = keys[base + t + $ST];\n";
  s += "  Q[t] = pos[base + t]; Q[t + $ST] = pos[base + t + $ST];\n  $BARRIER;\n";
  if (k.op == IndexOp::SortTile) {
    s += "  for ($I64 k = 2; k <= $TILE; k <<= 1) {\n    for (int j = (int)(k >> 1); j > 0; j >>= 1) {\n";
  } else {
    s += fmt::format("  {{\n    const $I64 k = P.v[{}];\n    for (int j = $ST; j > 0; j >>= 1) {{\n", kSK);
  }
  s += "      const int i = 2 * j * (t / j) + t % j, l = i + j;\n";
  s += "      const int up = ((base + i) & k) == 0;\n";
  s += std::string(kSwapIfOutOfOrder) + "      $BARRIER;\n    }\n  }\n";
  s += "  keys[base + t] = K[t]; keys[base + t + $ST] = K[t + $ST];\n";
  s += "  pos[base + t] = Q[t]; pos[base + t + $ST] = Q[t + $ST];\n}\n";
  return s;
}

// The rank sort (render_index.h). A pair's composite (key + 1) * n + position is below 2^32 by
// the planner's choice, so a comparison is one 32-bit compare of values staged in local memory;
// the padding of a chunk's last tile is the largest composite, which no pair's composite reaches.
std::string rank_entry(const DialectHooks& d, const IndexKernel& k, const std::string& name) {
  using namespace ixp;
  if (k.op == IndexOp::RankCount) {
    // Each thread ranks kIndexUnroll positions, so a composite read from local memory serves
    // that many comparisons.
    std::string s = open_entry(d, name, {{d.i64(), true, "keys"}, {"int", false, "part"}});
    s += fmt::format("  const $I64 n = P.v[{}], chunk = P.v[{}];\n", kN, kRankChunk);
    s += "  const unsigned int un = (unsigned int)n;\n";
    s += "  const $I64 span = $UNROLL * $ST, nbi = (n + span - 1) / span, c = ($I64)$BID / nbi;\n";
    s += "  const $I64 first = (($I64)$BID - c * nbi) * span + $TID;\n";
    s += "  unsigned int ci[$UNROLL];\n  int count[$UNROLL];\n";
    s += "  for (int u = 0; u < $UNROLL; ++u) {\n    const $I64 i = first + u * $ST;\n";
    s += "    ci[u] = i < n ? (unsigned int)(keys[i] + 1) * un + (unsigned int)i : 0u;\n    count[u] = 0;\n  }\n";
    s += "  const $I64 lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;\n";
    s += "  $SHARED unsigned int C[$ST];\n";
    s += "  for ($I64 t0 = lo; t0 < hi; t0 += $ST) {\n";
    s += "    const $I64 j = t0 + $TID;\n";
    s += "    C[$TID] = j < hi ? (unsigned int)(keys[j] + 1) * un + (unsigned int)j : 0xffffffffu;\n";
    s += "    $BARRIER;\n";
    s += "    for (int q = 0; q < $ST; ++q) {\n      const unsigned int cq = C[q];\n";
    s += "      for (int u = 0; u < $UNROLL; ++u) count[u] += cq < ci[u] ? 1 : 0;\n    }\n";
    s += "    $BARRIER;\n  }\n";
    s += "  for (int u = 0; u < $UNROLL; ++u) {\n    const $I64 i = first + u * $ST;\n";
    s += "    if (i < n) part[c * n + i] = count[u];\n  }\n}\n";
    return s;
  }
  std::string s = open_entry(d, name, {{d.i64(), true, "keys_in"}, {"int", true, "part"}, {d.i64(), false, "keys"},
                                       {d.i64(), false, "pos"}});
  s += fmt::format("  const $I64 n = P.v[{}], chunks = P.v[{}];\n", kN, kRankChunks);
  s += grid_loop(d.i64(), "i", "n");
  s += "    $I64 r = 0;\n    for ($I64 c = 0; c < chunks; ++c) r += part[c * n + i];\n";
  s += "    keys[r] = keys_in[i];\n    pos[r] = i;\n  }\n}\n";
  return s;
}

std::string scatter_entry(const DialectHooks& d, const IndexKernel& k, const std::string& name) {
  using namespace ixp;
  const std::string t = memory_type(k.dtype, d.dialect());
  std::string s = open_entry(d, name, {{t, false, "out"}, {t, true, "v"}, {d.i64(), true, "keys"}, {d.i64(), true, "pos"},
                                       {"int", true, "flag"}});
  // Nothing is written once the device's error word is set (by the keys of this scatter, or
  // by an earlier gather of the call): the call raises, and a destination that is a shared
  // variable's own buffer keeps its value.
  s += "  if (*flag) return;\n";
  s += fmt::format("  const $I64 n = P.v[{}], bn = P.v[{}];\n", kN, kCBasicN);
  s += fmt::format("  const int brank = (int)P.v[{}], lrank = (int)P.v[{}], na = (int)P.v[{}];\n", kCBasicRank,
                   kCListRank, kCArrays);
  // `lanes` threads share a pair (its key, run and destination are theirs alike), each taking
  // kIndexUnroll of its basic elements `lanes` apart with their loads issued together (as the
  // gather, for bytes in flight); no per-element division of a flat index, and the one-array,
  // rank-1 layouts of embedding gradients skip the digit and coordinate loops.
  s += fmt::format("  const int lanes = (int)P.v[{}];\n", kCLanes);
  s += "  const $I64 per = ($I64)($BDIM / lanes);\n  const $I64 lane = ($I64)($TID % lanes);\n";
  s += "  for ($I64 i = ($I64)$BID * per + ($I64)($TID / lanes); i < n; i += ($I64)$GDIM * per) {\n";
  s += "    const $I64 key = keys[i];\n    if (key < 0) continue;\n";
  if (k.op != IndexOp::ScatterAtomicInc) {
    // Runs of equal keys: the run's first pair writes the destination.
    s += "    if (i > 0 && keys[i - 1] == key) continue;\n";
    s += "    $I64 j = i + 1;\n    while (j < n && keys[j] == key) ++j;\n";
  }
  // The destination: the key's digits (index values) times their axes' strides; one array's
  // key is its index value (radix 1).
  s += fmt::format("    $I64 dst = P.v[{}];\n", kCBase);
  s += fmt::format("    if (na == 1) dst += key * P.v[{} + 2];\n", kCArray0);
  s += "    else for (int a = 0; a < na; ++a) {\n";
  s += fmt::format("      const $I64 m_ = P.v[{0} + 3 * a], r_ = P.v[{0} + 3 * a + 1];\n", kCArray0);
  s += fmt::format("      dst += (key / r_ % m_) * P.v[{} + 3 * a + 2];\n    }}\n", kCArray0);
  s += "    for ($I64 e0 = lane; e0 < bn; e0 += $UNROLL * lanes) {\n";
  s += fmt::format("      $I64 at_[$UNROLL], bv_[$UNROLL];\n      {} acc_[$UNROLL];\n", t);
  s += "      for (int u = 0; u < $UNROLL; ++u) {\n";
  s += "        const $I64 e = e0 + u * lanes;\n        if (e >= bn) break;\n";
  s += "        $I64 bo = 0, bv = 0;\n";
  s += fmt::format("        if (brank == 1) {{ bo = e * P.v[{}]; bv = e * P.v[{}]; }} else\n", kCBasicOut, kCBasicVal);
  s += decompose(d.i64(), "e", "brank", kCBasicShape, {{"bo", kCBasicOut}, {"bv", kCBasicVal}}, "        ");
  s += "        at_[u] = dst + bo;\n        bv_[u] = bv;\n";
  if (k.op == IndexOp::ScatterInc) s += "        acc_[u] = out[at_[u]];\n";
  s += "      }\n";
  // The value's offset of list position p, for every element alike.
  auto list_offset = [&](const std::string& p) {
    return fmt::format("        $I64 lo = 0;\n        if (lrank == 1) lo = ({}) * P.v[{}]; else\n", p, kCListVal) +
           decompose(d.i64(), p, "lrank", kCListShape, {{"lo", kCListVal}}, "        ");
  };
  const std::string each = "        for (int u = 0; u < $UNROLL; ++u)\n          if (e0 + u * lanes < bn) ";
  if (k.op == IndexOp::ScatterSet) {
    s += "      {\n" + list_offset("pos[j - 1]") + each + "out[at_[u]] = v[bv_[u] + lo];\n      }\n";
  } else if (k.op == IndexOp::ScatterInc) {
    s += "      for ($I64 m = i; m < j; ++m) {\n" + list_offset("pos[m]");
    if (k.dtype == DType::Bool) s += each + "acc_[u] = (unsigned char)(acc_[u] | v[bv_[u] + lo]);\n";
    else s += each + fmt::format("acc_[u] = ({})(acc_[u] + v[bv_[u] + lo]);\n", t);
    s += "      }\n      for (int u = 0; u < $UNROLL; ++u)\n        if (e0 + u * lanes < bn) out[at_[u]] = acc_[u];\n";
  } else {
    s += "      {\n" + list_offset("i");
    if (d.cuda()) s += each + "atomicAdd(&out[at_[u]], v[bv_[u] + lo]);\n      }\n";
    else s += each + "tgc_ix_atomic_add_f32(&out[at_[u]], v[bv_[u] + lo]);\n      }\n";
  }
  s += "    }\n";
  return s + "  }\n}\n";
}

// better(v, b): whether v replaces the best so far b (later index). NaN wins, the first one.
std::string better(DType t, bool max, const std::string& v, const std::string& b) {
  const std::string cmp = fmt::format("{} {} {}", v, max ? ">" : "<", b);
  if (!is_float(t)) return "(" + cmp + ")";
  return fmt::format("(!({1} != {1}) && (({0} != {0}) || {2}))", v, b, cmp);
}

std::string arg_entry(const DialectHooks& d, const IndexKernel& k, const std::string& name) {
  using namespace ixp;
  const bool max = k.op == IndexOp::ArgmaxThread || k.op == IndexOp::ArgmaxBlock;
  const bool block = k.op == IndexOp::ArgmaxBlock || k.op == IndexOp::ArgminBlock;
  const std::string t = memory_type(k.dtype, d.dialect());
  std::string s = open_entry(d, name, {{d.i64(), false, "out"}, {t, true, "x"}});
  s += fmt::format("  const $I64 nout = P.v[{}], nred = P.v[{}];\n", kANOut, kANRed);
  s += fmt::format("  const int krank = (int)P.v[{}], rrank = (int)P.v[{}];\n", kAKeptRank, kARedRank);
  auto fold = [&](const std::string& first, const std::string& step) {
    std::string f = fmt::format("    for ($I64 r = {}; r < nred; r += {}) {{\n", first, step);
    f += fmt::format("      $I64 qr = q;\n      if (rrank == 1) qr += r * P.v[{}];\n      else\n", kARedStride);
    f += decompose(d.i64(), "r", "rrank", kARedShape, {{"qr", kARedStride}}, "      ");
    f += fmt::format("      const {} v = x[qr];\n", t);
    f += "      if (bi < 0 || " + better(k.dtype, max, "v", "best") + ") { best = v; bi = r; }\n    }\n";
    return f;
  };
  if (!block) {
    s += grid_loop(d.i64(), "o", "nout");
    s += "    $I64 q = 0, bi = -1;\n";
    s += decompose(d.i64(), "o", "krank", kAKeptShape, {{"q", kAKeptStride}}, "    ");
    s += fmt::format("    {} best = 0;\n", t);
    s += fold("0", "1");
    return s + "    out[o] = bi;\n  }\n}\n";
  }
  // One block per output (grid-stride over outputs): lanes fold interleaved elements, then a
  // fixed tree in local memory; ties between lanes go to the smaller index.
  s += fmt::format("  $SHARED {} SV[$ABT];\n  $SHARED $I64 SI[$ABT];\n  const int t = $TID;\n", t);
  s += "  for ($I64 o = $BID; o < nout; o += $GDIM) {\n";
  s += "    $I64 q = 0, bi = -1;\n";
  s += decompose(d.i64(), "o", "krank", kAKeptShape, {{"q", kAKeptStride}}, "    ");
  s += fmt::format("    {} best = 0;\n", t);
  s += fold("t", "$ABT");
  s += "    SV[t] = best;\n    SI[t] = bi;\n    $BARRIER;\n";
  s += "    for (int h = $ABT2; h > 0; h >>= 1) {\n      if (t < h && SI[t + h] >= 0) {\n";
  s += fmt::format("        const {} a = SV[t], b = SV[t + h];\n        const $I64 ia = SI[t], ib = SI[t + h];\n", t);
  std::string take;
  if (is_float(k.dtype))
    take = fmt::format("ia < 0 || ((a != a || b != b) ? (b != b && (!(a != a) || ib < ia)) : (a == b ? ib < ia : b {} a))",
                       max ? ">" : "<");
  else
    take = fmt::format("ia < 0 || (a == b ? ib < ia : b {} a)", max ? ">" : "<");
  s += "        if (" + take + ") { SV[t] = b; SI[t] = ib; }\n      }\n      $BARRIER;\n    }\n";
  s += "    if (t == 0) out[o] = SI[0];\n    $BARRIER;\n  }\n}\n";
  return s;
}

std::string fill_entry(const DialectHooks& d, const IndexKernel& k, const std::string& name) {
  using namespace ixp;
  const std::string t = memory_type(k.dtype, d.dialect());
  std::string s = open_entry(d, name, {{t, false, "out"}});
  s += fmt::format("  const $I64 n = P.v[{}];\n", kN);
  if (k.op == IndexOp::Eye) {
    s += fmt::format("  const $I64 m = P.v[{}], k = P.v[{}];\n  const {} one = ({})P.v[{}];\n", kECols, kEK, t, t, kEOne);
    s += grid_loop(d.i64(), "i", "n");
    s += "    const $I64 row = i / m, col = i - row * m;\n";
    s += fmt::format("    out[i] = col - row == k ? one : ({})0;\n  }}\n}}\n", t);
    return s;
  }
  // Arange, as NumPy fills it: the first two values converted from double, the rest from
  // their difference in the output type (the reference's arithmetic).
  if (is_float(k.dtype)) {
    const std::string as_double = d.cuda() ? "__longlong_as_double" : "as_double";
    s += fmt::format("  const {0} first = ({0}){1}(P.v[{2}]), second = ({0}){1}(P.v[{3}]);\n", t, as_double, kRFirst,
                     kRSecond);
    s += fmt::format("  const {} delta = second - first;\n", t);
    s += grid_loop(d.i64(), "i", "n");
    s += fmt::format("    out[i] = i == 1 ? second : ({0})(first + ({0})i * delta);\n  }}\n}}\n", t);
    return s;
  }
  s += fmt::format("  const $U64 first = ($U64)P.v[{}], delta = ($U64)P.v[{}];\n", kRFirst, kRDelta);
  s += grid_loop(d.i64(), "i", "n");
  s += fmt::format("    out[i] = ({})($I64)(first + ($U64)i * delta);\n  }}\n}}\n", t);
  return s;
}

std::string preamble(const DialectHooks& d) {
  std::string s = d.prelude();
  s += fmt::format("typedef struct {{ {} v[{}]; }} tgc_ix_params;\n", d.i64(), kIndexParams);
  if (!d.cuda())
    // OpenCL 1.2 has no float atomics: add through the int bit pattern.
    s += "static inline void tgc_ix_atomic_add_f32(__global float* p, float v) {\n"
         "  volatile __global int* ip = (volatile __global int*)p;\n"
         "  int old = *ip, seen;\n"
         "  do {\n"
         "    seen = old;\n"
         "    old = atomic_cmpxchg(ip, seen, as_int(as_float(seen) + v));\n"
         "  } while (old != seen);\n"
         "}\n";
  return s;
}

std::string render_entry(const DialectHooks& d, const IndexKernel& k) {
  const std::string name = index_entry_name(k);
  switch (k.op) {
    case IndexOp::Copy:
    case IndexOp::Add: return strided_entry(d, k, name);
    case IndexOp::Gather: return gather_entry(d, k, name);
    case IndexOp::ScatterKeys: return keys_entry(d, k, name);
    case IndexOp::SortTile:
    case IndexOp::SortStep:
    case IndexOp::SortMerge: return sort_entry(d, k, name);
    case IndexOp::RankCount:
    case IndexOp::RankPlace: return rank_entry(d, k, name);
    case IndexOp::ScatterSet:
    case IndexOp::ScatterInc:
    case IndexOp::ScatterAtomicInc: return scatter_entry(d, k, name);
    case IndexOp::ArgmaxThread:
    case IndexOp::ArgminThread:
    case IndexOp::ArgmaxBlock:
    case IndexOp::ArgminBlock: return arg_entry(d, k, name);
    case IndexOp::Arange:
    case IndexOp::Eye: return fill_entry(d, k, name);
  }
  return "";
}

}  // namespace

DType bits_dtype(size_t element_size) {
  switch (element_size) {
    case 1: return DType::UInt8;
    case 2: return DType::Int16;
    case 4: return DType::Int32;
    case 8: return DType::Int64;
  }
  TGC_INTERNAL_CHECK(false, "no element type of " + std::to_string(element_size) + " bytes");
  return DType::UInt8;
}

const std::vector<IndexKernel>& index_kernels(Dialect dialect) {
  static const std::vector<IndexKernel> cuda = make_list(Dialect::Cuda), opencl = make_list(Dialect::OpenCL);
  return dialect == Dialect::Cuda ? cuda : opencl;
}

int index_entry(Dialect dialect, const IndexKernel& k) {
  const std::vector<IndexKernel>& list = index_kernels(dialect);
  IndexKernel key = k;
  // Fields an op's entries do not vary by are normalised away.
  if (!has_index_dtype(k.op)) key.index = DType::Int64;
  if (!has_index32(k.op)) key.index32 = false;
  if (!has_dtype(k.op)) key.dtype = DType::Int64;
  const auto at = std::find(list.begin(), list.end(), key);
  return at == list.end() ? -1 : static_cast<int>(at - list.begin());
}

std::string index_entry_name(const IndexKernel& k) {
  std::string s = std::string("tgc_ix_") + op_name(k.op);
  if (has_dtype(k.op))
    s += by_size(k.op) ? fmt::format("_b{}", dtype_size(k.dtype)) : std::string("_") + std::string(dtype_name(k.dtype));
  if (has_index_dtype(k.op)) s += std::string("_") + std::string(dtype_name(k.index));
  if (has_index32(k.op)) s += k.index32 ? "_i32" : "_i64";
  return s;
}

std::string render_index(Dialect dialect, int only_entry) {
  const DialectHooks d(dialect);
  const std::vector<IndexKernel>& list = index_kernels(dialect);
  std::string body;
  for (size_t e = 0; e < list.size(); ++e)
    if (only_entry < 0 || static_cast<size_t>(only_entry) == e) body += "\n" + render_entry(d, list[e]);
  return tmpl::subst(preamble(d) + body, base_tokens(d));
}

}  // namespace tgc::cfam
