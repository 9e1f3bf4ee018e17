// The rules of tgc's own pooling and convolution kernels: which nodes they cover, why they
// decline some, and their thunks.
#include "backends/gpu/fallback_kernel_rules.h"

#include "backends/gpu/conv_thunks.h"
#include "backends/gpu/pool_thunks.h"

namespace tgc::gpu {

namespace {

const DeviceOpRule kRules[] = {
    // max_pool2d, avg_pool2d and their gradients: a thread per element of the result.
    {"pool", is_pool_op, fallback_kernel_declines,
     [](GpuDevice& d, const Node& n, const Config& c) { return make_pool_thunk(d, n, c); }, true},
    // conv2d (with its bias and relu), its input and weights' gradients: direct kernels, a
    // thread per element of the result.
    {"conv", is_conv_op, fallback_kernel_declines,
     [](GpuDevice& d, const Node& n, const Config& c) { return make_conv_thunk(d, n, c); }, true},
};

}  // namespace

std::span<const DeviceOpRule> fallback_kernel_rules() { return kRules; }

std::string fallback_kernel_declines(const Node& node) {
  const DType x = node.inputs().at(0)->type().dtype;
  for (const auto& v : node.inputs())
    if (v->type().dtype != x) return "operands of another dtype than the first";
  return "";
}

}  // namespace tgc::gpu
