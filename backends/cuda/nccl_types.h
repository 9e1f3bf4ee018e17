// tgc's dtypes and reductions as NCCL's: which ncclDataType_t and ncclRedOp_t a collective
// passes, and a CommError with a hint for a reduction NCCL cannot do (int16: NCCL has no
// 16-bit integer type). Data that is only moved (all_gather, broadcast) goes as bytes when
// NCCL has no type for it, so every dtype can be gathered and broadcast.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <string_view>

#include "runtime/comm/communicator.h"
#include "runtime/dtype.h"

namespace tgc::cuda {

// NCCL's type for `dtype`, if it has one of the same width and meaning: bool is uint8 (one
// byte, 0 or 1). False for int16.
bool nccl_type_of(DType dtype, ncclDataType_t& type);

// What all_gather and broadcast pass for `count` elements of `dtype`: NCCL's type, or, for a
// dtype it lacks, `count * dtype_size(dtype)` bytes as ncclUint8.
struct NcclElements {
  ncclDataType_t type;
  size_t count;
};
NcclElements nccl_moved_elements(DType dtype, size_t count);

// What all_reduce and reduce_scatter pass. bool reduces as uint8: max is logical or, min is
// logical and, and sum is logical or too (NumPy's add of two bools), so results stay 0 or 1.
// CommError naming `collective`, the dtype and the op, with a hint to cast, for int16.
struct NcclReduction {
  ncclDataType_t type;
  ncclRedOp_t op;
};
NcclReduction nccl_reduction(DType dtype, CollectiveReduce op, std::string_view collective);

}  // namespace tgc::cuda
