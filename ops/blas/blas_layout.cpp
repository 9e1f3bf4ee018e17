// Choosing transpose flags, leading dimensions and increments for strided BLAS operands.
#include "ops/blas/blas_layout.h"

#include <algorithm>
#include <limits>

namespace tgc {

bool fits_blas_int(int64_t n) { return n >= 0 && n <= std::numeric_limits<int32_t>::max(); }

std::optional<BlasMatrixLayout> blas_matrix_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  // Row-major: element (i, j) at i*ld + j.
  if ((cols == 1 || cs == 1)) {
    int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
    if (ld >= std::max<int64_t>(cols, 1) && fits_blas_int(ld)) return BlasMatrixLayout{false, ld};
  }
  // Transposed row-major: element (i, j) at j*ld + i.
  if ((rows == 1 || rs == 1)) {
    int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
    if (ld >= std::max<int64_t>(rows, 1) && fits_blas_int(ld)) return BlasMatrixLayout{true, ld};
  }
  return std::nullopt;
}

std::optional<int64_t> blas_vector_increment(int64_t n, int64_t stride) {
  if (n <= 1) return 1;
  if (stride > 0 && fits_blas_int(stride)) return stride;
  return std::nullopt;
}

}  // namespace tgc
