// ConditionalCapture: the conditional node, its value's kernel and the capture of its bodies.
#include "backends/cuda/cuda_conditional.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_error.h"
#include "backends/cuda/cuda_handles.h"
#include "backends/gpu/process_modules.h"
#include "runtime/config.h"
#include "runtime/error.h"

namespace tgc::cuda {

namespace {

// The kernel's parameter, by value: each test's element, its size, and flags (1: holds when
// nonzero; 2: a float, whose sign bit does not count; 4: the last test of a term).
struct ConditionParams {
  const void* value[kMaxConditionTests];
  int bytes[kMaxConditionTests];
  unsigned flags[kMaxConditionTests];
  int n;
};

// cudaGraphSetConditional is a builtin of the CUDA runtime's device API that the driver
// resolves when it loads the module; declared here as cuda_device_runtime_api.h does, so
// NVRTC needs no header. A test after a failed one in its term is not read.
constexpr const char* kConditionSource = R"(
typedef unsigned long long tgc_condition_handle;
extern "C" __device__ void cudaGraphSetConditional(tgc_condition_handle handle, unsigned int value);
struct tgc_condition_params {
  const void* value[16];
  int bytes[16];
  unsigned flags[16];
  int n;
};
__device__ bool tgc_condition_holds(const tgc_condition_params& p) {
  bool any = false, term = true;
  for (int i = 0; i < p.n; ++i) {
    if (term) {
      unsigned long long v = 0;
      switch (p.bytes[i]) {
        case 1: v = *(const unsigned char*)p.value[i]; break;
        case 2: v = *(const unsigned short*)p.value[i]; break;
        case 4: v = *(const unsigned int*)p.value[i]; break;
        default: v = *(const unsigned long long*)p.value[i]; break;
      }
      if (p.flags[i] & 2u) v &= ~(1ull << (8 * p.bytes[i] - 1));
      if ((v != 0) != ((p.flags[i] & 1u) != 0)) term = false;
    }
    if (p.flags[i] & 4u) {
      any = any || term;
      term = true;
    }
  }
  return any;
}
extern "C" __global__ void tgc_set_condition(tgc_condition_handle handle, tgc_condition_params p) {
  cudaGraphSetConditional(handle, tgc_condition_holds(p) ? 1u : 0u);
}
// dst = the chosen source's n bytes, 16 at a time where both are aligned to 16.
extern "C" __global__ void tgc_copy_chosen(tgc_condition_params p, unsigned char* dst, const unsigned char* when_true,
                                           const unsigned char* when_false, unsigned long long n) {
  const unsigned char* src = tgc_condition_holds(p) ? when_true : when_false;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long done = 0;
  if ((((unsigned long long)dst | (unsigned long long)src) & 15u) == 0) {
    const unsigned long long n16 = n / 16;
    for (unsigned long long i = t; i < n16; i += stride) ((uint4*)dst)[i] = ((const uint4*)src)[i];
    done = n16 * 16;
  }
  for (unsigned long long i = done + t; i < n; i += stride) dst[i] = src[i];
}
)";

// Built on the first recording that holds an ifelse, inside it (neither NVRTC nor a module's
// load is stream work), then shared by every function on the device.
gpu::GpuModule& condition_module(CudaDevice& device) {
  return gpu::process_module(device, "condition", 0, [] {
    gpu::ModuleSource source;
    source.label = "ifelse condition kernels";
    source.entries = {"tgc_set_condition", "tgc_copy_chosen"};
    source.render = [](int) { return std::string(kConditionSource); };
    source.cache_dir = global_config().cache_dir;
    return source;
  });
}

ConditionParams params_of(const Device::Condition& condition) {
  ConditionParams p{};
  for (const std::vector<Device::ConditionTest>& term : condition) {
    for (size_t k = 0; k < term.size(); ++k) {
      if (p.n == kMaxConditionTests)
        throw DeviceError(fmt::format("an ifelse guard of more than {} condition tests cannot be recorded",
                                      kMaxConditionTests),
                          "", "");
      const Device::ConditionTest& t = term[k];
      p.value[p.n] = t.value;
      p.bytes[p.n] = t.bytes;
      p.flags[p.n] = (t.when ? 1u : 0u) | (t.floating ? 2u : 0u) | (k + 1 == term.size() ? 4u : 0u);
      ++p.n;
    }
  }
  return p;
}

// Every node of `graph` that no other node follows: what the conditional node must follow to
// come after all work recorded so far.
std::vector<cudaGraphNode_t> sinks(cudaGraph_t graph) {
  size_t n = 0, e = 0;
  TGC_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n) TGC_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
  TGC_CUDA_CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &e));
  std::vector<cudaGraphNode_t> from(e), to(e);
  if (e) TGC_CUDA_CHECK(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &e));
  const std::unordered_set<cudaGraphNode_t> followed(from.begin(), from.end());
  std::vector<cudaGraphNode_t> out;
  for (cudaGraphNode_t node : nodes)
    if (!followed.count(node)) out.push_back(node);
  return out;
}

}  // namespace

