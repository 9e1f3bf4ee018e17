// Eye: the identity-like matrix.
#include "ops/alloc/eye.h"

#include <cstring>

#include <fmt/format.h>

namespace tgc {

std::string Eye::name() const {
  return fmt::format("Eye{{n={}, m={}, k={}, dtype={}}}", n_, m_, k_, dtype_name(dtype_));
}

Shape Eye::shape() const {
  if (n_ < 0 || m_ < 0)
    throw ValueError(fmt::format("eye: negative dimensions n={}, m={}", n_, m_), "", "n and m must be >= 0");
  return {n_, m_};
}

std::vector<Type> Eye::infer_types(const std::vector<Type>& inputs) const {
  TGC_INTERNAL_CHECK(inputs.empty(), "Eye takes no inputs");
  return {Type(dtype_, shape())};
}

std::vector<Shape> Eye::infer_shapes(const std::vector<Shape>& /*inputs*/) const { return {shape()}; }

void Eye::perform(const std::vector<Tensor>& /*inputs*/, std::vector<Tensor>& outputs) const {
  Tensor& out = ensure_output(outputs[0], dtype_, shape());
  if (out.nbytes()) std::memset(out.raw_data(), 0, out.nbytes());
  dispatch_dtype(dtype_, [&]<typename T>() {
    T* p = out.data<T>();
    for (int64_t i = 0; i < n_; ++i) {
      const int64_t j = i + k_;
      if (j >= 0 && j < m_) p[i * m_ + j] = T(1);
    }
  });
}

}  // namespace tgc
