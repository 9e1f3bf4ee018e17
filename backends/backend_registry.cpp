// The list of built backends, making one by name, and the forced-backend test hook.
#include "backends/backend_registry.h"

#include <algorithm>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/reference/reference_backend.h"
#include "runtime/error.h"

namespace tgc {

namespace {

std::optional<std::string>& forced() {
  static std::optional<std::string> name;
  return name;
}

}  // namespace

std::vector<std::string> built_backends() {
  std::vector<std::string> names{"reference"};
  if (llvm_backend_available()) names.push_back("llvm");
  if (cuda_available()) names.push_back("cuda");
  if (opencl_available()) names.push_back("opencl");
  return names;
}

std::unique_ptr<Backend> make_named_backend(const std::string& name, const Config& config) {
  if (name == "reference") return std::make_unique<ReferenceBackend>();
  if (name == "llvm" && llvm_backend_available()) return make_cpu_backend(config);
  if (name == "cuda" && cuda_available()) return make_cuda_backend(config, 0);
  if (name == "opencl" && opencl_available()) return make_opencl_backend(config, -1, 0);
  std::string have;
  for (const std::string& b : built_backends()) have += (have.empty() ? "" : ", ") + b;
  throw ConfigError("backend '" + name + "' is not built", "make_named_backend", "this build has: " + have);
}

ForcedBackendForTests::ForcedBackendForTests(const std::string& name) : previous_(forced()) {
  const std::vector<std::string> names = built_backends();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw ConfigError("backend '" + name + "' is not built", "ForcedBackendForTests", "force one of built_backends()");
  forced() = name;
}

ForcedBackendForTests::~ForcedBackendForTests() { forced() = previous_; }

std::optional<std::string> forced_backend_for_tests() { return forced(); }

}  // namespace tgc
