// The BLAS thunks: tgc's row-major tensors handed to row-major BLAS calls with leading
// dimensions and transpose flags from the operands' strides (ops/blas/blas_layout.h); only
// layouts BLAS cannot describe are copied (on the device) first.
#include "backends/gpu/blas_thunk.h"

#include <algorithm>
#include <optional>

#include "backends/gpu/device_copy.h"
#include "backends/gpu/host_fallback.h"
#include "ops/blas/batched_dot.h"
#include "ops/blas/blas_layout.h"
#include "ops/blas/dot.h"
#include "ops/blas/gemm.h"
#include "ops/blas/outer.h"
#include "ops/core/variable.h"
#include "ops/transfer/transfer.h"

namespace tgc::gpu {

namespace {

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

// An operand as BLAS reads it, with the tensor its pointer points into (a dense copy when
// one was needed) kept alive until the call is enqueued.
struct MatrixArg {
  Tensor keep;
  BlasMatrix m;
};
struct VectorArg {
  Tensor keep;
  BlasVector v;
};

MatrixArg matrix_arg(GpuDevice& device, const Tensor& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  std::optional<BlasMatrixLayout> l = blas_matrix_layout(rows, cols, t.strides()[0], t.strides()[1]);
  Tensor src = t;
  if (!l) {
    src = contiguous_on_device(device, t);
    l = BlasMatrixLayout{false, cols};
  }
  // BLAS wants ld >= the stored matrix's row length, and >= 1, even where unused.
  const int64_t ld = std::max<int64_t>({l->ld, l->trans ? rows : cols, 1});
  return MatrixArg{src, BlasMatrix{src.raw_data(), l->trans, ld}};
}

VectorArg vector_arg(GpuDevice& device, const Tensor& t) {
  const int64_t n = t.numel();
  std::optional<int64_t> inc = t.ndim() == 1 ? blas_vector_increment(n, t.strides()[0]) : std::nullopt;
  if (t.ndim() != 1 && t.is_contiguous()) inc = 1;
  Tensor src = t;
  if (!inc) {
    src = contiguous_on_device(device, t).reshape({n});
    inc = 1;
  }
  return VectorArg{src, BlasVector{src.raw_data(), std::max<int64_t>(*inc, 1)}};
}

bool fits(const Tensor& t) {
  for (int64_t d : t.shape())
    if (!fits_blas_int(d)) return false;
  return fits_blas_int(t.numel());
}

struct BlasState {
  GpuDevice* device;
  std::shared_ptr<const Op> op;
  std::unique_ptr<BlasLibrary> lib;
  double alpha = 1, beta = 0;  // Gemm / Gemv

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    for (const Tensor& t : inputs)
      if (!fits(t)) return run_on_host(*op, *device, inputs, outputs);  // beyond BLAS's ints
    std::vector<Shape> shapes;
    for (const Tensor& t : inputs) shapes.push_back(t.shape());
    const Shape out_shape = op->infer_shapes(shapes)[0];  // the reference's shape errors
    if (const auto* g = dynamic_cast<const ScaledMatmul*>(op.get())) return scaled(*g, inputs, outputs, out_shape);
    Tensor& out = ensure_output(outputs[0], inputs[0].dtype(), out_shape, *device);
    if (dynamic_cast<const BatchedDot*>(op.get())) return batched(inputs[0], inputs[1], out);
    if (dynamic_cast<const Outer*>(op.get())) return outer(inputs[0], inputs[1], out);
    matmul(inputs[0], inputs[1], out, 1, 0);
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
    // A bias row (C of n dense elements, beta 1: x.W + b) is added in the product's own kernel
    // where the library can; otherwise BLAS scales what is in out by beta, so C goes there first
    // (BLAS reads nothing when beta == 0).
    if (beta == 1 && !g.inplace() && gemm_bias(a, b, c, out, alpha)) return;
    if (beta != 0 && !out.shares_buffer(c)) copy_strided(*device, c.broadcast_to(out_shape), out);
    matmul(a, b, out, alpha, beta);
  }

