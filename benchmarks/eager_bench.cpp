// eager_bench: issue 28's goals for eager operations on tensors (docs/eager.md), one JSON line
// per measurement, as benchmarks/eager/peers.py prints them for NumPy, PyTorch and CuPy:
//  - "small_op": the cost per operation of c = a + b on 1024 float32, eager_fusion=off (each
//    operation compiled-call lookup, launch, result: the per-operation overhead), measured over
//    batches of operations ending with one wait for the device;
//  - "chain": c = a * 2 + b * 3 - a * b on 2^log2n float32, recorded lazily and run as one
//    kernel per evaluation (and, for comparison, with eager_fusion=off: five kernels); its
//    bandwidth counts the 12 bytes per element the fused kernel must move;
//  - "copy": a device-to-device copy of 2^log2n float32 through the device's own copy
//    (Device::copy_on_device), counting the bytes read and written (8 per element).
//   build/benchmarks/eager_bench [--device cpu|cuda|opencl] [--log2n 26] [--calls 20]
#include <fmt/core.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <tgc/tgc.h>

#include "bench_util.h"

namespace {

using namespace tgc;
using namespace tgc::bench;

void line(const std::string& bench, const std::string& variant, const std::string& device, double seconds,
          double bytes) {
  fmt::print("{{\"bench\": \"{}\", \"peer\": \"tgc\", \"variant\": \"{}\", \"device\": \"{}\", \"seconds\": {:.9f}{}}}\n",
             bench, variant, device, seconds, bytes > 0 ? fmt::format(", \"GBps\": {:.1f}", bytes / seconds / 1e9) : "");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::string device_name = "cpu";
  int log2n = 26, calls = 20, repeats = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device")) device_name = argv[i + 1];
    else if (!std::strcmp(argv[i], "--log2n")) log2n = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--calls")) calls = std::stoi(argv[i + 1]);
  }
  try {
    Device& dev = device(device_name);
    auto sync = [&] { dev.synchronize(); };

    // The small operation: each a + b runs at once.
    global_config().set("eager_fusion", "off");
    {
      const Tensor a = nd::ones({1024}, DType::Float32, dev), b = nd::full({1024}, 2, DType::Float32, dev);
      Tensor c;
      for (int i = 0; i < 100; ++i) c = a + b;  // compile once, warm
      sync();
      if (c.to_host().to_vector<float>() != std::vector<float>(1024, 3.0f)) throw Error("a + b is wrong");
      const int ops = 2000;
      std::vector<double> t;
      for (int r = 0; r < repeats; ++r) t.push_back(time_batch(ops, [&] { c = a + b; }, sync) / ops);
      line("small_op", "a + b, 1024 float32", device_name, median(t), 0);
    }

    // The chain, lazily fused and (for comparison) one kernel per operation.
    const int64_t n = int64_t{1} << log2n;
    const Tensor a = nd::full({n}, 1.5, DType::Float32, dev), b = nd::full({n}, 0.5, DType::Float32, dev);
    for (const char* fusion : {"on", "off"}) {
      global_config().set("eager_fusion", fusion);
      Tensor c;
      auto chain = [&] { c = (a * 2 + b * 3 - a * b).eval(); };
      chain();
      sync();
      if (c.to_host().at({n - 1}) != 1.5 * 2 + 0.5 * 3 - 0.75) throw Error("the chain's value is wrong");
      std::vector<double> t;
      for (int r = 0; r < repeats; ++r) t.push_back(time_batch(calls, chain, sync) / calls);
      line("chain", std::string("a*2 + b*3 - a*b, eager_fusion=") + fusion, device_name, median(t), 12.0 * n);
    }
    global_config().set("eager_fusion", "on");

    // The copy baseline.
    {
      const Tensor dst = nd::empty({n}, DType::Float32, dev);
      auto copy = [&] { dev.copy_on_device(dst.raw_data(), a.raw_data(), a.nbytes(), dev.default_stream()); };
      copy();
      sync();
      std::vector<double> t;
      for (int r = 0; r < repeats; ++r) t.push_back(time_batch(calls, copy, sync) / calls);
      line("copy", "device to device", device_name, median(t), 8.0 * n);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "eager_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
