// Backend's defaults that need more than a header.
#include "compiler/backend.h"

namespace tgc {

void Backend::copy_tensor(const Tensor& src, const Tensor& dst) const { copy_elements(src, dst); }

}  // namespace tgc
