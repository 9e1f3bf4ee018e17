// The host-dependent half of CodegenOptions: the vector width an "auto" kernel is built for.
#include "backends/cpu/codegen_options.h"

#include "backends/cpu/libmvec_table.h"

namespace tgc::cpu {

int vector_width_for_host(const CodegenOptions& options, const std::string& features) {
  if (options.vector_width != 0) return options.vector_width;
  return has_avx512f(features) ? 512 : 0;
}

}  // namespace tgc::cpu
