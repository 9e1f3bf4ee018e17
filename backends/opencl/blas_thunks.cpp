// The CLBlast thunks: tgc's row-major tensors handed to CLBlast's row-major API as
// (buffer, element offset, leading dimension, transpose flag) from the operands' strides
// (ops/blas/blas_layout.h); only layouts BLAS cannot describe are copied first.
#include "backends/opencl/blas_thunks.h"

#include <clblast.h>

#include <mutex>

#include "backends/opencl/cl_error.h"
#include "backends/opencl/device_copy.h"
#include "backends/opencl/host_fallback.h"
#include "ops/blas/batched_dot.h"
#include "ops/blas/blas_layout.h"
#include "ops/blas/dot.h"
#include "ops/blas/gemm.h"
#include "ops/blas/outer.h"
#include "ops/core/variable.h"
#include "ops/transfer/transfer.h"

namespace tgc::opencl {

namespace {

using clblast::Layout;
using clblast::StatusCode;
using clblast::Transpose;

void check_blast(StatusCode s, const char* call, const OpenCLDevice& device) {
  if (s == StatusCode::kSuccess) return;
  const int code = static_cast<int>(s);
  // CLBlast passes OpenCL's own statuses through (-1..-69); below -1000 are its own.
  if (code > -1000) device.check(code, call);
  throw DeviceError("CLBlast call " + std::string(call) + " failed (CLBlast status " + std::to_string(code) + ")", "",
                    "this is most likely a bug in tgc's CLBlast call; run with sync=true and report it");
}

bool is_blas_float(DType d) { return d == DType::Float32 || d == DType::Float64; }

// The host value of a 0-d input that is a constant, directly or through a HostToDevice of one.
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

// An operand as CLBlast reads it: buffer, offset in elements, and (matrices) layout.
struct Operand {
  Tensor keep;  // the tensor the buffer holds (a dense copy when one was needed)
  cl_mem mem = nullptr;
  size_t offset = 0;
  bool trans = false;
  size_t ld = 1;   // matrices
  size_t inc = 1;  // vectors
};

Operand locate(OpenCLDevice& device, Tensor t) {
  Operand o;
  const BufferRef r = device.resolve(t.raw_data());
  o.keep = std::move(t);
  o.mem = r.mem;
  o.offset = r.offset / dtype_size(o.keep.dtype());
  return o;
}

Operand matrix_arg(OpenCLDevice& device, const Tensor& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  std::optional<BlasMatrixLayout> l = blas_matrix_layout(rows, cols, t.strides()[0], t.strides()[1]);
  Tensor src = t;
  if (!l) {
    src = contiguous_on_device(device, t);
    l = BlasMatrixLayout{false, cols};
  }
  Operand o = locate(device, src);
  o.trans = l->trans;
  // The stored row-major matrix has `cols` columns (rows when transposed): ld covers them.
  o.ld = static_cast<size_t>(std::max<int64_t>({l->ld, l->trans ? rows : cols, 1}));
  return o;
}

Operand vector_arg(OpenCLDevice& device, const Tensor& t) {
  const int64_t n = t.numel();
  std::optional<int64_t> inc = t.ndim() == 1 ? blas_vector_increment(n, t.strides()[0]) : std::nullopt;
  if (t.ndim() != 1 && t.is_contiguous()) inc = 1;
  if (!inc) return locate(device, contiguous_on_device(device, t).reshape({n}));
  Operand o = locate(device, t);
  o.inc = static_cast<size_t>(std::max<int64_t>(*inc, 1));
  return o;
}

Transpose op_of(bool trans) { return trans ? Transpose::kYes : Transpose::kNo; }

struct BlasState {
  OpenCLDevice* device;
  std::shared_ptr<const Op> op;
  double alpha = 1, beta = 0;  // Gemm / Gemv
  cl_command_queue queue_handle = nullptr;  // CLBlast takes the queue by pointer
  std::mutex mutex;                         // one call at a time per node

  cl_command_queue* queue() { return &queue_handle; }

  template <typename T>
  void gemm(const Tensor& a, const Tensor& b, const Tensor& out, double al, double be) {
    const size_t m = static_cast<size_t>(a.shape()[0]), k = static_cast<size_t>(a.shape()[1]),
                 n = static_cast<size_t>(b.shape()[1]);
    Operand A = matrix_arg(*device, a), B = matrix_arg(*device, b), C = locate(*device, out);
    check_blast(clblast::Gemm<T>(Layout::kRowMajor, op_of(A.trans), op_of(B.trans), m, n, k, static_cast<T>(al), A.mem,
                                 A.offset, A.ld, B.mem, B.offset, B.ld, static_cast<T>(be), C.mem, C.offset,
                                 std::max<size_t>(n, 1), queue()),
                "Gemm", *device);
  }

