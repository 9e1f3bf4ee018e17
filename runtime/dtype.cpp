// DType names, sizes and promotion.
#include "runtime/dtype.h"

#include <algorithm>

#include "runtime/error.h"

namespace tgc {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::UInt8: return "uint8";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
  }
  return "?";
}

DType parse_dtype(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  std::string valid;
  for (DType t : kAllDTypes) valid += (valid.empty() ? "" : ", ") + std::string(dtype_name(t));
  throw TypeError("unknown dtype '" + std::string(name) + "'", "", "valid dtypes are " + valid);
}

size_t dtype_size(DType t) {
  return dispatch_dtype(t, []<typename T>() { return sizeof(T); });
}

bool is_half(DType t) { return t == DType::Float16 || t == DType::BFloat16; }
bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64 || is_half(t); }
bool is_unsigned_integer(DType t) { return t == DType::UInt8; }
bool is_signed_integer(DType t) {
  return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64;
}
bool is_integer(DType t) { return is_signed_integer(t) || is_unsigned_integer(t); }

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (is_float(a) || is_float(b)) {
    if (is_half(a) && is_half(b)) return DType::Float32;  // float16 with bfloat16
    if (is_float(a) && is_float(b)) return dtype_size(a) >= dtype_size(b) ? a : b;
    return is_float(a) ? a : b;  // floatX policy: the float's width wins
  }
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_signed_integer(a) == is_signed_integer(b))
    return dtype_size(a) >= dtype_size(b) ? a : b;
  // One signed, one unsigned (uint8): the smallest signed type holding both ranges.
  DType s = is_signed_integer(a) ? a : b;
  DType u = is_signed_integer(a) ? b : a;
  size_t need = std::max(dtype_size(s), 2 * dtype_size(u));
  switch (need) {
    case 1: return DType::Int8;
    case 2: return DType::Int16;
    case 4: return DType::Int32;
    default: return DType::Int64;
  }
}

DType float_of(DType t, DType floatx) { return is_float(t) ? t : floatx; }

}  // namespace tgc
