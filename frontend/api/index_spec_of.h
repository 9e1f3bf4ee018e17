// The op-level IndexSpec of a C++ API index (numbers, slices, newaxis, index arrays), shared by
// Var indexing (frontend/api/indexing.cpp) and writes into tensors (eager/eager_assign.cpp).
#pragma once

#include <vector>

#include <tgc/indexing.h>

#include "ops/subtensor/index_spec.h"

namespace tgc {

// Each index array's Var is appended to `arrays`, in entry order (the op's index inputs).
IndexSpec index_spec_of(const std::vector<Index>& index, std::vector<Var>& arrays);

}  // namespace tgc
