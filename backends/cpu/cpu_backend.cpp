// The LLVM CPU backend: Composite nodes (fused kernels) run JIT-compiled LLVM code, every
// other node its reference perform(). Kernels compile when the thunk is made (inside
// function()), never on a call.
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/codegen_options.h"

#include <fmt/format.h>

#include "backends/cpu/kernel_launch.h"
#include "backends/cpu/llvm_jit.h"
#include "backends/reference/reference_backend.h"
#include "compiler/kernel/composite_op.h"
#include "runtime/parallel_jobs.h"

namespace tgc {

namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const Config& config)
      : compiler_(cpu::kernel_compiler_for(config.cache_dir, cpu::codegen_options(config))),
        compile_threads_(compile_threads(config.compile_threads)) {}

  std::string name() const override { return "llvm"; }
  DeviceKind device_kind() const override { return DeviceKind::Host; }

  void prepare(const std::vector<const Node*>& nodes, const ExpectedInputShapes& /*expected*/) const override {
    std::vector<std::pair<const Kernel*, std::string>> kernels;
    for (const Node* node : nodes)
      if (const auto* composite = dynamic_cast<const Composite*>(&node->op()))
        kernels.push_back({&composite->kernel(), node->describe()});
    compiler_.compile_ahead(kernels, compile_threads_);
  }

  ThunkFn make_thunk(const Node& node) const override {
    std::shared_ptr<const Op> op = node.op_ptr();
    const auto* composite = dynamic_cast<const Composite*>(op.get());
    if (!composite) return reference_.make_thunk(node);
    std::shared_ptr<const cpu::LinkedKernel> linked = compiler_.link(composite->kernel(), node.describe());
    auto launcher = std::make_shared<cpu::KernelLauncher>(composite->kernel(), linked->fn, composite->inplace_map());
    // The thunk keeps the op alive, and with it the kernel the launcher reads; and the linked
    // code, which is unloaded when the last thunk using it dies.
    return [op, linked, launcher](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
      (*launcher)(inputs, outputs);
    };
  }

 private:
  cpu::KernelCompiler& compiler_;
  int compile_threads_;
  ReferenceBackend reference_;
};

// "+avx2,+fma,-sse4a,..." -> "avx512f,avx2,fma" (the enabled vector features worth naming).
std::string vector_features(const std::string& features) {
  std::string out;
  for (const char* f : {"avx512f", "avx512bw", "avx512vl", "avx2", "fma", "avx", "sse4.2", "neon", "sve"}) {
    if (features.find(std::string("+") + f + ",") != std::string::npos ||
        features.ends_with(std::string("+") + f)) {
      out += (out.empty() ? "" : ",") + std::string(f);
    }
  }
  return out;
}

}  // namespace

bool llvm_backend_available() { return true; }

std::unique_ptr<Backend> make_cpu_backend(const Config& config) { return std::make_unique<CpuBackend>(config); }

std::string cpu_backend_description(const Config& config) {
  const cpu::HostTarget& host = cpu::host_target();
  const int threads = cpu::launch_threads();
  const int width = cpu::vector_width_for_host(cpu::codegen_options(config), host.features);
  const std::string vectors = width == 0 ? "LLVM's vector width" : fmt::format("{}-bit vectors", width);
  return fmt::format("llvm: LLVM {} JIT for {} ({}), {}, libmvec vector math, {} thread{}", cpu::llvm_version(),
                     host.cpu, vector_features(host.features), vectors, threads, threads == 1 ? "" : "s");
}

std::string emit_llvm_ir(const Kernel& kernel, const Config& config) {
  return cpu::optimized_ir(kernel, cpu::codegen_options(config));
}

}  // namespace tgc