  template <typename T>
  void gemv(const Tensor& a, const Tensor& x, const Tensor& out, double al, double be) {
    Operand A = matrix_arg(*device, a), X = vector_arg(*device, x), Y = locate(*device, out);
    // The stored row-major matrix: a itself (m x k), or its transpose's data (k x m).
    const size_t rows = static_cast<size_t>(A.trans ? a.shape()[1] : a.shape()[0]);
    const size_t cols = static_cast<size_t>(A.trans ? a.shape()[0] : a.shape()[1]);
    check_blast(clblast::Gemv<T>(Layout::kRowMajor, op_of(A.trans), rows, cols, static_cast<T>(al), A.mem, A.offset,
                                 A.ld, X.mem, X.offset, X.inc, static_cast<T>(be), Y.mem, Y.offset, 1, queue()),
                "Gemv", *device);
  }

  template <typename T>
  void dot(const Tensor& x, const Tensor& y, const Tensor& out) {
    Operand X = vector_arg(*device, x), Y = vector_arg(*device, y), D = locate(*device, out);
    check_blast(clblast::Dot<T>(static_cast<size_t>(x.numel()), D.mem, D.offset, X.mem, X.offset, X.inc, Y.mem,
                                Y.offset, Y.inc, queue()),
                "Dot", *device);
  }

  // out = beta * out for an empty product (k == 0): BLAS's meaning, zeros when beta == 0.
  template <typename T>
  void scale_output(const Tensor& out, double be) {
    if (out.numel() == 0 || be == 1) return;
    Operand O = locate(*device, out);
    if (be == 0) {
      const T zero = 0;
      device->check(clEnqueueFillBuffer(device->queue(), O.mem, &zero, sizeof(T), O.offset * sizeof(T), out.nbytes(),
                                        0, nullptr, nullptr),
                    "clEnqueueFillBuffer");
      return;
    }
    check_blast(clblast::Scal<T>(static_cast<size_t>(out.numel()), static_cast<T>(be), O.mem, O.offset, 1, queue()),
                "Scal", *device);
  }

  // NumPy dot of rank-1/2 device operands into the C-contiguous `out`, with BLAS's alpha/beta.
  template <typename T>
  void matmul(const Tensor& a, const Tensor& b, const Tensor& out, double al, double be) {
    if (out.numel() == 0) return;
    if (a.shape().back() == 0) return scale_output<T>(out, be);
    // CLBlast computes beta * out even for beta == 0 (its gemv kernels do): out must hold no
    // NaN from an earlier use of its buffer.
    if (be == 0 && (a.ndim() == 2 || b.ndim() == 2)) scale_output<T>(out, 0);
    if (a.ndim() == 2 && b.ndim() == 2) return gemm<T>(a, b, out, al, be);
    if (a.ndim() == 2 && b.ndim() == 1) return gemv<T>(a, b, out, al, be);
    if (a.ndim() == 1 && b.ndim() == 2) return gemv<T>(b.transpose(), a, out, al, be);
    TGC_INTERNAL_CHECK(al == 1 && be == 0, "vector.vector products take no alpha/beta");
    dot<T>(a, b, out);
  }

  // out(m x n) = x y^T as a k = 1 gemm with beta = 0: each element is exactly x[i] * y[j].
  template <typename T>
  void outer(const Tensor& x, const Tensor& y, const Tensor& out) {
    if (out.numel() == 0) return;
    const int64_t m = x.numel(), n = y.numel();
    gemm<T>(contiguous_on_device(*device, x).reshape({m, 1}), contiguous_on_device(*device, y).reshape({1, n}), out,
            1, 0);
  }

