// The row kernels as one C-family translation unit: one template per op family, its $TOKENS
// filled from the dialect hooks and each entry's types. See render_rows.h for the ABI and the
// arithmetic.
#include "backends/c_family/render_rows.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/c_family/dialect.h"
#include "backends/c_family/render_template.h"
#include "runtime/error.h"

namespace tgc::cfam {

namespace {

using tmpl::Ptr;
using tmpl::Tokens;

const char* op_name(RowOp op) {
  switch (op) {
    case RowOp::Softmax: return "softmax";
    case RowOp::LogSoftmax: return "log_softmax";
    case RowOp::LogSumExp: return "logsumexp";
    case RowOp::LogSoftmaxGrad: return "log_softmax_grad";
    case RowOp::SoftmaxXent: return "softmax_xent";
    case RowOp::SoftmaxXentScaled: return "softmax_xent_scaled";
  }
  return "?";
}

std::vector<RowKernel> make_list() {
  std::vector<RowKernel> l;
  for (RowOp op : {RowOp::Softmax, RowOp::LogSoftmax, RowOp::LogSumExp, RowOp::LogSoftmaxGrad, RowOp::SoftmaxXent,
                   RowOp::SoftmaxXentScaled})
    for (DType t : {DType::Float32, DType::Float64})
      for (bool i32 : {true, false}) l.push_back({op, t, i32});
  return l;
}

// The tree that combines the block's partials in SA (double) into SA[0], for every thread:
// `combine` of a and b (the lanes t and t + h) into SA[t]; the block size is a power of two.
std::string tree(const std::string& combine) {
  return "    $BARRIER;\n"
         "    for (int h = nt >> 1; h > 0; h >>= 1) {\n"
         "      if (t < h) { const double a = SA[t], b = SA[t + h]; SA[t] = " + combine + "; }\n"
         "      $BARRIER;\n"
         "    }\n";
}

// A loop over the row's elements owned by thread t (r = t, t + nt, ...), with the offset of
// each operand of `ops` (o0, o1, ...) from the row's bases (q0, q1, ...): a multiply when the
// row is one dim, else a decomposition over the reduced shape.
std::string row_loop(const std::string& ix, const std::vector<int>& ops, const std::string& body) {
  using namespace rowp;
  std::string s = "    for ($IX r = t; r < nred; r += nt) {\n";
  for (int o : ops) s += fmt::format("      $IX o{0} = q{0};\n", o);
  s += "      if (rrank == 1) {\n";
  for (int o : ops) s += fmt::format("        o{0} += r * ($IX)P.v[{1}];\n", o, red_strides(o));
  s += "      } else\n";
  std::vector<std::pair<std::string, int>> offs;
  for (int o : ops) offs.emplace_back(fmt::format("o{}", o), red_strides(o));
  s += tmpl::decompose(ix, "r", "rrank", kRedShape, offs, "        ");
  return s + body + "    }\n";
}

// softmax_xent's row (operands: 0 r, 1 d, 2 z, 3 t, 4 g or s): the log_softmax row's max and
// sum as in the other entries, sum(g) in the same sweep, then one sweep that writes d and sums
// t * y for r. Four trees over SA, each read by every thread before the next rewrites it.
std::string xent_row(const std::string& ix, bool scaled) {
  const std::string gv = scaled ? "(($C)tg[o3] * SC)" : "(($C)g[o4])";
  const std::vector<int> reads = scaled ? std::vector<int>{2, 3} : std::vector<int>{2, 3, 4};
  std::vector<int> writes = reads;
  writes.insert(writes.begin(), 1);
  std::string s;
  if (scaled) s += "    const $C SC = ($C)$SCALE;\n";
  s += "    $C m = -($C)$INF;\n";
  s += row_loop(ix, {2}, "      const $C v = ($C)z[o2];\n      if (v > m || v != v) m = v;\n");
  s += "    SA[t] = (double)m;\n" + tree("(a >= b || a != a) ? a : b");
  s += "    m = ($C)SA[0];\n    if (!($FABS(m) < ($C)$INF)) m = ($C)0;\n    $BARRIER;\n";
  s += "    double acc = 0.0, accg = 0.0;\n";
  s += row_loop(ix, reads, "      acc += (double)$EXP(($C)z[o2] - m);\n      accg += (double)($T)" + gv + ";\n");
  s += "    SA[t] = acc;\n" + tree("a + b");
  s += "    const $C lse = $LOG(($C)SA[0]);\n    $BARRIER;\n";
  s += "    SA[t] = accg;\n" + tree("a + b");
  s += "    const $C SG = ($C)SA[0];\n    $BARRIER;\n";
  s += "    double accr = 0.0;\n";
  s += row_loop(ix, writes,
                "      const $T y = ($T)((($C)z[o2] - m) - lse);\n"
                "      accr += (double)(($C)tg[o3] * ($C)y);\n"
                "      d[o1] = ($T)(($C)($T)" + gv + " - $EXP(($C)y) * SG);\n");
  s += "    SA[t] = accr;\n" + tree("a + b");
  s += "    if (t == 0) out[q0] = ($T)SA[0];\n";
  return s + "    $BARRIER;\n  }\n}\n";
}

std::string row_entry_body(const DialectHooks& d, const RowKernel& k) {
  using namespace rowp;
  const std::string ix = k.index32 ? "int" : d.i64();
  const std::string T = memory_type(k.dtype, d.dialect());
  const bool grad = k.op == RowOp::LogSoftmaxGrad;
  const bool xent = k.op == RowOp::SoftmaxXent || k.op == RowOp::SoftmaxXentScaled;
  std::vector<Ptr> ptrs = {{T, false, "out"}};
  if (grad) ptrs.insert(ptrs.end(), {{T, true, "g"}, {T, true, "y"}});
  else if (k.op == RowOp::SoftmaxXent) ptrs.insert(ptrs.end(), {{T, false, "d"}, {T, true, "z"}, {T, true, "tg"}, {T, true, "g"}});
  else if (xent) ptrs.insert(ptrs.end(), {{T, false, "d"}, {T, true, "z"}, {T, true, "tg"}});
  else ptrs.push_back({T, true, "x"});
  const int nops = static_cast<int>(ptrs.size());
  std::string s = tmpl::open_entry(d, row_entry_name(k), ptrs, "tgc_row_params");
  s += "  $SHARED double SA[$MAXT];\n";
  s += fmt::format("  const $IX nrows = ($IX)P.v[{}], nred = ($IX)P.v[{}];\n", kNRows, kNRed);
  s += fmt::format("  const int krank = (int)P.v[{}], rrank = (int)P.v[{}];\n", kKeptRank, kRedRank);
  s += "  const int t = $TID, nt = $BDIM;\n";
  // A block walks rows BID, BID + GDIM, ... ($BID and $GDIM are ints).
  s += k.index32 ? "  for (int row = $BID; row < nrows; row += $GDIM) {\n"
                 : "  for ($IX row = ($IX)$BID; row < nrows; row += ($IX)$GDIM) {\n";
  std::string bases = "    $IX";
  std::vector<std::pair<std::string, int>> kept;
  for (int o = 0; o < nops; ++o) {
    bases += fmt::format("{} q{} = 0", o ? "," : "", o);
    kept.emplace_back(fmt::format("q{}", o), kept_strides(o));
  }
  s += bases + ";\n" + tmpl::decompose(ix, "row", "krank", kKeptShape, kept, "    ");
  if (grad) {
    // sum(g), then g - exp(y) * sum(g).
    s += "    double acc = 0.0;\n";
    s += row_loop(ix, {1}, "      acc += (double)g[o1];\n");
    s += "    SA[t] = acc;\n" + tree("a + b");
    s += "    const $C S = ($C)SA[0];\n";
    s += row_loop(ix, {0, 1, 2}, "      out[o0] = ($T)(($C)g[o1] - $EXP(($C)y[o2]) * S);\n");
    return s + "    $BARRIER;\n  }\n}\n";
  }
  if (xent) return s + xent_row(ix, k.op == RowOp::SoftmaxXentScaled);
  // The row max; a NaN wins (the reference's np.amax); -inf for an empty row.
  s += "    $C m = -($C)$INF;\n";
  s += row_loop(ix, {1}, "      const $C v = ($C)x[o1];\n      if (v > m || v != v) m = v;\n");
  s += "    SA[t] = (double)m;\n" + tree("(a >= b || a != a) ? a : b");
  s += "    m = ($C)SA[0];\n";
  // softmax shifts by the max itself (all -inf or a +inf then make NaN, as SciPy's); the
  // others by the max where it is finite, else 0.
  if (k.op != RowOp::Softmax) s += "    if (!($FABS(m) < ($C)$INF)) m = ($C)0;\n";
  s += "    $BARRIER;\n";
  s += "    double acc = 0.0;\n";
  s += row_loop(ix, {1}, "      acc += (double)$EXP(($C)x[o1] - m);\n");
  s += "    SA[t] = acc;\n" + tree("a + b");
  s += "    const $C S = ($C)SA[0];\n";
  switch (k.op) {
    case RowOp::Softmax: s += row_loop(ix, {0, 1}, "      out[o0] = ($T)($EXP(($C)x[o1] - m) / S);\n"); break;
    case RowOp::LogSoftmax:
      s += "    const $C lse = $LOG(S);\n";
      s += row_loop(ix, {0, 1}, "      out[o0] = ($T)((($C)x[o1] - m) - lse);\n");
      break;
    case RowOp::LogSumExp: s += "    if (t == 0) out[q0] = ($T)($LOG(S) + m);\n"; break;
    case RowOp::LogSoftmaxGrad:
    case RowOp::SoftmaxXent:
    case RowOp::SoftmaxXentScaled: break;
  }
  // SA is rewritten by the next row's max only after every thread read this row's sum.
  return s + "    $BARRIER;\n  }\n}\n";
}

Tokens entry_tokens(const DialectHooks& d, const RowKernel& k, const RowOptions& options) {
  const bool single = k.dtype == DType::Float32 && !options.float32_in_double;
  Tokens t = tmpl::dialect_tokens(d);
  t.insert({{"IX", k.index32 ? "int" : d.i64()},
            {"T", memory_type(k.dtype, d.dialect())},
            {"C", single ? "float" : "double"},
            {"EXP", d.math("exp", single)},
            {"LOG", d.math("log", single)},
            {"FABS", d.math("fabs", single)},
            // +inf as a float (NVRTC defines no INFINITY without headers).
            {"INF", d.cuda() ? "__int_as_float(0x7f800000)" : "INFINITY"},
            {"MAXT", std::to_string(kRowMaxThreads)}});
  const std::string slot = fmt::format("P.v[{}]", kRowScaleSlot);
  const bool f32 = k.dtype == DType::Float32;
  t.insert({"SCALE", d.cuda() ? (f32 ? "__int_as_float((int)" + slot + ")" : "__longlong_as_double(" + slot + ")")
                              : (f32 ? "as_float((int)" + slot + ")" : "as_double(" + slot + ")")});
  return t;
}

}  // namespace

const std::vector<RowKernel>& row_kernels() {
  static const std::vector<RowKernel> list = make_list();
  return list;
}

int row_entry(const RowKernel& k) {
  const std::vector<RowKernel>& list = row_kernels();
  const auto at = std::find(list.begin(), list.end(), k);
  return at == list.end() ? -1 : static_cast<int>(at - list.begin());
}

std::string row_entry_name(const RowKernel& k) {
  return fmt::format("tgc_row_{}_{}_{}", op_name(k.op), dtype_name(k.dtype), k.index32 ? "i32" : "i64");
}

std::string render_rows(Dialect dialect, const RowOptions& options, int only_entry) {
  const DialectHooks d(dialect);
  std::string s = d.prelude();
  s += fmt::format("typedef struct {{ {} v[{}]; }} tgc_row_params;\n", d.i64(), kRowParams);
  const std::vector<RowKernel>& list = row_kernels();
  for (size_t e = 0; e < list.size(); ++e)
    if (only_entry < 0 || static_cast<size_t>(only_entry) == e)
      s += "\n" + tmpl::subst(row_entry_body(d, list[e]), entry_tokens(d, list[e], options));
  return s;
}

}  // namespace tgc::cfam
