// The float32-math table (see float32_math.h): one row per function with a float variant in
// both libm and glibc's libmvec, with glibc's documented float errors.
#include "backends/cpu/float32_math.h"

#include <cmath>

namespace tgc::cpu {

namespace {

struct Row {
  ScalarOpKind op;
  const char* name;
  // glibc 2.36+ libm-test-ulps, float: max of "<f>" (scalar), "<f>_vlen4" (SSE),
  // "<f>_vlen8_avx2" (AVX2), "<f>_vlen16" (AVX-512); a missing entry counts as 0. Raised
  // where tests/backends/cpu/float32_math_test.cpp's sweep measured more on some machine
  // (asinf, erff: their AVX-512 variants on an AMD EPYC, 2026-11-25).
  int ulps;
};

constexpr Row kRows[] = {
    {ScalarOpKind::Exp, "expf", 1},       {ScalarOpKind::Exp2, "exp2f", 1},     {ScalarOpKind::Expm1, "expm1f", 1},
    {ScalarOpKind::Log, "logf", 3},       {ScalarOpKind::Log2, "log2f", 1},     {ScalarOpKind::Log10, "log10f", 2},
    {ScalarOpKind::Log1p, "log1pf", 2},   {ScalarOpKind::Sin, "sinf", 1},       {ScalarOpKind::Cos, "cosf", 1},
    {ScalarOpKind::Tan, "tanf", 2},       {ScalarOpKind::Tanh, "tanhf", 2},     {ScalarOpKind::Sinh, "sinhf", 2},
    {ScalarOpKind::Cosh, "coshf", 2},     {ScalarOpKind::Arcsin, "asinf", 2},   {ScalarOpKind::Arccos, "acosf", 2},
    {ScalarOpKind::Arctan, "atanf", 1},   {ScalarOpKind::Arctan2, "atan2f", 2}, {ScalarOpKind::Erf, "erff", 3},
    {ScalarOpKind::Erfc, "erfcf", 3},     {ScalarOpKind::Pow, "powf", 3},
};

const Row* find(ScalarOpKind op) {
  for (const Row& r : kRows)
    if (r.op == op) return &r;
  return nullptr;
}

}  // namespace

const char* float32_libm_name(ScalarOpKind op) {
  const Row* r = find(op);
  return r ? r->name : nullptr;
}

int float32_math_ulps(ScalarOpKind op) {
  const Row* r = find(op);
  return r ? r->ulps : 0;
}

int float32_math_reference_ulps(ScalarOpKind op) { return find(op) ? float32_math_ulps(op) + 1 : 0; }

double float32_math_rtol(ScalarOpKind op) { return std::ldexp(float32_math_reference_ulps(op), -23); }

double float32_math_atol(ScalarOpKind op) { return std::ldexp(float32_math_reference_ulps(op), -149); }

}  // namespace tgc::cpu
