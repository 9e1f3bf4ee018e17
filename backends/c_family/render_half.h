// Half storage in C-family kernels: float16 and bfloat16 values live in registers as their
// 16 raw bits (unsigned short / ushort), and only a Cast converts them (lowering carries
// every other half value in float32: compiler/kernel/lower.cpp). This file renders those
// conversions and the helpers they call: float16 through the hardware's conversion (PTX
// cvt on CUDA, vload_half/vstore_half_rte on OpenCL, neither of which needs a header or an
// extension), bfloat16 by rounding float32's bit pattern, as runtime/half_types.h does.
#pragma once

#include <string>

#include "backends/c_family/dialect.h"
#include "runtime/dtype.h"

namespace tgc::cfam {

// The helper functions (tgc_f16_*, tgc_bf16_*), part of every kernel's preamble.
std::string half_helpers(const DialectHooks& d);

// The raw bits `bits` of half type `t` as a float (exact).
std::string half_to_float(const std::string& bits, DType t);
// `x` rounded to half type `t` (to nearest, ties to even) as its raw bits; `x` is a double
// expression when `from_double` (rounded once, not through float), else a float one.
std::string half_from(const std::string& x, DType t, bool from_double);

}  // namespace tgc::cfam
