// The copy kernels' source in both dialects: the entries in CopyEntry order, the ABI's
// operand offsets in OpenCL only, only_entry defining one entry, and the entry for each
// element size. (NVRTC compiles the CUDA unit in cuda_nvrtc_tests; PoCL builds the OpenCL
// one in backends_gpu_opencl_tests.)
#include "backends/c_family/render_copy.h"

#include <gtest/gtest.h>

namespace tgc::cfam {
namespace {

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(RenderCopy, BothDialectsDefineEveryEntryInOrder) {
  for (Dialect dialect : {Dialect::Cuda, Dialect::OpenCL}) {
    const Source src = render_copy_kernels(dialect);
    ASSERT_EQ(src.entries.size(), 6u);
    EXPECT_EQ(src.entries[kStridedCopy4], "tgc_strided_copy_4");
    EXPECT_EQ(src.entries[kCopyBytes], "tgc_copy_bytes");
    EXPECT_EQ(src.entries[kCopyBytesUnless], "tgc_copy_bytes_unless");
    for (const std::string& e : src.entries) EXPECT_EQ(count(src.code, " " + e + "("), 1) << e;
    const bool cl = dialect == Dialect::OpenCL;
    EXPECT_EQ(count(src.code, "__kernel void"), cl ? 6 : 0);
    EXPECT_EQ(count(src.code, "extern \"C\" __global__ void"), cl ? 0 : 6);
    // OpenCL operands arrive as (buffer, element offset): the offsets come last.
    EXPECT_EQ(count(src.code, "ulong s_off, ulong d_off)"), cl ? 5 : 0);
    EXPECT_EQ(count(src.code, "ulong s_off, ulong d_off, ulong flag_off)"), cl ? 1 : 0);
    EXPECT_EQ(count(src.code, "s += s_off;"), cl ? 6 : 0);
    // The guarded copy returns before touching anything when the flag is set.
    EXPECT_EQ(count(src.code, "if (*flag) return;"), 1);
  }
}

TEST(RenderCopy, OnlyEntryDefinesOneAndKeepsTheList) {
  const Source one = render_copy_kernels(Dialect::OpenCL, kStridedCopy2);
  EXPECT_EQ(one.entries.size(), 6u);
  EXPECT_EQ(count(one.code, "__kernel void"), 1);
  EXPECT_NE(one.code.find("tgc_strided_copy_2(__global const short*"), std::string::npos) << one.code;
  EXPECT_NE(one.code.find("tgc_copy_params"), std::string::npos) << "the params type comes with every entry";
}

TEST(RenderCopy, EntryPerElementSize) {
  EXPECT_EQ(strided_copy_entry(1), kStridedCopy1);
  EXPECT_EQ(strided_copy_entry(2), kStridedCopy2);
  EXPECT_EQ(strided_copy_entry(4), kStridedCopy4);
  EXPECT_EQ(strided_copy_entry(8), kStridedCopy8);
  EXPECT_THROW(strided_copy_entry(3), InternalError);
  static_assert(sizeof(CopyParams) == (2 * kCopyMaxRank + 2) * sizeof(int64_t), "the kernels' params layout");
}

}  // namespace
}  // namespace tgc::cfam
