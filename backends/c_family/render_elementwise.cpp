// The entries of an elementwise kernel: grid-stride loops over the loop space in four
// forms — 16-byte vector accesses with a scalar tail (dense, same-shaped, aligned operands),
// a flat index (dense, same-shaped), strided/broadcast offsets from the collapsed dims (any
// layout), each with int32 and int64 index arithmetic, and those offsets with vectors along a
// dense innermost dim (int32 only).
#include <fmt/format.h>

#include "backends/c_family/render_common.h"

namespace tgc::cfam::detail {

namespace {

std::string elem_name(const Ctx& c) { return c.prefix + "_elem"; }

std::string open_entry(const Ctx& c, EntryKind kind, bool index32, const std::string& idx) {
  std::string s = c.open_entry(kind, index32);
  s += "  int tgc_errors = 0;\n  (void)scratch; (void)errors;\n";
  s += fmt::format("  const {0} n = {1};\n", idx, c.param(ParamLayout::kN, idx));
  s += fmt::format("  const {0} tid = ({0}){1} * ({0}){2} + ({0}){3};\n", idx, c.d.block_index(), c.d.block_size(),
                   c.d.thread_index());
  s += fmt::format("  const {0} step = ({0}){1} * ({0}){2};\n", idx, c.d.grid_size(), c.d.block_size());
  return s;
}

// The element function's call with each input read at `offset(j)` and outputs stored at
// `out_offset`.
std::string scalar_element(const Ctx& c, const std::vector<std::string>& input_exprs, const std::string& out_offset,
                           const std::string& indent) {
  std::string s = indent + "{\n";
  std::vector<std::string> results;
  for (size_t j = 0; j < c.k.outputs.size(); ++j) {
    s += fmt::format("{}  {} o{};\n", indent, register_type(c.k.outputs[j].dtype, c.d.dialect()), j);
    results.push_back(fmt::format("o{}", j));
  }
  s += indent + "  " + element_call(elem_name(c), input_exprs, results) + "\n";
  for (size_t j = 0; j < c.k.outputs.size(); ++j)
    s += indent + "  " + store(c, static_cast<int>(j), out_offset, fmt::format("o{}", j)) + "\n";
  return s + indent + "}\n";
}

// Inputs that are one element by their static shape, read once (as s<j>).
std::string read_scalar_inputs(const Ctx& c) {
  std::string s;
  for (int j = 0; j < c.nin(); ++j)
    if (statically_scalar(c.k, j))
      s += fmt::format("  const {} s{} = {};\n", register_type(c.k.inputs[j].dtype, c.d.dialect()), j, load(c, j, "0"));
  return s;
}

// The vector entries' middle: the element function on each lane of the loaded input vectors
// a<j> (s<j> for one-element inputs) into the output vectors b<o>, declared here.
std::string vector_lanes(const Ctx& c, int w) {
  static const char* lanes[] = {"x", "y", "z", "w"};
  std::string s;
  for (size_t o = 0; o < c.k.outputs.size(); ++o)
    s += fmt::format("    {} b{};\n", c.d.vector_type(c.k.outputs[o].dtype, w), o);
  for (int lane = 0; lane < w; ++lane) {
    std::vector<std::string> in;
    for (int j = 0; j < c.nin(); ++j) {
      if (statically_scalar(c.k, j)) in.push_back(fmt::format("s{}", j));
      else if (c.k.inputs[j].dtype == DType::Bool) in.push_back(fmt::format("(a{}.{} != 0)", j, lanes[lane]));
      else in.push_back(fmt::format("a{}.{}", j, lanes[lane]));
    }
    s += "    {\n";
    std::vector<std::string> results;
    for (size_t o = 0; o < c.k.outputs.size(); ++o) {
      s += fmt::format("      {} o{};\n", register_type(c.k.outputs[o].dtype, c.d.dialect()), o);
      results.push_back(fmt::format("o{}", o));
    }
    s += "      " + element_call(elem_name(c), in, results) + "\n";
    for (size_t o = 0; o < c.k.outputs.size(); ++o) {
      const DType t = c.k.outputs[o].dtype;
      const std::string v = t == DType::Bool ? fmt::format("({})(o{} ? 1 : 0)", memory_type(t, c.d.dialect()), o)
                                             : fmt::format("o{}", o);
      s += fmt::format("      b{}.{} = {};\n", o, lanes[lane], v);
    }
    s += "    }\n";
  }
  return s;
}

std::string dense_entry(const Ctx& c, bool index32, bool vector) {
  const std::string idx = index32 ? "int" : c.d.i64();
  std::string s = open_entry(c, vector ? EntryKind::EwVector : EntryKind::EwContiguous, index32, idx);
  s += read_scalar_inputs(c);
  auto scalar_inputs = [&](const std::string& offset) {
    std::vector<std::string> in;
    for (int j = 0; j < c.nin(); ++j) in.push_back(statically_scalar(c.k, j) ? fmt::format("s{}", j) : load(c, j, offset));
    return in;
  };
  std::string tail_start = "tid";
  if (vector) {
    const int w = vector_width(c.k);
    s += fmt::format("  const {} nv = n / {};\n", idx, w);
    s += fmt::format("  for ({} i = tid; i < nv; i += step) {{\n", idx);
    for (int j = 0; j < c.nin(); ++j)
      if (!statically_scalar(c.k, j))
        s += fmt::format("    const {} a{} = {};\n", c.d.vector_type(c.k.inputs[j].dtype, w), j,
                         c.d.vector_load(c.k.inputs[j].dtype, w, fmt::format("p{}", j), "i"));
    s += vector_lanes(c, w);
    for (size_t o = 0; o < c.k.outputs.size(); ++o)
      s += "    " + c.d.vector_store(c.k.outputs[o].dtype, w, fmt::format("p{}", c.nin() + static_cast<int>(o)), "i",
                                     fmt::format("b{}", o)) + "\n";
    s += "  }\n";
    tail_start = fmt::format("nv * {} + tid", w);
  }
  s += fmt::format("  for ({} i = {}; i < n; i += step)\n", idx, tail_start);
  s += scalar_element(c, scalar_inputs("i"), "i", "  ");
  return s + flush_errors(c) + "}\n";
}

std::string strided_entry(const Ctx& c, bool index32) {
  const std::string idx = index32 ? "int" : c.d.i64();
  const ParamLayout& l = c.layout;
  std::string s = open_entry(c, EntryKind::EwStrided, index32, idx);
  s += fmt::format("  const int rank = (int)P.v[{}];\n", ParamLayout::kRank);
  s += fmt::format("  for ({} i = tid; i < n; i += step) {{\n", idx);
  std::vector<std::pair<std::string, int>> offsets;
  std::string decl = fmt::format("    {} ", idx);
  for (int op = 0; op < c.nops(); ++op) {
    decl += fmt::format("{}q{} = 0", op ? ", " : "", op);
    offsets.emplace_back(fmt::format("q{}", op), l.kept_strides(op));
  }
  s += decl + ";\n";
  s += decompose(c, idx, "i", l.kept_shape(), l.kept_divisors(), l.kept_cap, "rank", offsets);
  std::vector<std::string> in;
  for (int j = 0; j < c.nin(); ++j) in.push_back(load(c, j, fmt::format("q{}", j)));
  // Outputs may differ in strides: store each at its own offset.
  std::string body = "    {\n";
  std::vector<std::string> results;
  for (size_t o = 0; o < c.k.outputs.size(); ++o) {
    body += fmt::format("      {} o{};\n", register_type(c.k.outputs[o].dtype, c.d.dialect()), o);
    results.push_back(fmt::format("o{}", o));
  }
  body += "      " + element_call(elem_name(c), in, results) + "\n";
  for (size_t o = 0; o < c.k.outputs.size(); ++o)
    body += "      " + store(c, static_cast<int>(o), fmt::format("q{}", c.nin() + static_cast<int>(o)), fmt::format("o{}", o)) + "\n";
  s += body + "    }\n  }\n";
  return s + flush_errors(c) + "}\n";
}

// EwStridedVector (int32; the planner guarantees every operand dense along the innermost dim
// with its other strides multiples of w and an aligned base, or one element, and the innermost
// extent a multiple of w): vector v covers elements v * w .. v * w + w - 1 of one innermost row,
// its operands' offsets decomposed once for the w of them, one load or store each.
std::string strided_vector_entry(const Ctx& c) {
  const ParamLayout& l = c.layout;
  const int w = vector_width(c.k);
  std::string s = open_entry(c, EntryKind::EwStridedVector, true, "int");
  s += fmt::format("  const int rank = (int)P.v[{}];\n", ParamLayout::kRank);
  s += read_scalar_inputs(c);
  s += fmt::format("  const int nv = n / {};\n  for (int v = tid; v < nv; v += step) {{\n", w);
  std::vector<std::pair<std::string, int>> offsets;
  std::string decl = "    int ";
  for (int op = 0; op < c.nops(); ++op) {
    decl += fmt::format("{}q{} = 0", op ? ", " : "", op);
    offsets.emplace_back(fmt::format("q{}", op), l.kept_strides(op));
  }
  s += decl + ";\n" + decompose(c, "int", fmt::format("v * {}", w), l.kept_shape(), l.kept_divisors(), l.kept_cap, "rank", offsets);
  for (int j = 0; j < c.nin(); ++j)
    if (!statically_scalar(c.k, j))
      s += fmt::format("    const {} a{} = {};\n", c.d.vector_type(c.k.inputs[j].dtype, w), j,
                       c.d.vector_load(c.k.inputs[j].dtype, w, fmt::format("(p{0} + q{0})", j), "0"));
  s += vector_lanes(c, w);
  for (size_t o = 0; o < c.k.outputs.size(); ++o) {
    const int op = c.nin() + static_cast<int>(o);
    s += "    " + c.d.vector_store(c.k.outputs[o].dtype, w, fmt::format("(p{0} + q{0})", op), "0", fmt::format("b{}", o)) + "\n";
  }
  return s + "  }\n" + flush_errors(c) + "}\n";
}

}  // namespace

std::string render_elementwise_entries(const Ctx& c, std::vector<std::string>& entries, std::vector<bool>& wide_index) {
  std::vector<int> params, results;
  for (int j = 0; j < c.nin(); ++j) params.push_back(load_value(c.k, j));
  for (const KernelOutput& o : c.k.outputs) results.push_back(o.value);
  std::string s = element_function(c, elem_name(c), params, results);
  for (const auto& [kind, index32] : entry_list(c.k)) {
    entries.push_back(entry_name(c.prefix, kind, index32));
    wide_index.push_back(!index32);
    if (!c.defines(entries.size() - 1)) continue;
    if (kind == EntryKind::EwStridedVector) s += strided_vector_entry(c);
    else if (kind == EntryKind::EwStrided) s += strided_entry(c, index32);
    else s += dense_entry(c, index32, kind == EntryKind::EwVector);
  }
  return s;
}

}  // namespace tgc::cfam::detail
