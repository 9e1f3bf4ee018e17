// Public API: matrix products. dot follows NumPy for vectors and matrices; batched_dot and
// matmul multiply stacks of matrices. Mixed dtypes are promoted (int32 with float32 gives
// float32); float products run on OpenBLAS, integer and bool ones exactly (wrapping).
#pragma once

#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// vector.vector -> 0-d, matrix.vector -> vector, vector.matrix -> vector, matrix.matrix
// -> matrix. Misaligned operands are a ShapeError such as
// "dot: shapes (400, 784) and (785,) are not aligned (dim 1 != dim 0)"; 3-d operands are a
// TypeError pointing at batched_dot/matmul.
Var dot(const Var& x, const Var& y);
// (B, m, k) x (B, k, n) -> (B, m, n); a batch of 1 broadcasts; one operand may be a single
// (m, k) or (k, n) matrix used for every batch entry, or a vector (its dim is dropped:
// (B, m, k) x (k,) -> (B, m)). One operand must be 3-d.
Var batched_dot(const Var& x, const Var& y);
// NumPy's matmul for operands of rank 1 to 3: dot when both are at most 2-d, batched_dot
// when one is 3-d. Higher ranks are not supported yet (a TypeError).
Var matmul(const Var& x, const Var& y);
// out[i, j] = x[i] * y[j] of the flattened operands, any dtype.
Var outer(const Var& x, const Var& y);

TGC_API_END
}  // namespace tgc
