// The CUDA entry points of a build without the CUDA toolkit: device=cuda says why it is
// unavailable and how to get it.
#include "backends/cuda/cuda_backend.h"

#include "runtime/error.h"

namespace tgc {

bool cuda_available() { return false; }

std::unique_ptr<Backend> make_cuda_backend(const Config& config, int /*ordinal*/) {
  throw ConfigError("device '" + config.device + "' is not available: this build of tgc has no CUDA backend",
                    "function()",
                    "install the CUDA toolkit and rebuild (cmake -DTGC_WITH_CUDA=ON), or use device=cpu");
}

std::unique_ptr<Backend> make_cuda_inspection_backend(const Config& config, int ordinal) {
  return make_cuda_backend(config, ordinal);  // says this build has no CUDA backend
}

std::string cuda_devices_description() {
  return "cuda     not built  (this build has no CUDA backend: the CUDA toolkit was not found; "
         "cmake -DTGC_WITH_CUDA=ON after installing it)";
}

}  // namespace tgc