  // out (m x n) = al * a @ b + c for a bias row c (shape (n,) or (1, n), dense), through the
  // library's epilogue; false when c is not such a row or the library has no epilogue.
  bool gemm_bias(const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& out, double al) const {
    if (a.ndim() != 2 || b.ndim() != 2 || out.numel() == 0 || a.shape()[1] == 0) return false;
    const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
    const bool row = (c.ndim() == 1 && c.shape()[0] == n && (n == 1 || c.strides()[0] == 1)) ||
                     (c.ndim() == 2 && c.shape()[0] == 1 && c.shape()[1] == n && (n == 1 || c.strides()[1] == 1));
    if (!row || c.dtype() != out.dtype() || out.shares_buffer(c)) return false;
    // Operands BLAS can read in place only: a copy made here would be made again by the plain
    // path if the library then declined the epilogue.
    for (const Tensor* t : {&a, &b})
      if (!blas_matrix_layout(t->shape()[0], t->shape()[1], t->strides()[0], t->strides()[1])) return false;
    MatrixArg A = matrix_arg(*device, a), B = matrix_arg(*device, b);
    return lib->gemm_bias(out.dtype(), m, n, k, al, A.m, B.m, c.raw_data(), out.raw_data(), std::max<int64_t>(n, 1));
  }

  // out = beta * out: the product of an empty inner dimension (BLAS's meaning; zeros when
  // beta == 0).
  void scale_output(const Tensor& out, double be) const {
    if (out.numel() == 0 || be == 1) return;
    if (be == 0) return device->fill_zero(out.raw_data(), out.nbytes());
    lib->scal(out.dtype(), out.numel(), be, out.raw_data());
  }

  // NumPy dot of rank-1/2 device operands into the C-contiguous `out`, with BLAS's alpha/beta.
  void matmul(const Tensor& a, const Tensor& b, const Tensor& out, double al, double be) const {
    if (out.numel() == 0) return;
    if (a.shape().back() == 0) return scale_output(out, be);
    if (a.ndim() == 2 && b.ndim() == 2) return gemm(a, b, out, al, be);
    if (a.ndim() == 2 && b.ndim() == 1) return gemv(a, b, out, al, be);
    if (a.ndim() == 1 && b.ndim() == 2) return gemv(b.transpose(), a, out, al, be);
    TGC_INTERNAL_CHECK(al == 1 && be == 0, "vector.vector products take no alpha/beta");
    VectorArg X = vector_arg(*device, a), Y = vector_arg(*device, b);
    lib->dot(out.dtype(), a.numel(), X.v, Y.v, out.raw_data());
  }

  // out(m x n, C-contiguous) = al * a(m x k) @ b(k x n) + be * out.
  void gemm(const Tensor& a, const Tensor& b, const Tensor& out, double al, double be) const {
    const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
    MatrixArg A = matrix_arg(*device, a), B = matrix_arg(*device, b);
    lib->gemm(out.dtype(), m, n, k, al, A.m, B.m, be, out.raw_data(), std::max<int64_t>(n, 1));
  }

  // out(m) = al * a(m x k) @ x(k) + be * out.
  void gemv(const Tensor& a, const Tensor& x, const Tensor& out, double al, double be) const {
    MatrixArg A = matrix_arg(*device, a);
    VectorArg X = vector_arg(*device, x);
    // The stored row-major matrix: a itself (m x k), or its transpose's data (k x m).
    const int64_t rows = A.m.trans ? a.shape()[1] : a.shape()[0];
    const int64_t cols = A.m.trans ? a.shape()[0] : a.shape()[1];
    lib->gemv(out.dtype(), rows, cols, al, A.m, X.v, be, out.raw_data());
  }

