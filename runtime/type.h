// The static type of a symbolic tensor: dtype plus a shape whose dims are known or unknown.
// A dim statically known to be 1 is "broadcastable" in Theano's sense.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/dtype.h"
#include "runtime/export.h"
#include "runtime/shape.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

inline constexpr int64_t kUnknownDim = -1;

struct Type {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;  // kUnknownDim where not known statically

  Type() = default;
  Type(DType d, std::vector<int64_t> s) : dtype(d), shape(std::move(s)) {}
  static Type unknown(DType d, int ndim) { return Type(d, std::vector<int64_t>(ndim, kUnknownDim)); }

  int ndim() const { return static_cast<int>(shape.size()); }
  bool broadcastable(int axis) const { return shape[axis] == 1; }
  bool fully_known() const;

  // Whether a concrete value of `dtype`/`shape` is an instance of this type.
  bool accepts(DType d, const Shape& s) const;
  // Whether every value of `other` is a value of this type (dtype equal, dims compatible).
  bool accepts(const Type& other) const;

  // "float32 matrix (?, 784)": the kind names a Theano user knows.
  std::string str() const;
  bool operator==(const Type&) const = default;
};

// "(?, 784)", "(3,)", "()": a static shape as shape_str prints it, with '?' for unknown dims.
std::string static_shape_str(const std::vector<int64_t>& shape);

// "scalar", "vector", "matrix", "tensor3", or "4-d tensor".
std::string rank_name(int ndim);

TGC_API_END
}  // namespace tgc
