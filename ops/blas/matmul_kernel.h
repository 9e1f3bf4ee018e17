// The host matrix-product kernel behind Dot and BatchedDot: NumPy dot of 1-d/2-d strided
// operands into a contiguous output, through OpenBLAS or oneDNN for floats.
#pragma once

#include "runtime/tensor.h"

namespace tgc {

// out = dot(a, b) for a, b of rank 1 or 2 and the same dtype; `out` is C-contiguous with
// the dot's shape ((m, n), (m,), (n,) or ()) and that dtype. Any strides are accepted.
// float32/float64 go through cblas ?dot/?gemv/?gemm or oneDNN's sgemm (choose_product in
// product_library.h decides, threads included), passing transposed and sliced
// operands as transpose flags and leading dimensions and copying only operands BLAS cannot
// describe (see blas_layout.h). Integer and bool dtypes use a plain loop: BLAS has no
// integer routines. Integer products wrap like NumPy's; bool is OR of ANDs.
// With alpha/beta (float dtypes only; Gemm and Gemv): out = alpha * dot(a, b) + beta * out,
// BLAS's contract: out is not read when beta == 0, so NaN or inf there do not propagate.
void matmul_strided(const Tensor& a, const Tensor& b, const Tensor& out, double alpha = 1, double beta = 0);

}  // namespace tgc
