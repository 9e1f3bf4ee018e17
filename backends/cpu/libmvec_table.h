// The libmvec vector variants tgc registers with LLVM's loop vectorizer: every libm function
// the scalar rendering calls, in the x86 vector ABI's SSE (b), AVX2 (d) and, when the host
// has AVX-512F, AVX-512 (e) widths. Plain data, so the table is testable without LLVM.
#pragma once

#include <string>
#include <vector>

namespace tgc::cpu {

struct LibmvecVariant {
  std::string scalar;  // "exp", "expf"
  std::string vector;  // "_ZGVdN4v_exp"
  int lanes;           // 4
};

// Variants beyond LLVM 16's own LIBMVEC-X86 table (which maps sin, cos, exp, log and pow in
// the b and d widths only): all our functions in b and d, and all of them in e when
// `avx512f`. glibc 2.35's libmvec exports every name.
std::vector<LibmvecVariant> libmvec_variants(bool avx512f);

// Whether an LLVM feature string ("+avx2,-avx512f,+fma") enables avx512f.
bool has_avx512f(const std::string& features);

}  // namespace tgc::cpu