  // (B, m, k) x (B, k, n) as one strided-batched gemm: a 2-d operand or a batch of 1 has
  // batch stride 0; a 1-d operand is a row (left) or column (right) matrix.
  void batched(const Tensor& a_in, const Tensor& b_in, const Tensor& out) const {
    auto stack = [](const Tensor& t, bool left) {
      if (t.ndim() == 3) return t;
      if (t.ndim() == 2) return t.view({1, t.shape()[0], t.shape()[1]}, {0, t.strides()[0], t.strides()[1]}, t.offset());
      const int64_t n = t.shape()[0], s = t.strides()[0];
      return left ? t.view({1, 1, n}, {0, n * s, s}, t.offset()) : t.view({1, n, 1}, {0, s, 1}, t.offset());
    };
    Tensor a = stack(a_in, true), b = stack(b_in, false);
    const int64_t batch = out.shape()[0], m = a.shape()[1], k = a.shape()[2], n = b.shape()[2];
    if (out.numel() == 0) return;
    if (k == 0) return scale_output(out, 0);
    auto batch_stride = [](const Tensor& t) { return t.shape()[0] == 1 ? int64_t{0} : t.strides()[0]; };
    auto ready = [&](Tensor t) {
      if (batch_stride(t) < 0 || !blas_matrix_layout(t.shape()[1], t.shape()[2], t.strides()[1], t.strides()[2]))
        t = contiguous_on_device(*device, t);
      return t;
    };
    a = ready(a);
    b = ready(b);
    auto entry = [](const Tensor& t) {
      return t.view({t.shape()[1], t.shape()[2]}, {t.strides()[1], t.strides()[2]}, t.offset());
    };
    MatrixArg A = matrix_arg(*device, entry(a)), B = matrix_arg(*device, entry(b));
    lib->gemm_strided_batched(out.dtype(), m, n, k, A.m, batch_stride(a), B.m, batch_stride(b), out.raw_data(),
                              std::max<int64_t>(n, 1), m * n, batch);
  }

  // out(m x n) = x y^T as a k = 1 gemm with beta = 0: each element is exactly x[i] * y[j].
  // x is an (m x 1) matrix whose rows are its increment apart; y, read transposed, the
  // (n x 1) matrix whose rows are its increment apart: no copy for any positive stride.
  void outer(const Tensor& x, const Tensor& y, const Tensor& out) const {
    if (out.numel() == 0) return;
    VectorArg X = vector_arg(*device, x.is_contiguous() ? x.reshape({x.numel()}) : x);
    VectorArg Y = vector_arg(*device, y.is_contiguous() ? y.reshape({y.numel()}) : y);
    const int64_t m = x.numel(), n = y.numel();
    lib->gemm(out.dtype(), m, n, 1, 1, BlasMatrix{X.v.data, false, X.v.inc}, BlasMatrix{Y.v.data, true, Y.v.inc}, 0,
              out.raw_data(), std::max<int64_t>(n, 1));
  }
};

}  // namespace

bool blas_covers(const Node& node) {
  const Op& op = node.op();
  return dynamic_cast<const ScaledMatmul*>(&op) || dynamic_cast<const Dot*>(&op) ||
         dynamic_cast<const BatchedDot*>(&op) || dynamic_cast<const Outer*>(&op);
}

std::string blas_declines(const Node& node) {
  const bool scaled = dynamic_cast<const ScaledMatmul*>(&node.op()) != nullptr;
  const int operands = scaled ? 3 : 2;
  const DType dtype = node.inputs()[0]->type().dtype;
  // Half operands too: a BLAS rule runs them only where it says it takes half tensors
  // (DeviceOpRule::half_types: cuBLAS yes; on OpenCL the half_products pass gives CLBlast
  // float32 copies).
  if (!is_float(dtype))
    return "BLAS on the device takes float operands, not " + std::string(dtype_name(dtype));
  for (int i = 0; i < operands; ++i)
    if (node.inputs()[i]->type().dtype != dtype) return "BLAS on the device takes operands of one dtype";
  if (scaled && !(constant_scalar(node.inputs()[ScaledMatmul::kAlpha]) &&
                  constant_scalar(node.inputs()[ScaledMatmul::kBeta])))
    return "alpha and beta of a device Gemm/Gemv must be constants";
  return "";
}

ThunkFn make_blas_thunk(GpuDevice& device, const Node& node, std::unique_ptr<BlasLibrary> library) {
  TGC_INTERNAL_CHECK(blas_covers(node) && blas_declines(node).empty(),
                     "node " + node.describe() + " has no BLAS implementation on the device");
  auto state = std::make_shared<BlasState>();
  state->device = &device;
  state->op = node.op_ptr();
  state->lib = std::move(library);
  if (dynamic_cast<const ScaledMatmul*>(&node.op())) {
    state->alpha = *constant_scalar(node.inputs()[ScaledMatmul::kAlpha]);
    state->beta = *constant_scalar(node.inputs()[ScaledMatmul::kBeta]);
  }
  return [state](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { state->run(inputs, outputs); };
}

}  // namespace tgc::gpu
