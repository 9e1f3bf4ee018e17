// The libmvec variant table: AVX-512 (e) variants exactly when the host has avx512f, lane
// counts that fill the registers, every name exported by this machine's libmvec, and the
// feature-string parsing that decides it.
#include "backends/cpu/libmvec_table.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <set>

namespace tgc::cpu {
namespace {

TEST(LibmvecTable, AvxFiveTwelveVariantsOnlyWithAvx512f) {
  for (bool avx512f : {false, true}) {
    SCOPED_TRACE(avx512f ? "avx512f" : "no avx512f");
    std::set<std::string> e_variants;
    for (const LibmvecVariant& v : libmvec_variants(avx512f))
      if (v.vector.starts_with("_ZGVe")) e_variants.insert(v.vector);
    if (!avx512f) {
      EXPECT_TRUE(e_variants.empty());
      continue;
    }
    EXPECT_EQ(e_variants.size(), 40u);  // 20 functions, double and float
    for (const char* name : {"_ZGVeN8v_exp", "_ZGVeN16v_expf", "_ZGVeN8vv_pow", "_ZGVeN8v_tanh", "_ZGVeN16vv_atan2f"})
      EXPECT_TRUE(e_variants.count(name)) << name;
  }
}

TEST(LibmvecTable, LanesFillTheRegisterOfTheIsa) {
  for (const LibmvecVariant& v : libmvec_variants(true)) {
    const int bytes = v.vector[4] == 'b' ? 16 : v.vector[4] == 'd' ? 32 : 64;
    const int elem = v.scalar.ends_with("f") && v.scalar != "erf" ? 4 : 8;
    EXPECT_EQ(v.lanes * elem, bytes) << v.vector;
    EXPECT_TRUE(v.vector.starts_with("_ZGV" + std::string(1, v.vector[4]) + "N" + std::to_string(v.lanes))) << v.vector;
    EXPECT_TRUE(v.vector.ends_with("_" + v.scalar)) << v.vector;
  }
}

TEST(LibmvecTable, LlvmsOwnSseAndAvx2EntriesAreNotRepeated) {
  for (const LibmvecVariant& v : libmvec_variants(false)) EXPECT_NE(v.scalar, "exp") << v.vector;
}

TEST(LibmvecTable, EveryVariantIsExportedByLibmvec) {
  void* lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) GTEST_SKIP() << "libmvec.so.1 is not installed here (not glibc): " << dlerror();
  for (const LibmvecVariant& v : libmvec_variants(true)) EXPECT_NE(dlsym(lib, v.vector.c_str()), nullptr) << v.vector;
  dlclose(lib);
}

TEST(LibmvecTable, FeatureStrings) {
  EXPECT_TRUE(has_avx512f("+avx2,+avx512f,+fma"));
  EXPECT_FALSE(has_avx512f("+avx2,-avx512f,+fma"));
  EXPECT_FALSE(has_avx512f("+avx512fp16x"));
  EXPECT_FALSE(has_avx512f("+avx512bw,+avx512vl"));
  EXPECT_FALSE(has_avx512f(""));
}

}  // namespace
}  // namespace tgc::cpu
