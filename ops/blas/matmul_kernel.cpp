// Host matrix products: OpenBLAS's cblas or oneDNN's sgemm for floats, as product_library.h
// chooses (no copies for transposed/sliced operands), a loop for integers and bool.
#include "ops/blas/matmul_kernel.h"

#include <cblas.h>

#include <algorithm>
#include <type_traits>

#include "ops/blas/blas_layout.h"
#include "ops/blas/blas_threads.h"
#include "ops/blas/blas_workspace.h"
#include "ops/blas/dnnl_gemm.h"
#include "ops/blas/product_library.h"
#include "runtime/cpu_team.h"

namespace tgc {
namespace {

// A 1-d or 2-d operand seen as a (rows x cols) matrix: a vector on the left is a row,
// on the right a column. Strides of length-1 dims are irrelevant.
struct MatView {
  int64_t rows, cols, rs, cs;
};
MatView as_matrix(const Tensor& t, bool left) {
  if (t.ndim() == 2) return {t.shape()[0], t.shape()[1], t.strides()[0], t.strides()[1]};
  if (left) return {1, t.shape()[0], 0, t.strides()[0]};
  return {t.shape()[0], 1, t.strides()[0], 0};
}

// Integer and bool products (and float products too large for 32-bit BLAS ints): the
// textbook loop over strided operands. Integers accumulate in uint64, whose wrap-around
// reduced to the output width equals NumPy's wrapping arithmetic in that width; bool sums
// its ANDs and reports nonzero.
template <typename T>
void loop_matmul(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  MatView A = as_matrix(a, true), B = as_matrix(b, false);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* po = out.data<T>();
  using Acc = std::conditional_t<is_float_type_v<T>, double, uint64_t>;
  auto widen = [](T v) -> Acc {
    if constexpr (is_float_type_v<T>) return static_cast<double>(v);
    else return static_cast<uint64_t>(static_cast<int64_t>(v));
  };
  for (int64_t i = 0; i < A.rows; ++i)
    for (int64_t j = 0; j < B.cols; ++j) {
      Acc acc = 0;
      for (int64_t k = 0; k < A.cols; ++k) acc += widen(pa[i * A.rs + k * A.cs]) * widen(pb[k * B.rs + j * B.cs]);
      T r;
      if constexpr (std::is_same_v<T, bool>) r = acc != 0;
      else if constexpr (is_float_type_v<T>)
        r = static_cast<T>(beta == 0 ? alpha * acc : alpha * acc + beta * static_cast<double>(po[i * B.cols + j]));
      else r = static_cast<T>(static_cast<int64_t>(acc));  // modular narrowing (C++20)
      po[i * B.cols + j] = r;
    }
}

// An operand ready for BLAS: its data (the original, or a contiguous copy kept alive in
// `holder`), and how BLAS reads it.
template <typename T>
struct BlasMatrix {
  Tensor holder;
  const T* data;
  CBLAS_TRANSPOSE trans;
  blasint ld;
};
template <typename T>
BlasMatrix<T> blas_matrix(const Tensor& m) {
  auto layout = blas_matrix_layout(m.shape()[0], m.shape()[1], m.strides()[0], m.strides()[1]);
  Tensor t = m;
  if (!layout) {
    t = m.copy();
    layout = BlasMatrixLayout{false, std::max<int64_t>(m.shape()[1], 1)};
  }
  return {t, t.data<T>(), layout->trans ? CblasTrans : CblasNoTrans, static_cast<blasint>(layout->ld)};
}

template <typename T>
struct BlasVector {
  Tensor holder;
  const T* data;
  blasint inc;
};
template <typename T>
BlasVector<T> blas_vector(const Tensor& v) {
  auto inc = blas_vector_increment(v.shape()[0], v.strides()[0]);
  if (inc) return {v, v.data<T>(), static_cast<blasint>(*inc)};
  Tensor t = v.copy();
  return {t, t.data<T>(), 1};
}

// BLAS's scale factors in the operand type.
template <typename T>
struct Scale {
  T alpha, beta;
};

template <typename T>
T blas_dot(blasint n, const BlasVector<T>& x, const BlasVector<T>& y) {
  use_blas_threads(1);  // a vector product (product_library.h)
  if constexpr (std::is_same_v<T, float>) return cblas_sdot(n, x.data, x.inc, y.data, y.inc);
  else return cblas_ddot(n, x.data, x.inc, y.data, y.inc);
}

// y = alpha A x + beta y for A of shape (m, k).
template <typename T>
void blas_gemv(const Tensor& A, const Tensor& x, T* y, Scale<T> s) {
  BlasMatrix<T> a = blas_matrix<T>(A);
  BlasVector<T> v = blas_vector<T>(x);
  // Row-major gemv takes the dims of the matrix as stored: (m, k), or (k, m) when transposed.
  blasint m = static_cast<blasint>(A.shape()[0]), k = static_cast<blasint>(A.shape()[1]);
  blasint rows = a.trans == CblasNoTrans ? m : k, cols = a.trans == CblasNoTrans ? k : m;
  use_blas_threads(1);  // a vector product (product_library.h)
  check_blas_workspace();
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemv(CblasRowMajor, a.trans, rows, cols, s.alpha, a.data, a.ld, v.data, v.inc, s.beta, y, 1);
  else
    cblas_dgemv(CblasRowMajor, a.trans, rows, cols, s.alpha, a.data, a.ld, v.data, v.inc, s.beta, y, 1);
}

// C = alpha A B + beta C for A (m, k), B (k, n), C contiguous (m, n).
template <typename T>
void blas_gemm(const Tensor& A, const Tensor& B, T* c, Scale<T> s) {
  BlasMatrix<T> a = blas_matrix<T>(A), b = blas_matrix<T>(B);
  blasint m = static_cast<blasint>(A.shape()[0]), k = static_cast<blasint>(A.shape()[1]);
  blasint n = static_cast<blasint>(B.shape()[1]);
  const ProductChoice choice =
      choose_product(std::is_same_v<T, float> ? DType::Float32 : DType::Float64, m, n, k, dnnl_available(),
                     dnnl_max_threads(), team_threads(blas_max_threads()));
  if constexpr (std::is_same_v<T, float>) {
    if (choice.library == ProductLibrary::OneDnn) {
      dnnl_sgemm_row_major(a.trans == CblasTrans, b.trans == CblasTrans, m, n, k, s.alpha, a.data, a.ld, b.data, b.ld,
                           s.beta, c, n, choice.threads);
      return;
    }
  }
  use_blas_threads(choice.threads);
  check_blas_workspace();
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, a.trans, b.trans, m, n, k, s.alpha, a.data, a.ld, b.data, b.ld, s.beta, c, n);
  else
    cblas_dgemm(CblasRowMajor, a.trans, b.trans, m, n, k, s.alpha, a.data, a.ld, b.data, b.ld, s.beta, c, n);
}

template <typename T>
void float_matmul(const Tensor& a, const Tensor& b, const Tensor& out, Scale<T> s) {
  T* o = out.data<T>();
  if (a.ndim() == 1 && b.ndim() == 1) {
    T d = blas_dot<T>(static_cast<blasint>(a.shape()[0]), blas_vector<T>(a), blas_vector<T>(b));
    *o = s.beta == T(0) ? s.alpha * d : s.alpha * d + s.beta * *o;
  } else if (b.ndim() == 1) {
    blas_gemv<T>(a, b, o, s);
  } else if (a.ndim() == 1) {
    blas_gemv<T>(b.transpose(), a, o, s);  // x B = B^T x
  } else {
    blas_gemm<T>(a, b, o, s);
  }
}

}  // namespace

