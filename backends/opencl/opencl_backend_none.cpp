// The OpenCL entry points of a build without OpenCL headers and loader: device=opencl says
// why it is unavailable and how to get it.
#include "backends/opencl/opencl_backend.h"

#include "runtime/error.h"

namespace tgc {

bool opencl_available() { return false; }

std::unique_ptr<Backend> make_opencl_backend(const Config& config, int /*platform*/, int /*index*/) {
  throw ConfigError("device '" + config.device + "' is not available: this build of tgc has no OpenCL backend",
                    "function()",
                    "install ocl-icd-opencl-dev and opencl-headers (scripts/setup) and rebuild, or use device=cpu");
}

std::string opencl_devices_description() {
  return "opencl   not built  (this build has no OpenCL backend: the OpenCL headers and ICD loader were not "
         "found; scripts/setup installs them)";
}

}  // namespace tgc
