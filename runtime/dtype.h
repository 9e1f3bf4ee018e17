// Element types of tensors, NumPy's promotion rules with tgc's floatX policy, and a
// dispatcher that turns a runtime DType into a C++ type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/export.h"
#include "runtime/half_types.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// New types go at the end: a DType's number is part of kernel-cache keys.
enum class DType : uint8_t {
  Bool, Int8, Int16, Int32, Int64, UInt8, Float32, Float64, Float16, BFloat16
};

inline constexpr DType kAllDTypes[] = {DType::Bool,    DType::Int8,    DType::Int16,
                                       DType::Int32,   DType::Int64,   DType::UInt8,
                                       DType::Float16, DType::BFloat16, DType::Float32,
                                       DType::Float64};

std::string_view dtype_name(DType t);  // "float32", as NumPy spells it
// Parses a NumPy dtype name; throws TypeError naming the bad name and the valid ones.
DType parse_dtype(std::string_view name);
size_t dtype_size(DType t);
bool is_float(DType t);  // float16, bfloat16, float32, float64
bool is_half(DType t);   // float16 or bfloat16: stored in 16 bits, computed in float32
bool is_integer(DType t);  // signed or unsigned; bool is not an integer here
bool is_signed_integer(DType t);
bool is_unsigned_integer(DType t);

// NumPy's result_type for two array dtypes, with the floatX policy of the design: an
// integer or bool mixed with a float keeps the float's width (int32 + float32 -> float32,
// int32 + bfloat16 -> bfloat16, where NumPy would say float64). Integers follow NumPy
// (uint8 + int8 -> int16). float16 with bfloat16 gives float32, the smallest type holding
// both (JAX's rule; NumPy with ml_dtypes refuses the pair).
DType promote(DType a, DType b);
// The float type an operation on `t` computes in: floats stay, integers and bool become
// `floatx` (exp(int32) -> floatX, the design's precision policy).
DType float_of(DType t, DType floatx);

template <typename T>
struct DTypeOf;
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::Int8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::Int16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::Int32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::UInt8; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::Float32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::Float64; };
template <> struct DTypeOf<float16_t> { static constexpr DType value = DType::Float16; };
template <> struct DTypeOf<bfloat16_t> { static constexpr DType value = DType::BFloat16; };
template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

// Calls fn.template operator()<T>() with T the C++ type of `t`, returning its result.
// Usage: dispatch_dtype(t, [&]<typename T>() { ... });
template <typename Fn>
decltype(auto) dispatch_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::Bool: return fn.template operator()<bool>();
    case DType::Int8: return fn.template operator()<int8_t>();
    case DType::Int16: return fn.template operator()<int16_t>();
    case DType::Int32: return fn.template operator()<int32_t>();
    case DType::Int64: return fn.template operator()<int64_t>();
    case DType::UInt8: return fn.template operator()<uint8_t>();
    case DType::Float32: return fn.template operator()<float>();
    case DType::Float64: return fn.template operator()<double>();
    case DType::Float16: return fn.template operator()<float16_t>();
    case DType::BFloat16: return fn.template operator()<bfloat16_t>();
  }
  return fn.template operator()<double>();  // unreachable: the switch is exhaustive
}

TGC_API_END
}  // namespace tgc
