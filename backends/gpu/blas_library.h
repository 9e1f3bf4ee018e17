// The BLAS calls a GPU API provides (cuBLAS, CLBlast), row-major and by device address: all
// that the device folders keep of BLAS. Operand preparation — layouts from strides,
// transposes as flags, copies only where BLAS cannot describe a layout, alpha and beta —
// is blas_thunk.cpp's, written once.
#pragma once

#include <cstdint>

#include "runtime/dtype.h"

namespace tgc::gpu {

// A matrix operand as row-major BLAS reads it: `data` holds the operand (trans = false) or
// its transpose (trans = true) row-major with leading dimension `ld` (ops/blas/blas_layout.h).
struct BlasMatrix {
  const void* data = nullptr;
  bool trans = false;
  int64_t ld = 1;
};

// A vector operand: element i at data + i * inc (inc >= 1).
struct BlasVector {
  const void* data = nullptr;
  int64_t inc = 1;
};

// A convolution as the library's convolution-as-GEMM takes it: dense NCHW activations, dense
// (o, c, kh, kw) weights, one group, the same padding on both sides of each axis.
struct ConvGemmShape {
  int64_t n = 0, c = 0, h = 0, w = 0, o = 0, kh = 0, kw = 0;
  int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
};

// One thunk's handle on the library (made with the thunk: its math mode, its lock). dtype is
// a float dtype the library's rule accepts (half types where DeviceOpRule::half_types), sizes fit BLAS's ints, and every pointer is a device address of the
// device the library was made for. Calls are enqueued on the device's stream.
class BlasLibrary {
 public:
  virtual ~BlasLibrary() = default;
  // c (m x n, row-major, leading dimension ldc) = alpha * op(a) (m x k) @ op(b) (k x n) + beta * c.
  // beta == 0: c is written, never read (NaNs in its buffer do not propagate).
  virtual void gemm(DType dtype, int64_t m, int64_t n, int64_t k, double alpha, const BlasMatrix& a,
                    const BlasMatrix& b, double beta, void* c, int64_t ldc) = 0;
  // c = alpha * op(a) @ op(b) + bias, where bias (n dense elements) is added to every row, in
  // the product's own kernel where the library can (cuBLASLt's epilogue): no copy of the bias
  // into c first. false when it cannot, with nothing enqueued (the caller copies the bias into
  // c and calls gemm with beta 1).
  virtual bool gemm_bias(DType /*dtype*/, int64_t /*m*/, int64_t /*n*/, int64_t /*k*/, double /*alpha*/,
                         const BlasMatrix& /*a*/, const BlasMatrix& /*b*/, const void* /*bias*/, void* /*c*/,
                         int64_t /*ldc*/) {
    return false;
  }
  // y (n, o, oh, ow) = the cross-correlation of x with w (ConvGemmShape's layouts), written
  // whole: CLBlast's Convgemm. false when the library has no such call, with nothing enqueued.
  virtual bool conv2d(DType /*dtype*/, const ConvGemmShape& /*shape*/, const void* /*x*/, const void* /*w*/,
                      void* /*y*/) {
    return false;
  }
  // One image's columns: col (c*kh*kw rows, oh*ow columns, dense) of x (c, h, w) as the
  // convolution reads it (n of `shape` ignored), and back: im (c, h, w) += the sum over each
  // element's columns (CLBlast's Col2im adds: im must hold zeros). false when the library has
  // no such call, with nothing enqueued.
  virtual bool im2col(DType /*dtype*/, const ConvGemmShape& /*shape*/, const void* /*im*/, void* /*col*/) { return false; }
  virtual bool col2im(DType /*dtype*/, const ConvGemmShape& /*shape*/, const void* /*col*/, void* /*im*/) { return false; }
  // y = alpha * op(a) @ x + beta * y, where a.data holds a `rows` x `cols` row-major matrix and
  // op transposes it when a.trans; y is dense. beta == 0 as in gemm.
  virtual void gemv(DType dtype, int64_t rows, int64_t cols, double alpha, const BlasMatrix& a, const BlasVector& x,
                    double beta, void* y) = 0;
  // *out = x . y over n elements, written on the device (no host wait).
  virtual void dot(DType dtype, int64_t n, const BlasVector& x, const BlasVector& y, void* out) = 0;
  // x (n dense elements) *= alpha.
  virtual void scal(DType dtype, int64_t n, double alpha, void* x) = 0;
  // For i < batch: c + i*stride_c = op(a + i*stride_a) @ op(b + i*stride_b) (alpha 1, beta 0),
  // strides in elements (0: the same matrix for every i).
  virtual void gemm_strided_batched(DType dtype, int64_t m, int64_t n, int64_t k, const BlasMatrix& a,
                                    int64_t stride_a, const BlasMatrix& b, int64_t stride_b, void* c, int64_t ldc,
                                    int64_t stride_c, int64_t batch) = 0;
};

}  // namespace tgc::gpu
