// The cuBLAS thunks: row-major tgc tensors handed to column-major cuBLAS as the transposed
// problem (out^T = op(B)^T op(A)^T), with leading dimensions and transpose flags from the
// operands' strides (ops/blas/blas_layout.h); only layouts BLAS cannot describe are copied.
#include "backends/cuda/blas_thunks.h"

#include <cublas_v2.h>

#include <map>
#include <mutex>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/device_copy.h"
#include "backends/cuda/host_fallback.h"
#include "ops/blas/batched_dot.h"
#include "ops/blas/blas_layout.h"
#include "ops/blas/dot.h"
#include "ops/blas/gemm.h"
#include "ops/blas/outer.h"
#include "ops/core/variable.h"
#include "ops/transfer/transfer.h"

namespace tgc::cuda {

void CublasDeleter::operator()(cublasContext* h) const noexcept { cublasDestroy(h); }

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
    DeviceGuard guard(device.ordinal());
    auto ctx = std::make_unique<BlasContext>();
    cublasHandle_t h = nullptr;
    TGC_CUBLAS_CHECK(cublasCreate(&h));
    ctx->handle.reset(h);
    TGC_CUBLAS_CHECK(cublasSetStream(h, device.stream()));
    ctx->workspace = device.allocate(kWorkspaceBytes, device.default_stream());
    TGC_CUBLAS_CHECK(cublasSetWorkspace(h, ctx->workspace, kWorkspaceBytes));
    c = std::move(ctx);
  }
  return *c;
}

bool is_blas_float(DType d) { return d == DType::Float32 || d == DType::Float64; }

// The host value of a 0-d input that is a constant, directly or through a HostToDevice of one
// (the placement pass moves constants to the device for device nodes).
std::optional<double> constant_scalar(const VarPtr& v) {
  const Variable* var = v.get();
  if (var->kind() == Variable::Kind::Result && var->owner() &&
      dynamic_cast<const HostToDevice*>(&var->owner()->op()))
    var = var->owner()->inputs()[0].get();
  if (var->kind() != Variable::Kind::Constant) return std::nullopt;
  const Tensor& t = var->constant_value();
  if (!t.defined() || t.numel() != 1 || !t.on_host()) return std::nullopt;
  return t.at(std::vector<int64_t>(static_cast<size_t>(t.ndim()), 0));
}

// A matrix operand as cuBLAS reads it: its row-major layout (blas_layout.h) and pointer.
struct MatrixArg {
  Tensor keep;  // the tensor the pointer points into (a dense copy when one was needed)
  bool trans = false;
  int64_t ld = 1;
  const void* ptr() const { return keep.raw_data(); }
};

MatrixArg matrix_arg(CudaDevice& device, const Tensor& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  std::optional<BlasMatrixLayout> l = blas_matrix_layout(rows, cols, t.strides()[0], t.strides()[1]);
  Tensor src = t;
  if (!l) {
    src = contiguous_on_device(device, t);
    l = BlasMatrixLayout{false, cols};
  }
  // cuBLAS wants ld >= the stored column-major matrix's rows, and >= 1, even where unused.
  int64_t ld = std::max<int64_t>({l->ld, l->trans ? rows : cols, 1});
  return MatrixArg{src, l->trans, ld};
}

struct VectorArg {
  Tensor keep;
  int64_t inc = 1;
  const void* ptr() const { return keep.raw_data(); }
};

VectorArg vector_arg(CudaDevice& device, const Tensor& t) {
  const int64_t n = t.numel();
  std::optional<int64_t> inc = t.ndim() == 1 ? blas_vector_increment(n, t.strides()[0]) : std::nullopt;
  if (t.ndim() != 1 && t.is_contiguous()) inc = 1;
  if (!inc) return VectorArg{contiguous_on_device(device, t).reshape({n}), 1};
  return VectorArg{t, std::max<int64_t>(*inc, 1)};
}

int to_int(int64_t v) { return static_cast<int>(v); }

