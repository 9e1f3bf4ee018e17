// Variant::key: the readable name of a specialisation ("o2r0c1v4i32").
#include <fmt/format.h>

#include "backends/c_family/kernel_render.h"

namespace tgc::cfam {

std::string Variant::key() const {
  return fmt::format("o{}r{}c{}v{}i{}", outer_rank, reduce_rank, contiguous ? 1 : 0, vector_width, index32 ? 32 : 64);
}

}  // namespace tgc::cfam
