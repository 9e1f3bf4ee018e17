// cuBLAS behind gpu::BlasLibrary: the handle per device, and each row-major call as the
// column-major call of the transposed problem.
#include "backends/cuda/cublas_library.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>

#include "backends/cuda/cublaslt_gemm.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/toolkit_libraries.h"
#include "runtime/compile_log.h"

namespace tgc::cuda {

void CublasDeleter::operator()(cublasContext* h) const noexcept { cublas_api().Destroy(h); }

namespace {

// cuBLAS's recommended workspace for Hopper; enough for every older architecture.
constexpr size_t kWorkspaceBytes = 32u << 20;

// One handle per device, bound to the device's stream, with its workspace from the pool.
// Calls hold the mutex: math and pointer modes are per handle.
struct BlasContext {
  UniqueCublas handle;
  void* workspace = nullptr;
  std::mutex mutex;
};

BlasContext& blas_context(CudaDevice& device) {
  static std::mutex mutex;
  static auto* contexts = new std::map<int, std::unique_ptr<BlasContext>>();  // process lifetime
  std::lock_guard<std::mutex> lock(mutex);
  auto& c = (*contexts)[device.ordinal()];
  if (!c) {
    const auto t0 = std::chrono::steady_clock::now();
    DeviceGuard guard(device.ordinal());
    auto ctx = std::make_unique<BlasContext>();
    cublasHandle_t h = nullptr;
    TGC_CUBLAS_CHECK(cublas_api().Create(&h));
    ctx->handle.reset(h);
    TGC_CUBLAS_CHECK(cublas_api().SetStream(h, device.stream()));
    ctx->workspace = device.allocate(kWorkspaceBytes, device.default_stream());
    TGC_CUBLAS_CHECK(cublas_api().SetWorkspace(h, ctx->workspace, kWorkspaceBytes));
    c = std::move(ctx);
    // Once per device and process: a warm start in a new process pays it (log_compiles shows it).
    if (CompileLog* log = current_compile_log())
      log->add_library_setup("cuBLAS handle on " + device.name(),
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return *c;
}

int to_int(int64_t v) { return static_cast<int>(v); }

// The cuBLAS type of a half dtype's elements; half calls go through the *Ex routines with
// float32 computation (tensor cores for products) and float32 alpha and beta.
cudaDataType_t half_type(DType d) { return d == DType::Float16 ? CUDA_R_16F : CUDA_R_16BF; }
cublasOperation_t op_of(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }
template <typename T>
const T* in(const void* p) { return static_cast<const T*>(p); }
template <typename T>
T* out(void* p) { return static_cast<T*>(p); }

class Cublas final : public gpu::BlasLibrary {
 public:
  Cublas(CudaDevice& device, const Config& config)
      : device_(device),
        ctx_(blas_context(device)),
        tf32_(config.cuda_tf32),
        lt_(device, config, ctx_.workspace, kWorkspaceBytes) {}

  // Through cuBLASLt (its algorithm chosen per problem: cublaslt_gemm.h); cuBLAS's own gemm
  // where cuBLASLt has no algorithm. Row-major c = op(a) op(b) is column-major
  // c^T = op(b)^T op(a)^T: the operands swap.
  void gemm(DType dtype, int64_t m, int64_t n, int64_t k, double alpha, const gpu::BlasMatrix& a,
            const gpu::BlasMatrix& b, double beta, void* c, int64_t ldc) override {
    {
      std::lock_guard<std::mutex> lock(ctx_.mutex);  // the shared workspace: one call at a time
      if (lt_.run(problem(dtype, m, n, k, a, b, beta, c, ldc, false), alpha, a.data, b.data, beta, c)) return;
    }
    Call call(*this, dtype);
    if (is_half(dtype)) {
      const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
      TGC_CUBLAS_CHECK(cublas_api().GemmEx(call.h(), op_of(b.trans), op_of(a.trans), to_int(n), to_int(m), to_int(k), &al,
                                    b.data, half_type(dtype), to_int(b.ld), a.data, half_type(dtype), to_int(a.ld),
                                    &be, c, half_type(dtype), to_int(ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    } else if (dtype == DType::Float32) {
      const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
      TGC_CUBLAS_CHECK(cublas_api().Sgemm(call.h(), op_of(b.trans), op_of(a.trans), to_int(n), to_int(m), to_int(k), &al,
                                   in<float>(b.data), to_int(b.ld), in<float>(a.data), to_int(a.ld), &be,
                                   out<float>(c), to_int(ldc)));
    } else {
      TGC_CUBLAS_CHECK(cublas_api().Dgemm(call.h(), op_of(b.trans), op_of(a.trans), to_int(n), to_int(m), to_int(k),
                                   &alpha, in<double>(b.data), to_int(b.ld), in<double>(a.data), to_int(a.ld), &beta,
                                   out<double>(c), to_int(ldc)));
    }
  }

  bool gemm_bias(DType dtype, int64_t m, int64_t n, int64_t k, double alpha, const gpu::BlasMatrix& a,
                 const gpu::BlasMatrix& b, const void* bias, void* c, int64_t ldc) override {
    if (alignment(bias) < 16) return false;  // the epilogue reads the bias in vectors
    std::lock_guard<std::mutex> lock(ctx_.mutex);
    return lt_.run(problem(dtype, m, n, k, a, b, 0, c, ldc, true), alpha, a.data, b.data, 0, c, bias);
  }

  // The stored row-major rows x cols matrix is the column-major cols x rows one: its
  // transpose flag flips.
  void gemv(DType dtype, int64_t rows, int64_t cols, double alpha, const gpu::BlasMatrix& a, const gpu::BlasVector& x,
            double beta, void* y) override {
    if (is_half(dtype)) {  // no half gemv in cuBLAS: a product with one column
      // op(a) is the stored rows x cols matrix, or cols x rows where a.trans (dot(v, M) of a
      // row-major M: its first `rows` outputs only were written, from reads past v's end).
      const int64_t m = a.trans ? cols : rows, k = a.trans ? rows : cols;
      gemm(dtype, m, 1, k, alpha, a, gpu::BlasMatrix{x.data, false, x.inc}, beta, y, 1);
      return;
    }
    Call call(*this, dtype);
    const cublasOperation_t op = a.trans ? CUBLAS_OP_N : CUBLAS_OP_T;
    if (dtype == DType::Float32) {
      const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
      TGC_CUBLAS_CHECK(cublas_api().Sgemv(call.h(), op, to_int(cols), to_int(rows), &al, in<float>(a.data), to_int(a.ld),
                                   in<float>(x.data), to_int(x.inc), &be, out<float>(y), 1));
    } else {
      TGC_CUBLAS_CHECK(cublas_api().Dgemv(call.h(), op, to_int(cols), to_int(rows), &alpha, in<double>(a.data),
                                   to_int(a.ld), in<double>(x.data), to_int(x.inc), &beta, out<double>(y), 1));
    }
  }

  // Written by cuBLAS straight into device memory (device pointer mode: no host wait).
  void dot(DType dtype, int64_t n, const gpu::BlasVector& x, const gpu::BlasVector& y, void* result) override {
    Call call(*this, dtype);
    TGC_CUBLAS_CHECK(cublas_api().SetPointerMode(call.h(), CUBLAS_POINTER_MODE_DEVICE));
    cublasStatus_t st;
    if (is_half(dtype))
      st = cublas_api().DotEx(call.h(), to_int(n), x.data, half_type(dtype), to_int(x.inc), y.data, half_type(dtype),
                       to_int(y.inc), result, half_type(dtype), CUDA_R_32F);
    else if (dtype == DType::Float32)
      st = cublas_api().Sdot(call.h(), to_int(n), in<float>(x.data), to_int(x.inc), in<float>(y.data), to_int(y.inc),
                      out<float>(result));
    else
      st = cublas_api().Ddot(call.h(), to_int(n), in<double>(x.data), to_int(x.inc), in<double>(y.data), to_int(y.inc),
                      out<double>(result));
    TGC_CUBLAS_CHECK(cublas_api().SetPointerMode(call.h(), CUBLAS_POINTER_MODE_HOST));
    TGC_CUBLAS_CHECK(st);
  }

  void scal(DType dtype, int64_t n, double alpha, void* x) override {
    Call call(*this, dtype);
    if (is_half(dtype)) {
      const float al = static_cast<float>(alpha);
      TGC_CUBLAS_CHECK(cublas_api().ScalEx(call.h(), to_int(n), &al, CUDA_R_32F, x, half_type(dtype), 1, CUDA_R_32F));
    } else if (dtype == DType::Float32) {
      const float al = static_cast<float>(alpha);
      TGC_CUBLAS_CHECK(cublas_api().Sscal(call.h(), to_int(n), &al, out<float>(x), 1));
    } else {
      TGC_CUBLAS_CHECK(cublas_api().Dscal(call.h(), to_int(n), &alpha, out<double>(x), 1));
    }
  }

  void gemm_strided_batched(DType dtype, int64_t m, int64_t n, int64_t k, const gpu::BlasMatrix& a, int64_t stride_a,
                            const gpu::BlasMatrix& b, int64_t stride_b, void* c, int64_t ldc, int64_t stride_c,
                            int64_t batch) override {
    Call call(*this, dtype);
    if (is_half(dtype)) {
      const float al = 1, be = 0;
      TGC_CUBLAS_CHECK(cublas_api().GemmStridedBatchedEx(call.h(), op_of(b.trans), op_of(a.trans), to_int(n), to_int(m),
                                                  to_int(k), &al, b.data, half_type(dtype), to_int(b.ld), stride_b,
                                                  a.data, half_type(dtype), to_int(a.ld), stride_a, &be, c,
                                                  half_type(dtype), to_int(ldc), stride_c, to_int(batch),
                                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    } else if (dtype == DType::Float32) {
      const float al = 1, be = 0;
      TGC_CUBLAS_CHECK(cublas_api().SgemmStridedBatched(call.h(), op_of(b.trans), op_of(a.trans), to_int(n), to_int(m),
                                                 to_int(k), &al, in<float>(b.data), to_int(b.ld), stride_b,
                                                 in<float>(a.data), to_int(a.ld), stride_a, &be, out<float>(c),
                                                 to_int(ldc), stride_c, to_int(batch)));
    } else {
      const double al = 1, be = 0;
      TGC_CUBLAS_CHECK(cublas_api().DgemmStridedBatched(call.h(), op_of(b.trans), op_of(a.trans), to_int(n), to_int(m),
                                                 to_int(k), &al, in<double>(b.data), to_int(b.ld), stride_b,
                                                 in<double>(a.data), to_int(a.ld), stride_a, &be, out<double>(c),
                                                 to_int(ldc), stride_c, to_int(batch)));
    }
  }

 private:
  static int alignment(const void* p) {
    const auto v = reinterpret_cast<uintptr_t>(p);
    return v == 0 ? 256 : static_cast<int>(std::min<uintptr_t>(v & (~v + 1), 256));
  }
  static LtProblem problem(DType dtype, int64_t m, int64_t n, int64_t k, const gpu::BlasMatrix& a,
                           const gpu::BlasMatrix& b, double beta, const void* c, int64_t ldc, bool bias) {
    LtProblem p;
    p.dtype = dtype;
    p.m = m;
    p.n = n;
    p.k = k;
    p.trans_a = a.trans;
    p.trans_b = b.trans;
    p.lda = a.ld;
    p.ldb = b.ld;
    p.ldc = ldc;
    p.beta_zero = beta == 0;
    p.bias = bias;
    p.align_a = alignment(a.data);
    p.align_b = alignment(b.data);
    p.align_c = alignment(c);
    return p;
  }

  // One call's handle state: the device, the handle's lock and the math mode (TF32 only when
  // asked, float32 only).
  class Call {
   public:
    Call(Cublas& lib, DType dtype) : guard_(lib.device_.ordinal()), ctx_(lib.ctx_), lock_(ctx_.mutex) {
      TGC_CUBLAS_CHECK(cublas_api().SetMathMode(
          h(), lib.tf32_ && dtype == DType::Float32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    }
    cublasHandle_t h() const { return ctx_.handle.get(); }

   private:
    DeviceGuard guard_;
    BlasContext& ctx_;
    std::lock_guard<std::mutex> lock_;
  };

  CudaDevice& device_;
  BlasContext& ctx_;
  bool tf32_;
  LtGemm lt_;
};

}  // namespace

std::unique_ptr<gpu::BlasLibrary> make_cublas_library(CudaDevice& device, const Config& config) {
  return std::make_unique<Cublas>(device, config);
}

}  // namespace tgc::cuda
