// The shared pieces of the C-family renderer: entry list, params layout, per-element
// functions, index decomposition, loads and stores.
#include "backends/c_family/render_common.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/c_family/render_scalar.h"
#include "runtime/error.h"

namespace tgc::cfam::detail {

std::vector<EntrySpec> entry_list(const Kernel& k) {
  const std::vector<EntryKind> both =
      k.is_reduction()
          ? std::vector<EntryKind>{EntryKind::RedThread, EntryKind::RedBlock, EntryKind::RedPass1, EntryKind::RedPass2,
                                   EntryKind::RedColumn}
          : std::vector<EntryKind>{EntryKind::EwVector, EntryKind::EwContiguous, EntryKind::EwStrided};
  std::vector<EntrySpec> list;
  for (EntryKind kind : both) list.insert(list.end(), {{kind, true}, {kind, false}});
  if (!k.is_reduction()) list.push_back({EntryKind::EwStridedVector, true});
  if (k.is_reduction())
    list.insert(list.end(),
                {{EntryKind::RedBlockVector, true}, {EntryKind::RedPass1Vector, true}, {EntryKind::RedColumnVector, true}});
  return list;
}

int entry_index(const Kernel& k, EntryKind kind, bool index32) {
  const std::vector<EntrySpec> list = entry_list(k);
  const auto at = std::find_if(list.begin(), list.end(),
                               [&](const EntrySpec& e) { return e.kind == kind && e.index32 == index32; });
  TGC_INTERNAL_CHECK(at != list.end(), "entry kind not rendered for this kernel");
  return static_cast<int>(at - list.begin());
}

std::string entry_name(const std::string& prefix, EntryKind kind, bool index32) {
  const char* base = "";
  switch (kind) {
    case EntryKind::EwVector: base = "vector"; break;
    case EntryKind::EwContiguous: base = "dense"; break;
    case EntryKind::EwStrided: base = "strided"; break;
    case EntryKind::EwStridedVector: base = "strided_vector"; break;
    case EntryKind::RedThread: base = "reduce_thread"; break;
    case EntryKind::RedBlock: base = "reduce_block"; break;
    case EntryKind::RedPass1: base = "reduce_pass1"; break;
    case EntryKind::RedPass2: base = "reduce_pass2"; break;
    case EntryKind::RedColumn: base = "reduce_column"; break;
    case EntryKind::RedBlockVector: base = "reduce_block_vector"; break;
    case EntryKind::RedPass1Vector: base = "reduce_pass1_vector"; break;
    case EntryKind::RedColumnVector: base = "reduce_column_vector"; break;
  }
  return fmt::format("{}_{}_{}", prefix, base, index32 ? "i32" : "i64");
}

ParamLayout param_layout(const Kernel& k) {
  ParamLayout l;
  l.nops = static_cast<int>(k.inputs.size() + k.outputs.size());
  l.reduction = k.is_reduction();
  if (!l.reduction) {
    l.kept_cap = std::max(1, k.ndim);
    l.red_cap = 0;
  } else {
    const int nred = static_cast<int>(k.reduce_axes.size());
    l.kept_cap = std::max(1, k.ndim - nred);
    l.red_cap = std::max(1, nred);
  }
  return l;
}

bool statically_scalar(const Kernel& k, int input) {
  for (int64_t d : k.inputs[input].static_shape)
    if (d != 1) return false;
  return true;
}

int vector_width(const Kernel& k) {
  size_t widest = dtype_size(k.outputs.empty() ? DType::Float32 : k.outputs[0].dtype);
  for (const KernelOutput& o : k.outputs) widest = std::max(widest, dtype_size(o.dtype));
  for (int j = 0; j < static_cast<int>(k.inputs.size()); ++j)
    if (!statically_scalar(k, j)) widest = std::max(widest, dtype_size(k.inputs[j].dtype));
  return widest >= 8 ? 2 : 4;
}

int reduction_vector_width(const Kernel& k) {
  size_t widest = 1;
  for (int j = 0; j < static_cast<int>(k.inputs.size()); ++j)
    if (!k.inputs[j].in_output_space && !constant_along_reduction(k, j))
      widest = std::max(widest, dtype_size(k.inputs[j].dtype));
  return widest >= 8 ? 2 : 4;
}

bool constant_along_reduction(const Kernel& k, int input) {
  const KernelInput& in = k.inputs[input];
  if (in.in_output_space || !k.is_reduction()) return false;
  const int lead = k.ndim - in.ndim;  // loop axes the input lacks (right-aligned)
  for (int a : k.reduce_axes) {
    const int ia = a - lead;
    if (ia >= 0 && (ia >= static_cast<int>(in.static_shape.size()) || in.static_shape[ia] != 1)) return false;
  }
  return true;
}

bool column_vector_reduces(const Kernel& k) {
  int reduces = 0;
  for (const KernelValue& v : k.values) reduces += v.kind == KernelValue::Kind::Reduce ? 1 : 0;
  return reduces <= kColumnVectorMaxReduces;
}

bool kernel_may_fail(const Kernel& k) {
  for (const KernelValue& v : k.values) {
    if (v.kind != KernelValue::Kind::Op) continue;
    std::vector<DType> dtypes;
    for (int a : v.args) dtypes.push_back(k.values[a].dtype);
    if (scalar_op_may_fail(v, dtypes)) return true;
  }
  return false;
}

int load_value(const Kernel& k, int input) {
  for (size_t i = 0; i < k.values.size(); ++i)
    if (k.values[i].kind == KernelValue::Kind::Load && k.values[i].input == input) return static_cast<int>(i);
  TGC_INTERNAL_CHECK(false, "kernel input without its load");
  return -1;
}

DType Ctx::operand_dtype(int op) const {
  return op < nin() ? k.inputs[op].dtype : k.outputs[op - nin()].dtype;
}

std::string Ctx::param(int slot, const std::string& idx) const { return fmt::format("(({})P.v[{}])", idx, slot); }

std::string Ctx::signature(EntryKind kind, bool index32) const {
  std::vector<std::string> args;
  for (int op = 0; op < nops(); ++op)
    args.push_back(d.global_param(memory_type(operand_dtype(op), d.dialect()), op < nin(), fmt::format("p{}", op)));
  args.push_back(d.cuda() ? "void* scratch" : "__global void* scratch");
  args.push_back(d.cuda() ? "int* errors" : "__global int* errors");
  args.push_back(params_type() + " P");
  // OpenCL buffers are handles without host-side pointer arithmetic: each operand's element
  // offset into its buffer comes as one more argument (kernel_render.h, the ABI).
  if (!d.cuda())
    for (int op = 0; op < nops(); ++op) args.push_back(fmt::format("{} p{}_off", d.u64(), op));
  std::string s = d.entry_qualifier() + " ";
  // CUDA pass 1 keeps LongReduction's blocks resident (the planner sizes its grid for them).
  if (d.cuda() && (kind == EntryKind::RedPass1 || kind == EntryKind::RedPass1Vector)) {
    const LongReduction lr = long_reduction(Dialect::Cuda);
    s += fmt::format("__launch_bounds__({}, {}) ", lr.threads, lr.blocks_per_multiprocessor);
  }
  // The vector column schedule: its blocks (and 64 registers a thread for four outputs'
  // accumulators and vectors), kColumnVectorBlocksResident of them on a multiprocessor.
  if (d.cuda() && kind == EntryKind::RedColumnVector)
    s += fmt::format("__launch_bounds__({}, {}) ", kColumnVectorBlock, kColumnVectorBlocksResident);
  s += entry_name(prefix, kind, index32) + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  return s + ")";
}

std::string Ctx::open_entry(EntryKind kind, bool index32) const {
  std::string s = signature(kind, index32) + " {\n";
  if (!d.cuda())
    for (int op = 0; op < nops(); ++op) s += fmt::format("  p{0} += p{0}_off;\n", op);
  return s;
}

namespace {
constexpr size_t kInlineLimit = 2;  // computed values
}  // namespace

std::string element_function(const Ctx& c, const std::string& name, const std::vector<int>& params,
                             const std::vector<int>& results) {
  const Kernel& k = c.k;
  const size_t n = k.values.size();
  std::vector<bool> is_param(n, false), needed(n, false);
  for (int p : params) is_param[p] = true;
  for (int r : results) needed[r] = true;
  for (size_t i = n; i-- > 0;) {
    if (!needed[i] || is_param[i]) continue;
    const KernelValue& v = k.values[i];
    TGC_INTERNAL_CHECK(v.kind == KernelValue::Kind::Op || v.kind == KernelValue::Kind::Constant,
                       fmt::format("v{} is needed by {} but is neither computed there nor passed in", i, name));
    for (int a : v.args) needed[a] = true;
  }
  std::vector<std::string> decl;
  for (int p : params) decl.push_back(fmt::format("{} v{}", register_type(k.values[p].dtype, c.d.dialect()), p));
  // The results and the error bits come back by value, in a struct: results written through
  // pointers make the caller's variables addressable, so a call that is not inlined passes
  // them through local memory. On an H200 that took the fused chain a*exp(-b) + c*tanh(a) -
  // 0.5*b*c from 101% to 89% of the device-to-device copy's bandwidth.
  std::string out_struct = "typedef struct {";
  for (size_t j = 0; j < results.size(); ++j)
    out_struct += fmt::format(" {} r{};", register_type(k.values[results[j]].dtype, c.d.dialect()), j);
  out_struct += fmt::format(" int err; }} {}_out;\n", name);
  // A large function is compiled once and called from every entry and vector lane: inlined,
  // its math (double transcendentals are long) would be compiled a dozen times per kernel.
  size_t computed = 0;
  for (size_t i = 0; i < n; ++i) computed += needed[i] && !is_param[i] ? 1 : 0;
  const std::string qualifier =
      c.d.cuda() && computed > kInlineLimit ? "static __device__ __noinline__" : c.d.helper_qualifier();
  std::string s = out_struct + qualifier + " " + name + "_out " + name + "(";
  for (size_t i = 0; i < decl.size(); ++i) s += (i ? ", " : "") + decl[i];
  s += ") {\n  int tgc_err = 0;\n";
  for (size_t i = 0; i < n; ++i) {
    if (!needed[i] || is_param[i]) continue;
    const KernelValue& v = k.values[i];
    std::string e;
    if (v.kind == KernelValue::Kind::Constant) {
      e = render_constant(v, c.d);
    } else {
      std::vector<std::string> args;
      std::vector<DType> dtypes;
      for (int a : v.args) {
        args.push_back(fmt::format("v{}", a));
        dtypes.push_back(k.values[a].dtype);
      }
      e = render_scalar_op(v, args, dtypes, c.d, c.float32_rows, "tgc_err");
    }
    s += fmt::format("  const {} v{} = {};\n", register_type(v.dtype, c.d.dialect()), i, e);
  }
  s += fmt::format("  {}_out out;\n", name);
  for (size_t j = 0; j < results.size(); ++j) s += fmt::format("  out.r{} = v{};\n", j, results[j]);
  s += "  out.err = tgc_err;\n  return out;\n}\n";
  return s;
}

std::string element_call(const std::string& name, const std::vector<std::string>& args,
                         const std::vector<std::string>& results) {
  std::string s = fmt::format("{{ const {}_out tgc_out = {}(", name, name);
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  s += ");";
  for (size_t j = 0; j < results.size(); ++j) s += fmt::format(" {} = tgc_out.r{};", results[j], j);
  return s + " tgc_errors |= tgc_out.err; }";
}

std::string decompose(const Ctx& c, const std::string& idx, const std::string& flat, int shape_slot, int divisor_slot,
                      int cap, const std::string& rank, const std::vector<std::pair<std::string, int>>& offsets) {
  const bool fast = idx == "int";
  // Dims from the innermost (cap - 1) outwards; the outermost used dim takes the rest of the
  // index without a division.
  std::string s = fmt::format("    do {{\n      {} t_ = {};\n", idx, flat);
  for (int used = 1; used <= cap; ++used) {
    const int d = cap - used;
    s += fmt::format("      if ({} < {}) break;\n", rank, used);
    s += fmt::format("      {{\n        {} c_ = t_;\n", idx);
    if (used < cap && fast)
      s += fmt::format(
          "        if ({0} > {1}) {{ const int q_ = (int)(({2}((unsigned int)t_, (unsigned int)(P.v[{3}] >> 8)) + "
          "(unsigned int)t_) >> (int)(P.v[{3}] & 255)); c_ = t_ - q_ * {4}; t_ = q_; }}\n",
          rank, used, c.d.cuda() ? "__umulhi" : "mul_hi", divisor_slot + d, c.param(shape_slot + d, idx));
    else if (used < cap)
      s += fmt::format("        if ({0} > {1}) {{ const {2} q_ = t_ / {3}; c_ = t_ - q_ * {3}; t_ = q_; }}\n", rank, used,
                       idx, c.param(shape_slot + d, idx));
    for (const auto& [var, slot] : offsets) s += fmt::format("        {} += c_ * {};\n", var, c.param(slot + d, idx));
    s += "      }\n";
  }
  return s + "    } while (0);\n";
}

std::string load(const Ctx& c, int input, const std::string& offset) {
  const std::string m = fmt::format("p{}[{}]", input, offset);
  return c.k.inputs[input].dtype == DType::Bool ? fmt::format("({} != 0)", m) : m;
}

std::string store(const Ctx& c, int output, const std::string& offset, const std::string& value) {
  const DType t = c.k.outputs[output].dtype;
  const std::string v = t == DType::Bool ? fmt::format("({})({} ? 1 : 0)", memory_type(t, c.d.dialect()), value) : value;
  return fmt::format("p{}[{}] = {};", c.nin() + output, offset, v);
}

std::string flush_errors(const Ctx& c) {
  if (!kernel_may_fail(c.k)) return "";
  return "  if (tgc_errors) " + c.d.atomic_or("errors", "tgc_errors") + ";\n";
}

}  // namespace tgc::cfam::detail
