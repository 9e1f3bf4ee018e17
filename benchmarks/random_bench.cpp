// random_bench: issue 23's Philox goal on a GPU: 2^28 float32 uniforms drawn on the device
// (RandomStreams.uniform, result left there) against a device-to-device copy of the same bytes
// (cudaMemcpyAsync, this binary's own CUDA runtime and stream), the goal being >= 90% of the
// copy's bandwidth. Prints one JSON line per measurement, as benchmarks/random/peers.py does for
// torch.rand, jax.random.uniform and cupy.random, so one run lists them side by side:
//   build/benchmarks/random_bench [--device cuda|opencl] [--log2n 28] [--calls 20]
// Bandwidths: the draw writes 4 bytes per element; the copy reads and writes each byte, and is
// counted as both (as gpu_bench counts it). Without a GPU: a skip line, exit 0.
#include <cuda_runtime_api.h>
#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <tgc/tgc.h>

#include "bench_util.h"

namespace {

using namespace tgc;
using namespace tgc::bench;

void cuda_check(cudaError_t err, const char* call) {
  if (err != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", call, cudaGetErrorString(err)));
}
#define RB_CUDA(call) cuda_check((call), #call)

// The copy baseline: `bytes` device-to-device on a stream of its own, seconds per copy.
double copy_seconds(size_t bytes, int calls, int repeats) {
  void *src = nullptr, *dst = nullptr;
  cudaStream_t s = nullptr;
  RB_CUDA(cudaMalloc(&src, bytes));
  RB_CUDA(cudaMalloc(&dst, bytes));
  RB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  RB_CUDA(cudaMemsetAsync(src, 1, bytes, s));
  auto copy = [&] { RB_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s)); };
  for (int i = 0; i < 3; ++i) copy();
  RB_CUDA(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) t.push_back(time_batch(calls, copy, [&] { RB_CUDA(cudaStreamSynchronize(s)); }) / calls);
  cudaStreamDestroy(s);
  cudaFree(src);
  cudaFree(dst);
  return median(t);
}

}  // namespace

int main(int argc, char** argv) {
  std::string device = "cuda";
  int log2n = 28, calls = 20, repeats = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!std::strcmp(argv[i], "--log2n")) log2n = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--calls")) calls = std::stoi(argv[i + 1]);
  }
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    fmt::print("{{\"bench\": \"philox_uniform\", \"skipped\": \"no CUDA device\"}}\n");
    return 0;
  }
  try {
    const int64_t n = int64_t{1} << log2n;
    const size_t bytes = static_cast<size_t>(n) * 4;
    RandomStreams rng(1);
    Var u = rng.uniform({n}, 0.0, 1.0, DType::Float32);
    Function f = function({}, {u}, {}, {.name = "uniform", .config = {{"device", device}}, .device_result = true});
    // Correctness before timing: the first elements are Philox's words of stream 0's first block.
    std::vector<Tensor> last = f();
    {
      const Tensor all = last[0].to_host();  // once, 1 GiB
      RandomStreams host(1);
      Function check = function({}, {host.uniform({8}, 0.0, 1.0, DType::Float32)}, {}, {.config = {{"device", "cpu"}}});
      const std::vector<float> want = check()[0].to_vector<float>();
      for (size_t i = 0; i < want.size(); ++i)
        if (all.data<float>()[i] != want[i]) throw std::runtime_error("the device's first draws differ from the host's");
    }
    rng.seed(1);
    for (int i = 0; i < 3; ++i) {
      last.clear();
      last = f();
    }
    sync_all(last);
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r)
      t.push_back(time_batch(
                      calls,
                      [&] {
                        last.clear();  // the previous result's buffer goes back to the device's pool
                        last = f();
                      },
                      [&] { sync_all(last); }) /
                  calls);
    const double gen_s = median(t);
    const double copy_s = copy_seconds(bytes, calls, repeats);
    const double gen_gbs = bytes / gen_s / 1e9, copy_gbs = 2.0 * bytes / copy_s / 1e9;
    fmt::print("{{\"bench\": \"philox_uniform\", \"peer\": \"tgc\", \"device\": \"{}\", \"n\": {}, \"seconds\": {:.6f}, "
               "\"GBps\": {:.1f}, \"graphs\": \"{}\"}}\n",
               device, n, gen_s, gen_gbs, f.cuda_graph_status());
    fmt::print("{{\"bench\": \"philox_uniform\", \"peer\": \"cudaMemcpy D2D\", \"bytes\": {}, \"seconds\": {:.6f}, "
               "\"GBps\": {:.1f}}}\n",
               bytes, copy_s, copy_gbs);
    const double pct = 100 * gen_gbs / copy_gbs;
    fmt::print("{{\"bench\": \"philox_uniform\", \"pct_of_copy\": {:.1f}, \"goal_pct\": 90, \"verdict\": \"{}\"}}\n", pct,
               verdict(pct >= 90));
  } catch (const std::exception& e) {
    fmt::print(stderr, "random_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
