// Conversions between half storage and float in C-family kernels (see render_half.h).
#include "backends/c_family/render_half.h"

#include <fmt/format.h>

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
DEV float tgc_bf16_to_f(U16 h) { return AS_FLOAT((uint)h << 16); }
DEV U16 tgc_bf16_from_f(float x) {
  uint u = AS_UINT(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (U16)((u >> 16) | 0x40u);
  return (U16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
DEV U16 tgc_bf16_from_d(double x) {
  double a = fabs(x);
  if (!(a >= 0x1p-126 && a < 0x1p+128)) return tgc_bf16_from_f((float)x);
  U64 u = (U64)AS_LONG(x);
  u = (u + 0xfffffffffffULL + ((u >> 45) & 1ULL)) & ~(U64)0x1fffffffffffULL;
  return tgc_bf16_from_f((float)AS_DOUBLE((I64)u));
}
)";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

std::string half_helpers(const DialectHooks& d) {
  std::string bf = kBfloat16;
  if (d.cuda()) {
    bf = replace_all(bf, "AS_FLOAT", "__uint_as_float");
    bf = replace_all(bf, "AS_UINT", "__float_as_uint");
    bf = replace_all(bf, "AS_LONG", "__double_as_longlong");
    bf = replace_all(bf, "AS_DOUBLE", "__longlong_as_double");
    bf = replace_all(bf, "(uint)", "(unsigned int)");
    bf = replace_all(bf, "uint u", "unsigned int u");
    bf = replace_all(bf, "U16", "unsigned short");
    bf = replace_all(bf, "U64", "unsigned long long");
    bf = replace_all(bf, "I64", "long long");
  } else {
    bf = replace_all(bf, "AS_FLOAT", "as_float");
    bf = replace_all(bf, "AS_UINT", "as_uint");
    bf = replace_all(bf, "AS_LONG", "as_long");
    bf = replace_all(bf, "AS_DOUBLE", "as_double");
    bf = replace_all(bf, "ULL", "UL");
    bf = replace_all(bf, "U16", "ushort");
    bf = replace_all(bf, "U64", "ulong");
    bf = replace_all(bf, "I64", "long");
  }
  return std::string(d.cuda() ? kCudaFloat16 : kOpenclFloat16) + bf;
}

std::string half_to_float(const std::string& bits, DType t) {
  return fmt::format("{}({})", t == DType::Float16 ? "tgc_f16_to_f" : "tgc_bf16_to_f", bits);
}

std::string half_from(const std::string& x, DType t, bool from_double) {
  return fmt::format("{}_from_{}({})", t == DType::Float16 ? "tgc_f16" : "tgc_bf16", from_double ? "d" : "f", x);
}

}  // namespace tgc::cfam
