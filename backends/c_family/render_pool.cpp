// The pooling kernels as one C-family translation unit: one template per direction, its
// $TOKENS filled from the dialect hooks and each entry's types. See render_pool.h for the ABI
// and the arithmetic, and ops/pool/pool2d.cpp for the reference these kernels reproduce.
#include "backends/c_family/render_pool.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/c_family/dialect.h"
#include "backends/c_family/render_template.h"

namespace tgc::cfam {

namespace {

using tmpl::Ptr;
using tmpl::Tokens;

const char* op_name(PoolOp op) {
  switch (op) {
    case PoolOp::MaxForward: return "max";
    case PoolOp::AvgForward: return "avg";
    case PoolOp::MaxGrad: return "max_grad";
    case PoolOp::AvgGrad: return "avg_grad";
  }
  return "?";
}

bool is_max(PoolOp op) { return op == PoolOp::MaxForward || op == PoolOp::MaxGrad; }
bool is_grad(PoolOp op) { return op == PoolOp::MaxGrad || op == PoolOp::AvgGrad; }

std::vector<PoolKernel> make_list() {
  std::vector<PoolKernel> l;
  for (PoolOp op : {PoolOp::MaxForward, PoolOp::AvgForward, PoolOp::MaxGrad, PoolOp::AvgGrad})
    for (DType t : {DType::Float32, DType::Float64})
      for (bool i32 : {true, false}) l.push_back({op, t, i32});
  return l;
}

// The loads of the window arithmetic: sizes, window and the strides of operand `o`.
std::string header(bool grad) {
  using namespace poolp;
  std::string s = fmt::format(
      "  const $IX N = ($IX)P.v[{}], C = ($IX)P.v[{}], H = ($IX)P.v[{}], W = ($IX)P.v[{}];\n"
      "  const $IX OH = ($IX)P.v[{}], OW = ($IX)P.v[{}];\n"
      "  const $IX KH = ($IX)P.v[{}], KW = ($IX)P.v[{}], SH = ($IX)P.v[{}], SW = ($IX)P.v[{}];\n"
      "  const $IX PH = ($IX)P.v[{}], PW = ($IX)P.v[{}];\n"
      "  const int include_pad = (int)P.v[{}];\n"
      "  (void)include_pad;\n",
      kN, kC, kH, kW, kOH, kOW, kKH, kKW, kSH, kSW, kPH, kPW, kIncludePad);
  for (int o = 0; o < (grad ? 3 : 2); ++o)
    s += fmt::format("  const $IX s{0}n = ($IX)P.v[{1}], s{0}c = ($IX)P.v[{2}], s{0}h = ($IX)P.v[{3}], "
                     "s{0}w = ($IX)P.v[{4}];\n",
                     o, strides(o), strides(o) + 1, strides(o) + 2, strides(o) + 3);
  return s;
}

// `text` with each $IND replaced by `indent` (its other $TOKENS are the entry's).
std::string indented(std::string text, const std::string& indent) {
  for (size_t at = text.find("$IND"); at != std::string::npos; at = text.find("$IND", at + indent.size()))
    text.replace(at, 4, indent);
  return text;
}

// The window of output element (oh, ow) as the reference bounds it: rows h0..h1, columns
// w0..w1 inside the input, and `padded`, its extent with the padding inside it.
const char* kWindow =
    "$IND$IX h0 = oh * SH - PH, w0 = ow * SW - PW;\n"
    "$IND$IX h1 = h0 + KH < H + PH ? h0 + KH : H + PH, w1 = w0 + KW < W + PW ? w0 + KW : W + PW;\n"
    "$INDconst $IX padded = (h1 - h0) * (w1 - w0);\n"
    "$INDif (h0 < 0) h0 = 0;\n"
    "$INDif (w0 < 0) w0 = 0;\n"
    "$INDif (h1 > H) h1 = H;\n"
    "$INDif (w1 > W) w1 = W;\n";

// The window's first maximum (a NaN wins) of x around base bx, into ba, bb (row, column).
const char* kArgmax =
    "$IND$IX ba = -1, bb = -1;\n"
    "$IND$T best = ($T)0;\n"
    "$INDfor ($IX a = h0; a < h1; ++a)\n"
    "$IND  for ($IX b = w0; b < w1; ++b) {\n"
    "$IND    const $T v = x[bx + a * s1h + b * s1w];\n"
    "$IND    if (ba < 0 || v > best || (v != v && best == best)) { best = v; ba = a; bb = b; }\n"
    "$IND  }\n";

// Forward: a thread per output element (n, c, oh, ow); x's strides are operand 1's.
std::string forward_body(bool max) {
  std::string s =
      "  const $IX total = N * C * OH * OW;\n"
      "  for ($IX i = ($IX)$BID * ($IX)$BDIM + ($IX)$TID; i < total; i += ($IX)$GDIM * ($IX)$BDIM) {\n"
      "    $IX r = i;\n"
      "    const $IX ow = r % OW; r /= OW;\n"
      "    const $IX oh = r % OH; r /= OH;\n"
      "    const $IX c = r % C, n = r / C;\n"
      "    const $IX bx = n * s1n + c * s1c;\n";
  s += indented(kWindow, "    ");
  if (max) {
    s += indented(kArgmax, "    ");
    s += "    (void)padded;\n    out[n * s0n + c * s0c + oh * s0h + ow * s0w] = best;\n";
  } else {
    s += "    double acc = 0.0;\n"
         "    for ($IX a = h0; a < h1; ++a)\n"
         "      for ($IX b = w0; b < w1; ++b) acc += (double)x[bx + a * s1h + b * s1w];\n"
         "    const double divisor = (double)(include_pad ? padded : (h1 - h0) * (w1 - w0));\n"
         "    out[n * s0n + c * s0c + oh * s0h + ow * s0w] = ($T)(acc / divisor);\n";
  }
  return s + "  }\n}\n";
}

// Gradient: a thread per input element (n, c, ih, iw), gathering over the windows that cover
// it (rows oh with oh * SH - PH <= ih < oh * SH - PH + KH, columns likewise) in row order, as
// the reference's windows scatter into it. x's strides are operand 1's, gy's operand 2's.
std::string grad_body(bool max) {
  std::string s =
      "  const $IX total = N * C * H * W;\n"
      "  for ($IX i = ($IX)$BID * ($IX)$BDIM + ($IX)$TID; i < total; i += ($IX)$GDIM * ($IX)$BDIM) {\n"
      "    $IX r = i;\n"
      "    const $IX iw = r % W; r /= W;\n"
      "    const $IX ih = r % H; r /= H;\n"
      "    const $IX c = r % C, n = r / C;\n"
      "    const $IX bx = n * s1n + c * s1c, bg = n * s2n + c * s2c;\n"
      "    (void)bx;\n"
      "    const $IX nh = ih + PH - KH, nw = iw + PW - KW;\n"
      "    const $IX oh0 = nh < 0 ? 0 : nh / SH + 1, ow0 = nw < 0 ? 0 : nw / SW + 1;\n"
      "    $IX oh1 = (ih + PH) / SH, ow1 = (iw + PW) / SW;\n"
      "    if (oh1 > OH - 1) oh1 = OH - 1;\n"
      "    if (ow1 > OW - 1) ow1 = OW - 1;\n"
      "    double acc = 0.0;\n"
      "    for ($IX oh = oh0; oh <= oh1; ++oh)\n"
      "      for ($IX ow = ow0; ow <= ow1; ++ow) {\n";
  s += indented(kWindow, "        ");
  s += "        const double g = (double)gy[bg + oh * s2h + ow * s2w];\n";
  if (max) {
    s += indented(kArgmax, "        ");
    s += "        (void)padded;\n        if (ba == ih && bb == iw) acc += g;\n";
  } else {
    s += "        acc += g / (double)(include_pad ? padded : (h1 - h0) * (w1 - w0));\n";
  }
  s += "      }\n"
       "    out[n * s0n + c * s0c + ih * s0h + iw * s0w] = ($T)acc;\n";
  return s + "  }\n}\n";
}

std::string entry_body(const DialectHooks& d, const PoolKernel& k) {
  const std::string T = memory_type(k.dtype, d.dialect());
  const bool grad = is_grad(k.op);
  std::vector<Ptr> ptrs = {{T, false, "out"}, {T, true, "x"}};
  if (grad) ptrs.push_back({T, true, "gy"});
  std::string s = tmpl::open_entry(d, pool_entry_name(k), ptrs, "tgc_pool_params");
  s += header(grad);
  return s + (grad ? grad_body(is_max(k.op)) : forward_body(is_max(k.op)));
}

Tokens entry_tokens(const DialectHooks& d, const PoolKernel& k) {
  Tokens t = tmpl::dialect_tokens(d);
  t.insert({{"IX", k.index32 ? "int" : d.i64()}, {"T", memory_type(k.dtype, d.dialect())}});
  return t;
}

}  // namespace

const std::vector<PoolKernel>& pool_kernels() {
  static const std::vector<PoolKernel> list = make_list();
  return list;
}

int pool_entry(const PoolKernel& k) {
  const std::vector<PoolKernel>& list = pool_kernels();
  const auto at = std::find(list.begin(), list.end(), k);
  return at == list.end() ? -1 : static_cast<int>(at - list.begin());
}

std::string pool_entry_name(const PoolKernel& k) {
  return fmt::format("tgc_pool_{}_{}_{}", op_name(k.op), dtype_name(k.dtype), k.index32 ? "i32" : "i64");
}

std::string render_pool(Dialect dialect, int only_entry) {
  const DialectHooks d(dialect);
  std::string s = d.prelude();
  s += fmt::format("typedef struct {{ {} v[{}]; }} tgc_pool_params;\n", d.i64(), kPoolParams);
  const std::vector<PoolKernel>& list = pool_kernels();
  for (size_t e = 0; e < list.size(); ++e)
    if (only_entry < 0 || static_cast<size_t>(only_entry) == e)
      s += "\n" + tmpl::subst(entry_body(d, list[e]), entry_tokens(d, list[e]));
  return s;
}

}  // namespace tgc::cfam
