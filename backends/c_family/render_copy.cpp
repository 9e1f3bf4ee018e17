// The copy kernels in CUDA C and OpenCL C, written once through the dialect hooks.
#include "backends/c_family/render_copy.h"

#include <fmt/format.h>

#include "backends/c_family/dialect.h"
#include "runtime/error.h"

namespace tgc::cfam {

namespace {

const char* const kEntryNames[] = {"tgc_strided_copy_1", "tgc_strided_copy_2", "tgc_strided_copy_4",
                                   "tgc_strided_copy_8", "tgc_copy_bytes", "tgc_copy_bytes_unless"};

// The signature of an entry over (src, dst, extra...) and its first lines: OpenCL operands
// come with element offsets after every other argument (the ABI), added to the pointers first.
// `guarded`: a third operand, `const int* flag`, after the extra arguments.
std::string open_entry(const DialectHooks& d, const std::string& name, const std::string& type,
                       const std::string& extra, bool guarded = false) {
  std::string s = fmt::format("{} {}({}, {}, {}", d.entry_qualifier(), name, d.global_param(type, true, "s"),
                              d.global_param(type, false, "d"), extra);
  if (guarded) s += ", " + d.global_param("int", true, "flag");
  if (!d.cuda()) s += fmt::format(", {0} s_off, {0} d_off", d.u64());
  if (!d.cuda() && guarded) s += fmt::format(", {0} flag_off", d.u64());
  s += ") {\n";
  if (!d.cuda()) s += "  s += s_off;\n  d += d_off;\n";
  if (!d.cuda() && guarded) s += "  flag += flag_off;\n";
  if (guarded) s += "  if (*flag) return;\n";
  // Grid-stride loops: the launch sizes the grid to the device, not to n.
  s += fmt::format("  const {0} step = ({0}){1} * {2};\n", d.i64(), d.grid_size(), d.block_size());
  s += fmt::format("  const {0} t = ({0}){1} * {2} + {3};\n", d.i64(), d.block_index(), d.block_size(),
                   d.thread_index());
  return s;
}

// Elements are moved as integers of their size: a copy needs no arithmetic.
std::string strided_entry(const DialectHooks& d, CopyEntry e) {
  static const DType kTypes[] = {DType::UInt8, DType::Int16, DType::Int32, DType::Int64};
  const std::string i64 = d.i64();
  std::string s = open_entry(d, kEntryNames[e], memory_type(kTypes[e], d.dialect()), "tgc_copy_params p");
  s += fmt::format("  for ({0} i = t; i < p.n; i += step) {{\n", i64);
  s += fmt::format("    {0} rem = i, off = 0;\n", i64);
  s += "    for (int k = (int)p.ndim - 1; k >= 0; --k) {\n";
  s += fmt::format("      const {0} idx = rem % p.shape[k];\n", i64);
  s += "      rem /= p.shape[k];\n      off += idx * p.strides[k];\n    }\n";
  s += "    d[i] = s[off];\n  }\n}\n";
  return s;
}

std::string bytes_entry(const DialectHooks& d, bool guarded) {
  const std::string i64 = d.i64(), u64 = d.u64();
  std::string s = open_entry(d, kEntryNames[guarded ? kCopyBytesUnless : kCopyBytes],
                             memory_type(DType::UInt8, d.dialect()), i64 + " n", guarded);
  s += fmt::format("  {0} done = 0;\n", i64);
  s += fmt::format("  if (((({0})s | ({0})d) & 15) == 0) {{\n", u64);
  s += "    done = n / 16 * 16;\n";
  const std::string src = fmt::format("(({})s)", d.global_ptr("int", true));
  const std::string dst = fmt::format("(({})d)", d.global_ptr("int", false));
  s += fmt::format("    for ({0} i = t; i < n / 16; i += step) {1}\n", i64,
                   d.vector_store(DType::Int32, 4, dst, "i", d.vector_load(DType::Int32, 4, src, "i")));
  s += "  }\n";
  s += fmt::format("  for ({0} i = done + t; i < n; i += step) d[i] = s[i];\n}}\n", i64);
  return s;
}

}  // namespace

CopyEntry strided_copy_entry(size_t element_size) {
  switch (element_size) {
    case 1: return kStridedCopy1;
    case 2: return kStridedCopy2;
    case 4: return kStridedCopy4;
    case 8: return kStridedCopy8;
    default: break;
  }
  TGC_INTERNAL_CHECK(false, "strided copy of " + std::to_string(element_size) + "-byte elements");
  return kStridedCopy1;
}

Source render_copy_kernels(Dialect dialect, int only_entry) {
  const DialectHooks d(dialect);
  Source src;
  src.entries.assign(std::begin(kEntryNames), std::end(kEntryNames));
  src.code = d.prelude();
  src.code += fmt::format("typedef struct {{ {0} shape[{1}]; {0} strides[{1}]; {0} n; {0} ndim; }} tgc_copy_params;\n",
                          d.i64(), kCopyMaxRank);
  for (int e = kStridedCopy1; e <= kCopyBytesUnless; ++e) {
    if (only_entry >= 0 && only_entry != e) continue;
    src.code += e >= kCopyBytes ? bytes_entry(d, e == kCopyBytesUnless) : strided_entry(d, static_cast<CopyEntry>(e));
  }
  src.params_capacity = 0;
  return src;
}

}  // namespace tgc::cfam
