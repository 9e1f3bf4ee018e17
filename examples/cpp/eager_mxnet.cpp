// mxnet's nd in tgc (docs/eager.md): arrays made on a device and added at once, no graph.
//   >>> a = mx.nd.empty((2, 3), mx.gpu()); b = mx.nd.empty((2, 3), mx.gpu()); c = a + b
// The device is the first argument ("cuda", "cuda:1", "opencl"; default "cpu"). nd::ones and
// nd::full stand in for mx.nd.empty so the sum has a value to print.
#include <cstdio>
#include <string>

#include <tgc/tgc.h>

int main(int argc, char** argv) {
  using namespace tgc;
  try {
    Device& gpu = device(argc > 1 ? argv[1] : "cpu");
    const Tensor a = nd::ones({2, 3}, DType::Float32, gpu);  // a 2-by-3 matrix on the device
    const Tensor b = nd::full({2, 3}, 2, DType::Float32, gpu);
    const Tensor c = a + b;  // recorded; runs when read
    std::printf("c on %s, shape (2, 3):\n%s\n", device_name(c.device()).c_str(), c.to_host().str().c_str());
    // A longer chain is one kernel: 3 * (a + b) - a * b = 9 - 2 = 7 everywhere.
    const Tensor d = 3 * c - a * b;
    std::printf("3 * (a + b) - a * b =\n%s\n", d.to_host().str().c_str());
    return d.to_host().to_vector<float>() == std::vector<float>(6, 7.0f) ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
