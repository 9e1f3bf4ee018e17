// The random-draw rule and its thunk: the draw's elements over a grid of threads, each making
// whole Philox blocks (render_random.h); the module of each entry is built once per device.
#include "backends/gpu/random_rules.h"
#include "backends/gpu/process_modules.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include "backends/c_family/render_random.h"
#include "ops/random/random_draw.h"
#include "ops/random/random_permutation.h"
#include "runtime/error.h"

namespace tgc::gpu {

namespace {

GpuModule& random_module(GpuDevice& device, int entry, const std::string& cache_dir) {
  return process_module(device, "random", entry, [&] {
    const cfam::Dialect dialect = device.dialect();
    // No fast math: the draws' bits must not depend on it.
    return unit_entry_source("random", cfam::random_entry_name(cfam::random_kernels().at(static_cast<size_t>(entry))),
                             [dialect, entry] { return cfam::render_random(dialect, entry); }, false, cache_dir);
  });
}

cfam::RandomDist dist_of(Distribution d) {
  switch (d) {
    case Distribution::Uniform: return cfam::RandomDist::Uniform;
    case Distribution::Normal: return cfam::RandomDist::Normal;
    case Distribution::Integers: return cfam::RandomDist::Integers;
  }
  return cfam::RandomDist::Uniform;
}

// The draw's kernel for `node`: its distribution and dtype, and its low/high (integers).
struct DrawSpec {
  cfam::RandomKernel kernel;
  int64_t low = 0, high = 0;
};

DrawSpec spec_of(const Node& node) {
  if (dynamic_cast<const RandomPermutation*>(&node.op()))
    return {{cfam::RandomDist::Permutation, DType::Int64}, 0, 0};
  const auto& op = static_cast<const RandomDraw&>(node.op());
  return {{dist_of(op.distribution()), op.dtype()}, op.low(), op.high()};
}

struct RandomThunk {
  GpuDevice* device;
  std::shared_ptr<const Op> op;
  DrawSpec spec;
  int entry;
  std::string cache_dir;

  void operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    GpuDevice& dev = *device;
    const Tensor state = inputs.at(0).on_host() ? inputs[0].to(dev) : inputs[0].contiguous();
    std::vector<Shape> shapes;
    for (const Tensor& t : inputs) shapes.push_back(t.shape());
    const Shape out_shape = op->infer_shapes(shapes)[0];  // checks the state's shape too
    const DType dtype = spec.kernel.dtype;
    Tensor& out = ensure_output(outputs.at(0), dtype, out_shape, dev);
    Tensor& next = ensure_output(outputs.at(1), DType::Int64, {2}, dev);
    const int64_t n = out.numel();
    const int64_t e = cfam::random_per_block(spec.kernel);
    const int64_t blocks_of_words = (n + e - 1) / e;
    std::vector<int64_t> blob(cfam::kRandomParams, 0);
    blob[cfam::randp::kN] = n;
    blob[cfam::randp::kLow] = spec.low;
    blob[cfam::randp::kRange] = static_cast<int64_t>(static_cast<uint64_t>(spec.high) - static_cast<uint64_t>(spec.low));
    blob[cfam::randp::kVector] = reinterpret_cast<uintptr_t>(out.raw_data()) % 16 == 0 ? 1 : 0;
    // Enough blocks to fill the device a few times over; threads loop over the rest (an empty
    // draw still launches one block, which writes the state). The shuffle is one thread's.
    const bool serial = spec.kernel.dist == cfam::RandomDist::Permutation;
    const int threads = serial ? 1 : std::min(256, dev.limits().max_threads_per_block);
    const int64_t grid = serial ? 1 : std::clamp<int64_t>((blocks_of_words + threads - 1) / threads, 1, 65535);
    std::vector<LaunchArg> args = {LaunchArg::operand(n ? out.raw_data() : nullptr, dtype_size(dtype)),
                                   LaunchArg::operand(state.raw_data(), sizeof(int64_t)),
                                   LaunchArg::operand(next.raw_data(), sizeof(int64_t)),
                                   LaunchArg::value(blob.data(), blob.size() * sizeof(int64_t))};
    random_module(dev, entry, cache_dir).launch(0, grid, threads, 0, args);
  }
};

bool is_random_op(const Node& node) {
  return dynamic_cast<const RandomDraw*>(&node.op()) != nullptr ||
         dynamic_cast<const RandomPermutation*>(&node.op()) != nullptr;
}

std::string random_op_declines(const Node& node) {
  const DrawSpec s = spec_of(node);
  if (cfam::random_entry(s.kernel) < 0) return fmt::format("no random kernel for {}", node.op().name());
  return "";
}

ThunkFn make_random_thunk(GpuDevice& device, const Node& node, const Config& config) {
  const DrawSpec s = spec_of(node);
  const int entry = cfam::random_entry(s.kernel);
  TGC_INTERNAL_CHECK(entry >= 0, "random thunk without an entry for " + node.op().name());
  return RandomThunk{&device, node.op_ptr(), s, entry, config.cache_dir};
}

const DeviceOpRule kRules[] = {
    // uniform, normal and integer draws (Philox blocks over a grid) and the permutation (one
    // thread's shuffle): the state read and advanced on the device.
    {"random", is_random_op, random_op_declines, make_random_thunk, true},
};

}  // namespace

std::span<const DeviceOpRule> random_op_rules() { return kRules; }

}  // namespace tgc::gpu
