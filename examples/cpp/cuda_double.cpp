// The tutorial's PyCUDADoubleOp in C++: an op from raw CUDA source that doubles every
// element of a float32 tensor of any rank up to 4 and any strides (here a transposed
// matrix), used in a graph like any other op. Needs device=cuda; elsewhere it says why.
#include <algorithm>
#include <cstdio>
#include <string>

#include <tgc/tgc.h>

namespace {

const char* kSource = R"(
extern "C" __global__ void double_it(const float* x, float* z, long long n, int ndim,
                                     long long d0, long long d1, long long d2, long long d3,
                                     long long s0, long long s1, long long s2, long long s3) {
  const long long dims[4] = {d0, d1, d2, d3};
  const long long strides[4] = {s0, s1, s2, s3};
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    long long rem = i, off = 0;  // i is the C-order index of the output; off the input's element
    for (int d = ndim - 1; d >= 0; --d) {
      off += (rem % dims[d]) * strides[d];
      rem /= dims[d];
    }
    z[i] = 2.0f * x[off];
  }
}
)";

tgc::CudaKernel pycuda_double_op() {
  using namespace tgc;
  CudaKernelSpec spec;
  spec.name = "PyCUDADoubleOp";
  spec.source = kSource;
  spec.entry = "double_it";
  spec.output_types = [](const std::vector<Type>& in) {
    if (in.size() != 1 || in[0].dtype != DType::Float32 || in[0].ndim() > 4)
      throw TypeError("PyCUDADoubleOp takes one float32 tensor of rank <= 4", "", "cast with astype(float32)");
    return std::vector<Type>{in[0]};
  };
  spec.output_shapes = [](const std::vector<Shape>& in) { return std::vector<Shape>{in[0]}; };
  spec.launch = [](const std::vector<Tensor>& in, const std::vector<Tensor>& out) {
    const Tensor& x = in[0];
    const int64_t n = x.numel();
    CudaLaunchConfig c;
    c.block = {256, 1, 1};
    c.grid = {static_cast<uint32_t>(std::min<int64_t>((n + 255) / 256, 65535)), 1, 1};
    c.args = {CudaKernelArg::input(0), CudaKernelArg::output(0), CudaKernelArg::int64(n), CudaKernelArg::int32(x.ndim())};
    for (int d = 0; d < 4; ++d) c.args.push_back(CudaKernelArg::int64(d < x.ndim() ? x.shape()[d] : 1));
    for (int d = 0; d < 4; ++d) c.args.push_back(CudaKernelArg::int64(d < x.ndim() ? x.strides()[d] : 0));
    (void)out;
    return c;
  };
  return CudaKernel(std::move(spec));
}

}  // namespace

int main() {
  using namespace tgc;
  Var x = matrix("x", DType::Float32);
  Var y = pycuda_double_op()({x.T()})[0];  // a transposed (strided) input
  try {
    Function f = function({x}, {y}, {}, {.config = {{"device", "cuda"}}});
    Tensor a = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    std::printf("x =\n%s\n", a.str().c_str());
    std::printf("PyCUDADoubleOp(x.T) =\n%s\n", f(a)[0].str().c_str());
  } catch (const ConfigError& e) {
    std::printf("CUDA is not usable here: %s\n", e.what());
  }
  return 0;
}
