// Type printing and compatibility checks.
#include "runtime/type.h"

namespace tgc {

bool Type::fully_known() const {
  for (int64_t d : shape)
    if (d == kUnknownDim) return false;
  return true;
}

bool Type::accepts(DType d, const Shape& s) const {
  if (d != dtype || s.size() != shape.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (shape[i] != kUnknownDim && shape[i] != s[i]) return false;
  return true;
}

bool Type::accepts(const Type& other) const {
  if (other.dtype != dtype || other.shape.size() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != kUnknownDim && shape[i] != other.shape[i]) return false;
  return true;
}

std::string rank_name(int ndim) {
  switch (ndim) {
    case 0: return "scalar";
    case 1: return "vector";
    case 2: return "matrix";
    case 3: return "tensor3";
    default: return std::to_string(ndim) + "-d tensor";
  }
}

std::string static_shape_str(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += shape[i] == kUnknownDim ? "?" : std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

std::string Type::str() const {
  std::string out = std::string(dtype_name(dtype)) + " " + rank_name(ndim());
  if (ndim() == 0) return out;  // a scalar has no shape worth printing
  return out + " " + static_shape_str(shape);
}

}  // namespace tgc