void matmul_strided(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  TGC_INTERNAL_CHECK(a.dtype() == b.dtype() && a.dtype() == out.dtype(), "matmul_strided: dtypes differ");
  TGC_INTERNAL_CHECK(a.ndim() >= 1 && a.ndim() <= 2 && b.ndim() >= 1 && b.ndim() <= 2,
                     "matmul_strided: operands must be 1-d or 2-d");
  TGC_INTERNAL_CHECK(out.is_contiguous(), "matmul_strided: output must be contiguous");
  MatView A = as_matrix(a, true), B = as_matrix(b, false);
  TGC_INTERNAL_CHECK(A.cols == B.rows, "matmul_strided: operands are not aligned");
  const bool scaled = alpha != 1 || beta != 0;
  TGC_INTERNAL_CHECK(!scaled || is_float(out.dtype()), "matmul_strided: alpha and beta need a float dtype");
  if (out.numel() == 0) return;
  if (A.cols == 0) {  // empty inner dimension: every entry is an empty sum, times alpha
    dispatch_dtype(out.dtype(), [&]<typename T>() {
      T* o = out.data<T>();
      if constexpr (is_float_type_v<T>) {
        if (beta != 0) {
          for (int64_t i = 0; i < out.numel(); ++i) o[i] = static_cast<T>(beta * static_cast<double>(o[i]));
          return;
        }
      }
      std::fill(o, o + out.numel(), T(0));
    });
    return;
  }
  bool blas_sized = fits_blas_int(A.rows) && fits_blas_int(A.cols) && fits_blas_int(B.cols);
  if (is_half(out.dtype())) {
    // No CPU BLAS multiplies 16-bit floats on every CPU: the product runs in float32 on
    // float32 copies and rounds once into the half output (docs/precision.md).
    Tensor out32 = beta != 0 ? out.astype(DType::Float32) : Tensor::empty(DType::Float32, out.shape());
    matmul_strided(a.astype(DType::Float32), b.astype(DType::Float32), out32, alpha, beta);
    copy_elements(out32, out);
    return;
  }
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T>) {
      if (blas_sized) return float_matmul<T>(a, b, out, Scale<T>{static_cast<T>(alpha), static_cast<T>(beta)});
    }
    loop_matmul<T>(a, b, out, alpha, beta);
  });
}

}  // namespace tgc
