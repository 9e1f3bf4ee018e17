// How a strided 2-d or 1-d operand is handed to BLAS without copying: a transpose flag and
// a leading dimension (row-major), or an increment. nullopt means "make a contiguous copy".
#pragma once

#include <cstdint>
#include <optional>

namespace tgc {

struct BlasMatrixLayout {
  bool trans;  // the data is the row-major transpose of the operand
  int64_t ld;  // leading dimension of the row-major data as BLAS reads it
};

// An operand of shape (rows, cols) with element strides (rs, cs), as row-major BLAS sees
// it: rows contiguous (cs == 1, rs a valid ld >= cols) -> NoTrans with ld = rs; columns
// contiguous (rs == 1, cs >= rows, e.g. x.T or a slice of it) -> Trans with ld = cs. The
// stride of a length-1 dim never matters. Zero (broadcast), negative or overlapping
// strides, and leading dimensions beyond BLAS's 32-bit ints, give nullopt.
std::optional<BlasMatrixLayout> blas_matrix_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs);

// The increment for a vector of n elements with stride s: s itself when positive (BLAS
// also takes negative ones, but their meaning differs between implementations, so tgc
// copies those), anything for n <= 1; nullopt for stride 0 or negative strides.
std::optional<int64_t> blas_vector_increment(int64_t n, int64_t stride);

// Whether a size fits a BLAS integer (OpenBLAS's default blasint is 32 bits).
bool fits_blas_int(int64_t n);

}  // namespace tgc
