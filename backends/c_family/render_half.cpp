// Conversions between half storage and float in C-family kernels (see render_half.h).
#include "backends/c_family/render_half.h"

#include <fmt/format.h>

#include "backends/c_family/render_template.h"

namespace tgc::cfam {

namespace {

// CUDA: PTX's cvt rounds to nearest even in one instruction, from float or from double.
constexpr const char* kCudaFloat16 = R"(
DEV float tgc_f16_to_f(unsigned short h) { float r; asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h)); return r; }
DEV unsigned short tgc_f16_from_f(float x) { unsigned short r; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); return r; }
DEV unsigned short tgc_f16_from_d(double x) { unsigned short r; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r) : "d"(x)); return r; }
)";

// OpenCL: vload_half and vstore_half_rte are core functions on half pointers (no
// cl_khr_fp16 needed), here on the private copy of the bits.
constexpr const char* kOpenclFloat16 = R"(
DEV float tgc_f16_to_f(ushort h) { return vload_half(0, (const half*)&h); }
DEV ushort tgc_f16_from_f(float x) { ushort r; vstore_half_rte(x, 0, (half*)&r); return r; }
DEV ushort tgc_f16_from_d(double x) { ushort r; vstore_half_rte(x, 0, (half*)&r); return r; }
)";

// bfloat16 is float32's top half: widening is a shift; narrowing rounds the dropped 16 bits
// to nearest even (a NaN stays a quiet NaN). From a double within float's normal range the
// rounding happens at bfloat16's last bit in the double's own pattern (exact after that),
// so the value is rounded once.
constexpr const char* kBfloat16 = R"(
DEV float tgc_bf16_to_f($U16 h) { return $AS_FLOAT(($U32)h << 16); }
DEV $U16 tgc_bf16_from_f(float x) {
  $U32 u = $AS_UINT(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return ($U16)((u >> 16) | 0x40u);
  return ($U16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
DEV $U16 tgc_bf16_from_d(double x) {
  double a = fabs(x);
  if (!(a >= 0x1p-126 && a < 0x1p+128)) return tgc_bf16_from_f((float)x);
  $U64 u = ($U64)$AS_LONG(x);
  u = (u + ($U64)0xfffffffffff + ((u >> 45) & ($U64)1)) & ~($U64)0x1fffffffffff;
  return tgc_bf16_from_f((float)$AS_DOUBLE(($I64)u));
}
)";

}  // namespace

std::string half_helpers(const DialectHooks& d) {
  tmpl::Tokens t = tmpl::dialect_tokens(d);
  const bool cu = d.cuda();
  t.insert({{"U16", cu ? "unsigned short" : "ushort"},
            {"U32", cu ? "unsigned int" : "uint"},
            {"AS_FLOAT", cu ? "__uint_as_float" : "as_float"},
            {"AS_UINT", cu ? "__float_as_uint" : "as_uint"},
            {"AS_LONG", cu ? "__double_as_longlong" : "as_long"},
            {"AS_DOUBLE", cu ? "__longlong_as_double" : "as_double"}});
  return std::string(cu ? kCudaFloat16 : kOpenclFloat16) + tmpl::subst(kBfloat16, t);
}

std::string half_to_float(const std::string& bits, DType t) {
  return fmt::format("{}({})", t == DType::Float16 ? "tgc_f16_to_f" : "tgc_bf16_to_f", bits);
}

std::string half_from(const std::string& x, DType t, bool from_double) {
  return fmt::format("{}_from_{}({})", t == DType::Float16 ? "tgc_f16" : "tgc_bf16", from_double ? "d" : "f", x);
}

}  // namespace tgc::cfam
