// CLBlast behind gpu::BlasLibrary.
#include "backends/opencl/clblast_library.h"

#include <clblast.h>

#include <mutex>

namespace tgc::opencl {

namespace {

using clblast::Layout;
using clblast::StatusCode;
using clblast::Transpose;

Transpose op_of(bool trans) { return trans ? Transpose::kYes : Transpose::kNo; }
size_t sz(int64_t v) { return static_cast<size_t>(v); }

class CLBlast final : public gpu::BlasLibrary {
 public:
  explicit CLBlast(OpenCLDevice& device) : device_(device), queue_(device.queue()) {}

  void gemm(DType dtype, int64_t m, int64_t n, int64_t k, double alpha, const gpu::BlasMatrix& a,
            const gpu::BlasMatrix& b, double beta, void* c, int64_t ldc) override {
    // CLBlast computes beta * c even for beta == 0: c must hold no NaN from an earlier use of
    // its buffer.
    if (beta == 0) device_.fill_zero(c, sz(m * ldc) * dtype_size(dtype));
    typed(dtype, [&]<typename T>(T) {
      const Operand A = at<T>(a.data), B = at<T>(b.data), C = at<T>(c);
      check(clblast::Gemm<T>(Layout::kRowMajor, op_of(a.trans), op_of(b.trans), sz(m), sz(n), sz(k),
                             static_cast<T>(alpha), A.mem, A.offset, sz(a.ld), B.mem, B.offset, sz(b.ld),
                             static_cast<T>(beta), C.mem, C.offset, sz(ldc), &queue_),
            "Gemm");
    });
  }

  void gemv(DType dtype, int64_t rows, int64_t cols, double alpha, const gpu::BlasMatrix& a, const gpu::BlasVector& x,
            double beta, void* y) override {
    if (beta == 0) device_.fill_zero(y, sz(a.trans ? cols : rows) * dtype_size(dtype));  // as in gemm
    typed(dtype, [&]<typename T>(T) {
      const Operand A = at<T>(a.data), X = at<T>(x.data), Y = at<T>(y);
      check(clblast::Gemv<T>(Layout::kRowMajor, op_of(a.trans), sz(rows), sz(cols), static_cast<T>(alpha), A.mem,
                             A.offset, sz(a.ld), X.mem, X.offset, sz(x.inc), static_cast<T>(beta), Y.mem, Y.offset, 1,
                             &queue_),
            "Gemv");
    });
  }

  void dot(DType dtype, int64_t n, const gpu::BlasVector& x, const gpu::BlasVector& y, void* result) override {
    typed(dtype, [&]<typename T>(T) {
      const Operand X = at<T>(x.data), Y = at<T>(y.data), D = at<T>(result);
      check(clblast::Dot<T>(sz(n), D.mem, D.offset, X.mem, X.offset, sz(x.inc), Y.mem, Y.offset, sz(y.inc), &queue_),
            "Dot");
    });
  }

  void scal(DType dtype, int64_t n, double alpha, void* x) override {
    typed(dtype, [&]<typename T>(T) {
      const Operand X = at<T>(x);
      check(clblast::Scal<T>(sz(n), static_cast<T>(alpha), X.mem, X.offset, 1, &queue_), "Scal");
    });
  }

  void gemm_strided_batched(DType dtype, int64_t m, int64_t n, int64_t k, const gpu::BlasMatrix& a, int64_t stride_a,
                            const gpu::BlasMatrix& b, int64_t stride_b, void* c, int64_t ldc, int64_t stride_c,
                            int64_t batch) override {
    typed(dtype, [&]<typename T>(T) {
      const Operand A = at<T>(a.data), B = at<T>(b.data), C = at<T>(c);
      check(clblast::GemmStridedBatched<T>(Layout::kRowMajor, op_of(a.trans), op_of(b.trans), sz(m), sz(n), sz(k),
                                           T{1}, A.mem, A.offset, sz(a.ld), sz(stride_a), B.mem, B.offset, sz(b.ld),
                                           sz(stride_b), T{0}, C.mem, C.offset, sz(ldc), sz(stride_c), sz(batch),
                                           &queue_),
            "GemmStridedBatched");
    });
  }

  bool conv2d(DType dtype, const gpu::ConvGemmShape& s, const void* x, const void* w, void* y) override {
    typed(dtype, [&]<typename T>(T) {
      const Operand X = at<T>(x), W = at<T>(w), Y = at<T>(y);
      check(clblast::Convgemm<T>(clblast::KernelMode::kCrossCorrelation, sz(s.c), sz(s.h), sz(s.w), sz(s.kh), sz(s.kw),
                                 sz(s.pad_h), sz(s.pad_w), sz(s.stride_h), sz(s.stride_w), sz(s.dilation_h),
                                 sz(s.dilation_w), sz(s.o), sz(s.n), X.mem, X.offset, W.mem, W.offset, Y.mem, Y.offset,
                                 &queue_),
            "Convgemm");
    });
    return true;
  }

  bool im2col(DType dtype, const gpu::ConvGemmShape& s, const void* im, void* col) override {
    return columns(dtype, s, im, col, /*back=*/false);
  }
  bool col2im(DType dtype, const gpu::ConvGemmShape& s, const void* col, void* im) override {
    return columns(dtype, s, col, im, /*back=*/true);
  }

 private:
  // A device address as CLBlast takes it: its buffer and its offset in elements.
  struct Operand {
    cl_mem mem;
    size_t offset;
  };
  template <typename T>
  Operand at(const void* ptr) const {
    const BufferRef r = device_.resolve(ptr);
    return {r.mem, r.offset / sizeof(T)};
  }

  // Im2col (from an image to its columns) or, `back`, Col2im: the same arguments in the same
  // order, the source buffer first.
  bool columns(DType dtype, const gpu::ConvGemmShape& s, const void* from, void* to, bool back) {
    typed(dtype, [&]<typename T>(T) {
      const Operand F = at<T>(from), D = at<T>(to);
      const auto call = back ? &clblast::Col2im<T> : &clblast::Im2col<T>;
      check(call(clblast::KernelMode::kCrossCorrelation, sz(s.c), sz(s.h), sz(s.w), sz(s.kh), sz(s.kw), sz(s.pad_h),
                 sz(s.pad_w), sz(s.stride_h), sz(s.stride_w), sz(s.dilation_h), sz(s.dilation_w), F.mem, F.offset, D.mem,
                 D.offset, &queue_, nullptr),
            back ? "Col2im" : "Im2col");
    });
    return true;
  }

  // Runs `call` with float or double, one call at a time (CLBlast takes the queue by pointer).
  template <typename F>
  void typed(DType dtype, F&& call) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (dtype == DType::Float32) call(float{});
    else call(double{});
  }

  void check(StatusCode s, const char* call) const {
    if (s == StatusCode::kSuccess) return;
    const int code = static_cast<int>(s);
    // CLBlast passes OpenCL's own statuses through (-1..-69); below -1000 are its own.
    if (code > -1000) device_.check(code, call);
    throw DeviceError("CLBlast call " + std::string(call) + " failed (CLBlast status " + std::to_string(code) + ")",
                      "", "this is most likely a bug in tgc's CLBlast call; run with sync=true and report it");
  }

  OpenCLDevice& device_;
  cl_command_queue queue_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<gpu::BlasLibrary> make_clblast_library(OpenCLDevice& device) {
  return std::make_unique<CLBlast>(device);
}

}  // namespace tgc::opencl
