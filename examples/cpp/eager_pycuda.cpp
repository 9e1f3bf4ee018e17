// PyCUDA's GPUArray in tgc (docs/eager.md):
//   a_gpu = gpuarray.to_gpu(numpy.random.randn(4, 4).astype(numpy.float32))
//   a_doubled = (2 * a_gpu).get()
// to_device is to_gpu, Tensor::to_host() is get(). The device is the first argument ("cuda",
// "opencl"; default "cpu").
#include <cmath>
#include <cstdio>

#include <tgc/tgc.h>

int main(int argc, char** argv) {
  using namespace tgc;
  try {
    Device& gpu = device(argc > 1 ? argv[1] : "cpu");
    RandomState rng(1234);
    const Tensor a = rng.randn({4, 4}).astype(DType::Float32);  // numpy.random.randn(4, 4)
    const Tensor a_gpu = to_device(a, gpu);
    const Tensor a_doubled = (2 * a_gpu).to_host();
    std::printf("%s\n%s\n", a_doubled.str().c_str(), a_gpu.str().c_str());
    const std::vector<float> x = a.to_vector<float>(), y = a_doubled.to_vector<float>();
    for (size_t i = 0; i < x.size(); ++i)
      if (y[i] != 2 * x[i]) return 1;
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
