// User CUDA source on a real GPU (label gpu): the tutorial's PyCUDADoubleOp doubles every
// element of contiguous and strided inputs, inside a larger graph, with shapes changing
// between calls.
#include "backends/cuda/user_kernel_thunk.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cuda_test_util.h"

namespace tgc {
namespace {

const char* kDoubleSource = R"(
extern "C" __global__ void double_it(const float* x, float* z, long long n, int ndim,
                                     long long d0, long long d1, long long d2, long long d3,
                                     long long s0, long long s1, long long s2, long long s3) {
  const long long dims[4] = {d0, d1, d2, d3};
  const long long strides[4] = {s0, s1, s2, s3};
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    long long rem = i, off = 0;
    for (int d = ndim - 1; d >= 0; --d) { off += (rem % dims[d]) * strides[d]; rem /= dims[d]; }
    z[i] = 2.0f * x[off];
  }
}
)";

CudaKernel double_op() {
  CudaKernelSpec spec;
  spec.name = "PyCUDADoubleOp";
  spec.source = kDoubleSource;
  spec.entry = "double_it";
  spec.output_types = [](const std::vector<Type>& in) { return std::vector<Type>{in.at(0)}; };
  spec.output_shapes = [](const std::vector<Shape>& in) { return std::vector<Shape>{in.at(0)}; };
  spec.launch = [](const std::vector<Tensor>& in, const std::vector<Tensor>&) {
    const Tensor& x = in[0];
    CudaLaunchConfig c;
    c.block = {128, 1, 1};
    c.grid = {static_cast<uint32_t>(std::min<int64_t>((x.numel() + 127) / 128, 4096)), 1, 1};
    c.args = {CudaKernelArg::input(0), CudaKernelArg::output(0), CudaKernelArg::int64(x.numel()),
              CudaKernelArg::int32(x.ndim())};
    for (int d = 0; d < 4; ++d) c.args.push_back(CudaKernelArg::int64(d < x.ndim() ? x.shape()[d] : 1));
    for (int d = 0; d < 4; ++d) c.args.push_back(CudaKernelArg::int64(d < x.ndim() ? x.strides()[d] : 0));
    return c;
  };
  return CudaKernel(std::move(spec));
}

TEST(CudaUserKernel, PyCudaDoubleOpOnContiguousAndStridedInputs) {
  TGC_REQUIRE_CUDA();
  CudaKernel op = double_op();
  Var x = matrix("x", DType::Float32);
  Function f = function({x}, {op({x})[0], op({x.T()})[0], op({x.dimshuffle({1, -1, 0})})[0] + 1.0}, {},
                        cuda_test::on("cuda"));
  for (Shape shape : {Shape{3, 4}, Shape{513, 129}, Shape{0, 5}}) {
    RandomState rng(3);
    Tensor a = rng.rand(shape).astype(DType::Float32);
    std::vector<Tensor> r = f(a);
    Tensor twice = Tensor::from_vector(a.to_vector<float>(), shape);
    std::vector<float> t = twice.to_vector<float>();
    for (float& v : t) v *= 2;
    Tensor want = Tensor::from_vector(t, shape);
    EXPECT_TRUE(tensors_equal(r[0], want)) << shape_str(shape) << ": " << cuda_test::diff_report(r[0], want);
    EXPECT_TRUE(tensors_equal(r[1], want.transpose().contiguous())) << shape_str(shape) << " transposed";
    Tensor third = want.transpose().contiguous().reshape({shape[1], 1, shape[0]});
    std::vector<float> p = third.to_vector<float>();
    for (float& v : p) v += 1;
    EXPECT_TRUE(tensors_equal(r[2], Tensor::from_vector(p, third.shape()))) << shape_str(shape) << " dimshuffled";
  }
}

}  // namespace
}  // namespace tgc
