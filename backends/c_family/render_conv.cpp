// The direct convolution kernels as one C-family translation unit: one template per
// direction, its $TOKENS filled from the dialect hooks and each entry's types. See
// render_conv.h for the ABI and the arithmetic, and ops/conv/conv_reference.cpp for the loops
// these kernels reproduce.
#include "backends/c_family/render_conv.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/c_family/dialect.h"
#include "backends/c_family/render_template.h"

namespace tgc::cfam {

namespace {

using tmpl::Ptr;
using tmpl::Tokens;

const char* op_name(ConvOp op) {
  switch (op) {
    case ConvOp::Forward: return "forward";
    case ConvOp::ForwardBias: return "forward_bias";
    case ConvOp::ForwardBiasRelu: return "forward_bias_relu";
    case ConvOp::GradInput: return "grad_input";
    case ConvOp::GradWeights: return "grad_weights";
  }
  return "?";
}

bool has_bias(ConvOp op) { return op == ConvOp::ForwardBias || op == ConvOp::ForwardBiasRelu; }

std::vector<ConvKernel> make_list() {
  std::vector<ConvKernel> l;
  for (ConvOp op : {ConvOp::Forward, ConvOp::ForwardBias, ConvOp::ForwardBiasRelu, ConvOp::GradInput,
                    ConvOp::GradWeights})
    for (DType t : {DType::Float32, DType::Float64})
      for (bool i32 : {true, false}) l.push_back({op, t, i32});
  return l;
}

// The geometry's loads and the strides of the three operands (out, a, b).
std::string header() {
  using namespace convp;
  std::string s = fmt::format(
      "  const $IX N = ($IX)P.v[{}], C = ($IX)P.v[{}], H = ($IX)P.v[{}], W = ($IX)P.v[{}], O = ($IX)P.v[{}];\n"
      "  const $IX KH = ($IX)P.v[{}], KW = ($IX)P.v[{}], OH = ($IX)P.v[{}], OW = ($IX)P.v[{}];\n"
      "  const $IX SH = ($IX)P.v[{}], SW = ($IX)P.v[{}], DH = ($IX)P.v[{}], DW = ($IX)P.v[{}];\n"
      "  const $IX PT = ($IX)P.v[{}], PL = ($IX)P.v[{}], G = ($IX)P.v[{}];\n"
      "  const $IX cg = C / G, og = O / G;\n",
      kN, kC, kH, kW, kO, kKH, kKW, kOH, kOW, kSH, kSW, kDH, kDW, kPT, kPL, kGroups);
  for (int o = 0; o < 3; ++o)
    s += fmt::format("  const $IX s{0}n = ($IX)P.v[{1}], s{0}c = ($IX)P.v[{2}], s{0}h = ($IX)P.v[{3}], "
                     "s{0}w = ($IX)P.v[{4}];\n",
                     o, strides(o), strides(o) + 1, strides(o) + 2, strides(o) + 3);
  return s;
}

const char* kLoop = "  for ($IX i = ($IX)$BID * ($IX)$BDIM + ($IX)$TID; i < total; i += ($IX)$GDIM * ($IX)$BDIM) {\n";

// y (n, o, oh, ow) = sum over the group's (c, kh, kw) of x * w, [+ bias[o], [relu]].
std::string forward_body(ConvOp op) {
  std::string s = "  const $IX total = N * O * OH * OW;\n";
  s += kLoop;
  s += "    $IX r = i;\n"
       "    const $IX ow = r % OW; r /= OW;\n"
       "    const $IX oh = r % OH; r /= OH;\n"
       "    const $IX o = r % O, n = r / O;\n"
       "    const $IX c0 = (o / og) * cg;\n"
       "    double acc = 0.0;\n"
       "    for ($IX c = 0; c < cg; ++c)\n"
       "      for ($IX kh = 0; kh < KH; ++kh) {\n"
       "        const $IX ih = oh * SH - PT + kh * DH;\n"
       "        if (ih < 0 || ih >= H) continue;\n"
       "        for ($IX kw = 0; kw < KW; ++kw) {\n"
       "          const $IX iw = ow * SW - PL + kw * DW;\n"
       "          if (iw < 0 || iw >= W) continue;\n"
       "          acc += (double)a[n * s1n + (c0 + c) * s1c + ih * s1h + iw * s1w] *\n"
       "                 (double)b[o * s2n + c * s2c + kh * s2h + kw * s2w];\n"
       "        }\n"
       "      }\n";
  if (has_bias(op)) s += fmt::format("    acc += (double)bias[o * ($IX)P.v[{}]];\n", convp::kBiasStride);
  if (op == ConvOp::ForwardBiasRelu) s += "    if (acc < 0.0) acc = 0.0;\n";
  return s + "    out[n * s0n + o * s0c + oh * s0h + ow * s0w] = ($T)acc;\n  }\n}\n";
}

// dx (n, cx, ih, iw) = sum over the group's output channels o, then the output rows oh and
// columns ow whose window holds (ih, iw) (kh = (ih + PT - oh * SH) / DH a whole tap), of
// dy * w: a = dy, b = w.
std::string grad_input_body() {
  std::string s = "  const $IX total = N * C * H * W;\n";
  s += kLoop;
  s += "    $IX r = i;\n"
       "    const $IX iw = r % W; r /= W;\n"
       "    const $IX ih = r % H; r /= H;\n"
       "    const $IX cx = r % C, n = r / C;\n"
       "    const $IX grp = cx / cg, c = cx - grp * cg;\n"
       // The output rows whose window can reach ih: oh * SH <= ih + PT <= oh * SH + (KH-1) * DH.
       "    const $IX th = ih + PT - (KH - 1) * DH, tw = iw + PL - (KW - 1) * DW;\n"
       "    const $IX oh0 = th <= 0 ? 0 : (th + SH - 1) / SH, ow0 = tw <= 0 ? 0 : (tw + SW - 1) / SW;\n"
       "    $IX oh1 = (ih + PT) / SH, ow1 = (iw + PL) / SW;\n"
       "    if (oh1 > OH - 1) oh1 = OH - 1;\n"
       "    if (ow1 > OW - 1) ow1 = OW - 1;\n"
       "    double acc = 0.0;\n"
       "    for ($IX o = grp * og; o < (grp + 1) * og; ++o)\n"
       "      for ($IX oh = oh0; oh <= oh1; ++oh) {\n"
       "        const $IX dh = ih + PT - oh * SH;\n"
       "        if (dh % DH != 0) continue;\n"
       "        const $IX kh = dh / DH;\n"
       "        for ($IX ow = ow0; ow <= ow1; ++ow) {\n"
       "          const $IX dw = iw + PL - ow * SW;\n"
       "          if (dw % DW != 0) continue;\n"
       "          const $IX kw = dw / DW;\n"
       "          acc += (double)a[n * s1n + o * s1c + oh * s1h + ow * s1w] *\n"
       "                 (double)b[o * s2n + c * s2c + kh * s2h + kw * s2w];\n"
       "        }\n"
       "      }\n"
       "    out[n * s0n + cx * s0c + ih * s0h + iw * s0w] = ($T)acc;\n  }\n}\n";
  return s;
}

// dw (o, c, kh, kw) = sum over (n, oh, ow) of x * dy: a = x, b = dy.
std::string grad_weights_body() {
  std::string s = "  const $IX total = O * cg * KH * KW;\n";
  s += kLoop;
  s += "    $IX r = i;\n"
       "    const $IX kw = r % KW; r /= KW;\n"
       "    const $IX kh = r % KH; r /= KH;\n"
       "    const $IX c = r % cg, o = r / cg;\n"
       "    const $IX cx = (o / og) * cg + c;\n"
       "    double acc = 0.0;\n"
       "    for ($IX n = 0; n < N; ++n)\n"
       "      for ($IX oh = 0; oh < OH; ++oh) {\n"
       "        const $IX ih = oh * SH - PT + kh * DH;\n"
       "        if (ih < 0 || ih >= H) continue;\n"
       "        for ($IX ow = 0; ow < OW; ++ow) {\n"
       "          const $IX iw = ow * SW - PL + kw * DW;\n"
       "          if (iw < 0 || iw >= W) continue;\n"
       "          acc += (double)a[n * s1n + cx * s1c + ih * s1h + iw * s1w] *\n"
       "                 (double)b[n * s2n + o * s2c + oh * s2h + ow * s2w];\n"
       "        }\n"
       "      }\n"
       "    out[o * s0n + c * s0c + kh * s0h + kw * s0w] = ($T)acc;\n  }\n}\n";
  return s;
}

std::string entry_body(const DialectHooks& d, const ConvKernel& k) {
  const std::string T = memory_type(k.dtype, d.dialect());
  std::vector<Ptr> ptrs = {{T, false, "out"}, {T, true, "a"}, {T, true, "b"}};
  if (has_bias(k.op)) ptrs.push_back({T, true, "bias"});
  std::string s = tmpl::open_entry(d, conv_entry_name(k), ptrs, "tgc_conv_params") + header();
  s += "  (void)N; (void)og;\n";
  switch (k.op) {
    case ConvOp::GradInput: return s + grad_input_body();
    case ConvOp::GradWeights: return s + grad_weights_body();
    default: return s + forward_body(k.op);
  }
}

Tokens entry_tokens(const DialectHooks& d, const ConvKernel& k) {
  Tokens t = tmpl::dialect_tokens(d);
  t.insert({{"IX", k.index32 ? "int" : d.i64()}, {"T", memory_type(k.dtype, d.dialect())}});
  return t;
}

}  // namespace

const std::vector<ConvKernel>& conv_kernels() {
  static const std::vector<ConvKernel> list = make_list();
  return list;
}

int conv_entry(const ConvKernel& k) {
  const std::vector<ConvKernel>& list = conv_kernels();
  const auto at = std::find(list.begin(), list.end(), k);
  return at == list.end() ? -1 : static_cast<int>(at - list.begin());
}

std::string conv_entry_name(const ConvKernel& k) {
  return fmt::format("tgc_conv_{}_{}_{}", op_name(k.op), dtype_name(k.dtype), k.index32 ? "i32" : "i64");
}

std::string render_conv(Dialect dialect, int only_entry) {
  const DialectHooks d(dialect);
  std::string s = d.prelude();
  s += fmt::format("typedef struct {{ {} v[{}]; }} tgc_conv_params;\n", d.i64(), kConvParams);
  const std::vector<ConvKernel>& list = conv_kernels();
  for (size_t e = 0; e < list.size(); ++e)
    if (only_entry < 0 || static_cast<size_t>(only_entry) == e)
      s += "\n" + tmpl::subst(entry_body(d, list[e]), entry_tokens(d, list[e]));
  return s;
}

}  // namespace tgc::cfam