cublasOperation_t op_of(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

// One call's handle state: device, math mode (TF32 only when asked, float32 only) and the
// handle's lock.
class BlasCall {
 public:
  BlasCall(CudaDevice& device, DType dtype, bool tf32)
      : guard_(device.ordinal()), ctx_(blas_context(device)), lock_(ctx_.mutex) {
    TGC_CUBLAS_CHECK(cublasSetMathMode(
        h(), tf32 && dtype == DType::Float32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  }
  cublasHandle_t h() const { return ctx_.handle.get(); }

 private:
  DeviceGuard guard_;
  BlasContext& ctx_;
  std::lock_guard<std::mutex> lock_;
};

// out = alpha * out_scale... : out(m x n, C-contiguous) = alpha * a(m x k) @ b(k x n) + beta * out.
void gemm(CudaDevice& device, const BlasCall& call, const Tensor& a, const Tensor& b, const Tensor& out, double alpha,
          double beta) {
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  MatrixArg A = matrix_arg(device, a), B = matrix_arg(device, b);
  const int ldc = to_int(std::max<int64_t>(n, 1));
  if (out.dtype() == DType::Float32) {
    const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
    TGC_CUBLAS_CHECK(cublasSgemm(call.h(), op_of(B.trans), op_of(A.trans), to_int(n), to_int(m), to_int(k), &al,
                                 static_cast<const float*>(B.ptr()), to_int(B.ld), static_cast<const float*>(A.ptr()),
                                 to_int(A.ld), &be, static_cast<float*>(out.raw_data()), ldc));
  } else {
    TGC_CUBLAS_CHECK(cublasDgemm(call.h(), op_of(B.trans), op_of(A.trans), to_int(n), to_int(m), to_int(k), &alpha,
                                 static_cast<const double*>(B.ptr()), to_int(B.ld), static_cast<const double*>(A.ptr()),
                                 to_int(A.ld), &beta, static_cast<double*>(out.raw_data()), ldc));
  }
}

// out(m) = alpha * a(m x k) @ x(k) + beta * out.
void gemv(CudaDevice& device, const BlasCall& call, const Tensor& a, const Tensor& x, const Tensor& out, double alpha,
          double beta) {
  const int64_t m = a.shape()[0], k = a.shape()[1];
  MatrixArg A = matrix_arg(device, a);
  VectorArg X = vector_arg(device, x);
  // Row-major a is the column-major (k x m) matrix a^T: NoTrans data needs OP_T, and the
  // data of a Trans layout is a itself, column-major (m x k): OP_N.
  const cublasOperation_t op = A.trans ? CUBLAS_OP_N : CUBLAS_OP_T;
  const int rows = to_int(A.trans ? m : k), cols = to_int(A.trans ? k : m);
  if (out.dtype() == DType::Float32) {
    const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
    TGC_CUBLAS_CHECK(cublasSgemv(call.h(), op, rows, cols, &al, static_cast<const float*>(A.ptr()), to_int(A.ld),
                                 static_cast<const float*>(X.ptr()), to_int(X.inc), &be,
                                 static_cast<float*>(out.raw_data()), 1));
  } else {
    TGC_CUBLAS_CHECK(cublasDgemv(call.h(), op, rows, cols, &alpha, static_cast<const double*>(A.ptr()), to_int(A.ld),
                                 static_cast<const double*>(X.ptr()), to_int(X.inc), &beta,
                                 static_cast<double*>(out.raw_data()), 1));
  }
}

// out (0-d) = dot(x, y), written by cuBLAS straight into device memory (no host wait).
void dot(CudaDevice& device, const BlasCall& call, const Tensor& x, const Tensor& y, const Tensor& out) {
  VectorArg X = vector_arg(device, x), Y = vector_arg(device, y);
  const int n = to_int(x.numel());
  TGC_CUBLAS_CHECK(cublasSetPointerMode(call.h(), CUBLAS_POINTER_MODE_DEVICE));
  cublasStatus_t st;
  if (out.dtype() == DType::Float32)
    st = cublasSdot(call.h(), n, static_cast<const float*>(X.ptr()), to_int(X.inc), static_cast<const float*>(Y.ptr()),
                    to_int(Y.inc), static_cast<float*>(out.raw_data()));
  else
    st = cublasDdot(call.h(), n, static_cast<const double*>(X.ptr()), to_int(X.inc),
                    static_cast<const double*>(Y.ptr()), to_int(Y.inc), static_cast<double*>(out.raw_data()));
  TGC_CUBLAS_CHECK(cublasSetPointerMode(call.h(), CUBLAS_POINTER_MODE_HOST));
  TGC_CUBLAS_CHECK(st);
}

// out = alpha * out-less product of k == 0: beta * out (BLAS's meaning; zeros when beta == 0).
void scale_output(CudaDevice& device, const BlasCall& call, const Tensor& out, double beta) {
  if (out.numel() == 0) return;
  if (beta == 0) {
    TGC_CUDA_CHECK(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), device.stream()));
    return;
  }
  if (beta == 1) return;
  if (out.dtype() == DType::Float32) {
    const float be = static_cast<float>(beta);
    TGC_CUBLAS_CHECK(cublasSscal(call.h(), to_int(out.numel()), &be, static_cast<float*>(out.raw_data()), 1));
  } else {
    TGC_CUBLAS_CHECK(cublasDscal(call.h(), to_int(out.numel()), &beta, static_cast<double*>(out.raw_data()), 1));
  }
}

// NumPy dot of rank-1/2 device operands into the C-contiguous `out`, with BLAS's alpha/beta.
void matmul(CudaDevice& device, const BlasCall& call, const Tensor& a, const Tensor& b, const Tensor& out,
            double alpha, double beta) {
  if (out.numel() == 0) return;
  const int64_t k = a.shape().back();
  if (k == 0) return scale_output(device, call, out, beta);
  if (a.ndim() == 2 && b.ndim() == 2) return gemm(device, call, a, b, out, alpha, beta);
  if (a.ndim() == 2 && b.ndim() == 1) return gemv(device, call, a, b, out, alpha, beta);
  if (a.ndim() == 1 && b.ndim() == 2) return gemv(device, call, b.transpose(), a, out, alpha, beta);
  TGC_INTERNAL_CHECK(alpha == 1 && beta == 0, "vector.vector products take no alpha/beta");
  dot(device, call, a, b, out);
}

bool fits(const Tensor& t) {
  for (int64_t d : t.shape())
    if (!fits_blas_int(d)) return false;
  return fits_blas_int(t.numel());
}

struct BlasState {
  CudaDevice* device;
  std::shared_ptr<const Op> op;
  bool tf32;
  double alpha = 1, beta = 0;  // Gemm / Gemv

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    for (const Tensor& t : inputs)
      if (!fits(t)) return run_on_host(*op, *device, inputs, outputs);  // beyond cuBLAS's ints
    std::vector<Shape> shapes;
    for (const Tensor& t : inputs) shapes.push_back(t.shape());
    const Shape out_shape = op->infer_shapes(shapes)[0];  // the reference's shape errors
    const DType dtype = inputs[0].dtype();
    if (const auto* g = dynamic_cast<const ScaledMatmul*>(op.get())) return scaled(*g, inputs, outputs, out_shape);
    if (dynamic_cast<const BatchedDot*>(op.get())) return batched(inputs, outputs, out_shape);
    Tensor& out = ensure_output(outputs[0], dtype, out_shape, *device);
    BlasCall call(*device, dtype, tf32);
    if (dynamic_cast<const Outer*>(op.get())) return outer(call, inputs[0], inputs[1], out);
    matmul(*device, call, inputs[0], inputs[1], out, 1, 0);
  }

  void scaled(const ScaledMatmul& g, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
              const Shape& out_shape) const {
    const Tensor a = g.trans_a() ? inputs[ScaledMatmul::kA].transpose() : inputs[ScaledMatmul::kA];
    const Tensor b = g.trans_b() ? inputs[ScaledMatmul::kB].transpose() : inputs[ScaledMatmul::kB];
    const Tensor& c = inputs[ScaledMatmul::kC];
    Shape prod{a.shape()[0]};
    if (b.ndim() == 2) prod.push_back(b.shape()[1]);
    // C broadcasting the product itself (a product dim of 1 against a larger C dim): rare,
    // done by the reference on the host.
    if (prod != out_shape) return run_on_host(*op, *device, inputs, outputs);
    const DType dtype = a.dtype();
    Tensor& out = g.inplace() ? ensure_output_inplace(outputs[0], dtype, out_shape, inputs, {ScaledMatmul::kC}, *device)
                              : ensure_output(outputs[0], dtype, out_shape, *device);
    // BLAS scales what is in out by beta: C goes there first (BLAS reads nothing when beta == 0).
    if (beta != 0 && !out.shares_buffer(c)) copy_strided(*device, c.broadcast_to(out_shape), out);
    BlasCall call(*device, dtype, tf32);
    matmul(*device, call, a, b, out, alpha, beta);
  }

  // (B, m, k) x (B, k, n) as one cublas?gemmStridedBatched: a 2-d operand or a batch of 1 has
  // batch stride 0; a 1-d operand is a row (left) or column (right) matrix.
  void batched(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const Shape& out_shape) const {
    const DType dtype = inputs[0].dtype();
    Tensor& out = ensure_output(outputs[0], dtype, out_shape, *device);
    auto stack = [&](const Tensor& t, bool left) {
      if (t.ndim() == 3) return t;
      if (t.ndim() == 2) return t.view({1, t.shape()[0], t.shape()[1]}, {0, t.strides()[0], t.strides()[1]}, t.offset());
      const int64_t n = t.shape()[0], s = t.strides()[0];
      return left ? t.view({1, 1, n}, {0, n * s, s}, t.offset()) : t.view({1, n, 1}, {0, s, 1}, t.offset());
    };
    Tensor a = stack(inputs[0], true), b = stack(inputs[1], false);
    const int64_t batch = out_shape[0], m = a.shape()[1], k = a.shape()[2], n = b.shape()[2];
    if (out.numel() == 0) return;
    BlasCall call(*device, dtype, tf32);
    if (k == 0) return scale_output(*device, call, out, 0);
    auto batch_stride = [](const Tensor& t) { return t.shape()[0] == 1 ? int64_t{0} : t.strides()[0]; };
    auto ready = [&](Tensor t) {
      if (batch_stride(t) < 0 || !blas_matrix_layout(t.shape()[1], t.shape()[2], t.strides()[1], t.strides()[2]))
        t = contiguous_on_device(*device, t);
      return t;
    };
    a = ready(a);
    b = ready(b);
    auto entry = [](const Tensor& t) { return t.view({t.shape()[1], t.shape()[2]}, {t.strides()[1], t.strides()[2]}, t.offset()); };
    MatrixArg A = matrix_arg(*device, entry(a)), B = matrix_arg(*device, entry(b));
    const long long sa = batch_stride(a), sb = batch_stride(b), sc = m * n;
    const int ldc = to_int(std::max<int64_t>(n, 1));
    if (dtype == DType::Float32) {
      const float al = 1, be = 0;
      TGC_CUBLAS_CHECK(cublasSgemmStridedBatched(
          call.h(), op_of(B.trans), op_of(A.trans), to_int(n), to_int(m), to_int(k), &al,
          static_cast<const float*>(B.ptr()), to_int(B.ld), sb, static_cast<const float*>(A.ptr()), to_int(A.ld), sa,
          &be, static_cast<float*>(out.raw_data()), ldc, sc, to_int(batch)));
    } else {
      const double al = 1, be = 0;
      TGC_CUBLAS_CHECK(cublasDgemmStridedBatched(
          call.h(), op_of(B.trans), op_of(A.trans), to_int(n), to_int(m), to_int(k), &al,
          static_cast<const double*>(B.ptr()), to_int(B.ld), sb, static_cast<const double*>(A.ptr()), to_int(A.ld),
          sa, &be, static_cast<double*>(out.raw_data()), ldc, sc, to_int(batch)));
    }
  }

  // out(m x n) = x y^T as a k = 1 gemm with beta = 0: each element is exactly x[i] * y[j].
  // Column-major out^T (n x m) = op(A) op(B) with A = y stored as a (1 x n) row (lda = its
  // increment, OP_T) and B = x as a (1 x m) row (ldb = its increment).
  void outer(const BlasCall& call, const Tensor& x, const Tensor& y, const Tensor& out) const {
    if (out.numel() == 0) return;
    VectorArg X = vector_arg(*device, x.is_contiguous() ? x.reshape({x.numel()}) : x);
    VectorArg Y = vector_arg(*device, y.is_contiguous() ? y.reshape({y.numel()}) : y);
    const int m = to_int(x.numel()), n = to_int(y.numel());
    if (out.dtype() == DType::Float32) {
      const float one = 1, zero = 0;
      TGC_CUBLAS_CHECK(cublasSgemm(call.h(), CUBLAS_OP_T, CUBLAS_OP_N, n, m, 1, &one, static_cast<const float*>(Y.ptr()),
                                   to_int(Y.inc), static_cast<const float*>(X.ptr()), to_int(X.inc), &zero,
                                   static_cast<float*>(out.raw_data()), std::max(n, 1)));
    } else {
      const double one = 1, zero = 0;
      TGC_CUBLAS_CHECK(cublasDgemm(call.h(), CUBLAS_OP_T, CUBLAS_OP_N, n, m, 1, &one,
                                   static_cast<const double*>(Y.ptr()), to_int(Y.inc),
                                   static_cast<const double*>(X.ptr()), to_int(X.inc), &zero,
                                   static_cast<double*>(out.raw_data()), std::max(n, 1)));
    }
  }
};

}  // namespace