void copy_chosen(CudaDevice& device, const Device::Condition& condition, void* dst, const void* when_true,
                 const void* when_false, size_t bytes) {
  if (bytes == 0) return;
  const ConditionParams params = params_of(condition);
  const unsigned long long n = bytes;
  const gpu::GridStride grid = gpu::grid_stride(device.limits(), static_cast<int64_t>((bytes + 15) / 16));
  const gpu::LaunchArg args[] = {gpu::LaunchArg::value(&params, sizeof params), gpu::LaunchArg::buffer(dst),
                                 gpu::LaunchArg::buffer(when_true), gpu::LaunchArg::buffer(when_false),
                                 gpu::LaunchArg::value(&n, sizeof n)};
  condition_module(device).launch(1, grid.blocks, grid.threads, 0, args);
}

void ConditionalCapture::begin(CudaDevice& device, const Device::Condition& condition, bool with_else) {
  TGC_INTERNAL_CHECK(!open() && !graph_, "conditional work opened inside another on " + device.name());
  DeviceGuard guard(device.ordinal());
  const cudaStream_t s = device.stream();
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t graph = nullptr;
  TGC_CUDA_CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, nullptr, nullptr, nullptr));
  TGC_INTERNAL_CHECK(status == cudaStreamCaptureStatusActive, "conditional work on " + device.name() + " while not recording");
  const ConditionParams params = params_of(condition);
  const std::vector<cudaGraphNode_t> after = sinks(graph);
  TGC_CUDA_CHECK(cudaStreamUpdateCaptureDependencies(s, const_cast<cudaGraphNode_t*>(after.data()), nullptr,
                                                     after.size(), cudaStreamSetCaptureDependencies));
  cudaGraphConditionalHandle handle = 0;
  TGC_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 0, 0));
  const gpu::LaunchArg args[] = {gpu::LaunchArg::value(&handle, sizeof handle),
                                 gpu::LaunchArg::value(&params, sizeof params)};
  condition_module(device).launch(0, 1, 1, 0, args);
  const cudaGraphNode_t* deps = nullptr;
  size_t num_deps = 0;
  TGC_CUDA_CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &num_deps));
  cudaGraphNodeParams node_params{};
  node_params.type = cudaGraphNodeTypeConditional;
  node_params.conditional.handle = handle;
  node_params.conditional.type = cudaGraphCondTypeIf;
  node_params.conditional.size = with_else ? 2 : 1;
  cudaGraphNode_t node = nullptr;
  TGC_CUDA_CHECK(cudaGraphAddNode(&node, graph, deps, nullptr, num_deps, &node_params));
  // The recording's capture ends here and resumes after the node (end()); meanwhile the
  // stream captures into the bodies.
  cudaGraph_t ended = nullptr;
  TGC_CUDA_CHECK(cudaStreamEndCapture(s, &ended));
  graph_ = ended;
  bodies_[0] = node_params.conditional.phGraph_out[0];
  bodies_[1] = with_else ? node_params.conditional.phGraph_out[1] : nullptr;
  with_else_ = with_else;
  in_else_ = false;
  TGC_CUDA_CHECK(cudaStreamBeginCaptureToGraph(s, bodies_[0], nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
  node_ = node;
}

void ConditionalCapture::otherwise(CudaDevice& device) {
  TGC_INTERNAL_CHECK(open() && with_else_ && !in_else_, "an else body without its conditional on " + device.name());
  DeviceGuard guard(device.ordinal());
  cudaGraph_t body = nullptr;
  TGC_CUDA_CHECK(cudaStreamEndCapture(device.stream(), &body));
  in_else_ = true;
  TGC_CUDA_CHECK(
      cudaStreamBeginCaptureToGraph(device.stream(), bodies_[1], nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
}

void ConditionalCapture::end(CudaDevice& device) {
  TGC_INTERNAL_CHECK(open(), "conditional work ended without its beginning on " + device.name());
  DeviceGuard guard(device.ordinal());
  cudaGraph_t body = nullptr;
  TGC_CUDA_CHECK(cudaStreamEndCapture(device.stream(), &body));
  const cudaGraphNode_t node = node_;
  node_ = nullptr;
  TGC_CUDA_CHECK(
      cudaStreamBeginCaptureToGraph(device.stream(), graph_, &node, nullptr, 1, cudaStreamCaptureModeRelaxed));
  graph_ = nullptr;
}

cudaGraph_t ConditionalCapture::abandon(CudaDevice& device) {
  if (!graph_) return nullptr;
  DeviceGuard guard(device.ordinal());
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(device.stream(), &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t body = nullptr;
    cudaStreamEndCapture(device.stream(), &body);  // a body: the node owns it
  }
  cudaGetLastError();
  node_ = nullptr;
  return std::exchange(graph_, nullptr);
}

}  // namespace tgc::cuda
