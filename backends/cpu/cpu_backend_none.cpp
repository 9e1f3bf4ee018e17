// The CPU entry points of a build without LLVM: device=cpu runs the reference backend, so
// Composite nodes run the Kernel IR interpreter through their perform().
#include "backends/cpu/cpu_backend.h"
#include "backends/reference/reference_backend.h"
#include "runtime/error.h"

namespace tgc {

bool llvm_backend_available() { return false; }

std::unique_ptr<Backend> make_cpu_backend(const Config&) { return std::make_unique<ReferenceBackend>(); }

std::string cpu_backend_description(const Config&) {
  return "interpreter: built without LLVM; fused kernels run in the Kernel IR interpreter";
}

std::string emit_llvm_ir(const Kernel&, const Config&) {
  throw ConfigError("this build of tgc has no LLVM CPU backend", "emit --target cpu",
                    "rebuild tgc with LLVM 16 installed (scripts/setup installs llvm-16-dev; "
                    "configure with -DTGC_WITH_LLVM=ON)");
}

}  // namespace tgc