bool blas_runs_on_device(const Node& node) {
  const Op& op = node.op();
  const bool blas = dynamic_cast<const ScaledMatmul*>(&op) || dynamic_cast<const Dot*>(&op) ||
                    dynamic_cast<const BatchedDot*>(&op) || dynamic_cast<const Outer*>(&op);
  if (!blas) return false;
  const int operands = dynamic_cast<const ScaledMatmul*>(&op) ? 3 : 2;
  const DType dtype = node.inputs()[0]->type().dtype;
  if (!is_blas_float(dtype)) return false;
  for (int i = 0; i < operands; ++i)
    if (node.inputs()[i]->type().dtype != dtype) return false;
  if (dynamic_cast<const ScaledMatmul*>(&op))
    return constant_scalar(node.inputs()[ScaledMatmul::kAlpha]) && constant_scalar(node.inputs()[ScaledMatmul::kBeta]);
  return true;
}

ThunkFn make_blas_thunk(CudaDevice& device, const Node& node, const Config& config) {
  TGC_INTERNAL_CHECK(blas_runs_on_device(node), "node " + node.describe() + " has no cuBLAS implementation");
  auto state = std::make_shared<BlasState>(BlasState{&device, node.op_ptr(), config.cuda_tf32});
  if (dynamic_cast<const ScaledMatmul*>(&node.op())) {
    state->alpha = *constant_scalar(node.inputs()[ScaledMatmul::kAlpha]);
    state->beta = *constant_scalar(node.inputs()[ScaledMatmul::kBeta]);
  }
  blas_context(device);  // created now, inside function(), rather than on the first call
  return [state](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { state->run(inputs, outputs); };
}

}  // namespace tgc::cuda