  // (B, m, k) x (B, k, n) as one GemmStridedBatched: a 2-d operand or a batch of 1 has batch
  // stride 0; a 1-d operand is a row (left) or column (right) matrix.
  template <typename T>
  void batched(const Tensor& a_in, const Tensor& b_in, const Tensor& out) {
    auto stack = [&](const Tensor& t, bool left) {
      if (t.ndim() == 3) return t;
      if (t.ndim() == 2) return t.view({1, t.shape()[0], t.shape()[1]}, {0, t.strides()[0], t.strides()[1]}, t.offset());
      const int64_t n = t.shape()[0], s = t.strides()[0];
      return left ? t.view({1, 1, n}, {0, n * s, s}, t.offset()) : t.view({1, n, 1}, {0, s, 1}, t.offset());
    };
    Tensor a = stack(a_in, true), b = stack(b_in, false);
    const int64_t batch = out.shape()[0], m = a.shape()[1], k = a.shape()[2], n = b.shape()[2];
    if (out.numel() == 0) return;
    if (k == 0) return scale_output<T>(out, 0);
    auto batch_stride = [](const Tensor& t) { return t.shape()[0] == 1 ? int64_t{0} : t.strides()[0]; };
    auto ready = [&](Tensor t) {
      if (batch_stride(t) < 0 || !blas_matrix_layout(t.shape()[1], t.shape()[2], t.strides()[1], t.strides()[2]))
        t = contiguous_on_device(*device, t);
      return t;
    };
    a = ready(a);
    b = ready(b);
    auto entry = [](const Tensor& t) { return t.view({t.shape()[1], t.shape()[2]}, {t.strides()[1], t.strides()[2]}, t.offset()); };
    Operand A = matrix_arg(*device, entry(a)), B = matrix_arg(*device, entry(b)), C = locate(*device, out);
    check_blast(clblast::GemmStridedBatched<T>(
                    Layout::kRowMajor, op_of(A.trans), op_of(B.trans), static_cast<size_t>(m), static_cast<size_t>(n),
                    static_cast<size_t>(k), T{1}, A.mem, A.offset, A.ld, static_cast<size_t>(batch_stride(a)), B.mem,
                    B.offset, B.ld, static_cast<size_t>(batch_stride(b)), T{0}, C.mem, C.offset,
                    static_cast<size_t>(std::max<int64_t>(n, 1)), static_cast<size_t>(m * n),
                    static_cast<size_t>(batch), queue()),
                "GemmStridedBatched", *device);
  }

  template <typename T>
  void run_typed(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const Shape& out_shape) {
    const DType dtype = inputs[0].dtype();
    if (const auto* g = dynamic_cast<const ScaledMatmul*>(op.get())) {
      const Tensor a = g->trans_a() ? inputs[ScaledMatmul::kA].transpose() : inputs[ScaledMatmul::kA];
      const Tensor b = g->trans_b() ? inputs[ScaledMatmul::kB].transpose() : inputs[ScaledMatmul::kB];
      const Tensor& c = inputs[ScaledMatmul::kC];
      Shape prod{a.shape()[0]};
      if (b.ndim() == 2) prod.push_back(b.shape()[1]);
      // C broadcasting the product itself: rare, done by the reference on the host.
      if (prod != out_shape) return run_on_host(*op, *device, inputs, outputs);
      Tensor& out = g->inplace()
                        ? ensure_output_inplace(outputs[0], dtype, out_shape, inputs, {ScaledMatmul::kC}, *device)
                        : ensure_output(outputs[0], dtype, out_shape, *device);
      // BLAS scales what is in out by beta: C goes there first.
      if (beta != 0 && !out.shares_buffer(c)) copy_strided(*device, c.broadcast_to(out_shape), out);
      return matmul<T>(a, b, out, alpha, beta);
    }
    Tensor& out = ensure_output(outputs[0], dtype, out_shape, *device);
    if (dynamic_cast<const BatchedDot*>(op.get())) return batched<T>(inputs[0], inputs[1], out);
    if (dynamic_cast<const Outer*>(op.get())) return outer<T>(inputs[0], inputs[1], out);
    matmul<T>(inputs[0], inputs[1], out, 1, 0);
  }

  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    for (const Tensor& t : inputs) {
      bool fits = fits_blas_int(t.numel());
      for (int64_t d : t.shape()) fits = fits && fits_blas_int(d);
      if (!fits) return run_on_host(*op, *device, inputs, outputs);
    }
    std::vector<Shape> shapes;
    for (const Tensor& t : inputs) shapes.push_back(t.shape());
    const Shape out_shape = op->infer_shapes(shapes)[0];  // the reference's shape errors
    std::lock_guard<std::mutex> lock(mutex);
    if (inputs[0].dtype() == DType::Float32) return run_typed<float>(inputs, outputs, out_shape);
    run_typed<double>(inputs, outputs, out_shape);
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

ThunkFn make_blas_thunk(OpenCLDevice& device, const Node& node, const Config&) {
  TGC_INTERNAL_CHECK(blas_runs_on_device(node), "node " + node.describe() + " has no CLBlast implementation");
  auto state = std::make_shared<BlasState>();
  state->device = &device;
  state->op = node.op_ptr();
  state->queue_handle = device.queue();
  if (dynamic_cast<const ScaledMatmul*>(&node.op())) {
    state->alpha = *constant_scalar(node.inputs()[ScaledMatmul::kAlpha]);
    state->beta = *constant_scalar(node.inputs()[ScaledMatmul::kBeta]);
  }
  return [state](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) { state->run(inputs, outputs); };
}

}  // namespace tgc::opencl
