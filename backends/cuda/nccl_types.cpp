// The dtype and reduction mapping of tgc's NCCL collectives.
#include "backends/cuda/nccl_types.h"

#include <string>

#include "runtime/error.h"

namespace tgc::cuda {

bool nccl_type_of(DType dtype, ncclDataType_t& type) {
  switch (dtype) {
    case DType::Bool: type = ncclUint8; return true;
    case DType::Int8: type = ncclInt8; return true;
    case DType::Int16: return false;  // NCCL has 8, 32 and 64-bit integers only
    case DType::Int32: type = ncclInt32; return true;
    case DType::Int64: type = ncclInt64; return true;
    case DType::UInt8: type = ncclUint8; return true;
    case DType::Float32: type = ncclFloat32; return true;
    case DType::Float64: type = ncclFloat64; return true;
    case DType::Float16: type = ncclFloat16; return true;
    case DType::BFloat16: type = ncclBfloat16; return true;
  }
  return false;
}

NcclElements nccl_moved_elements(DType dtype, size_t count) {
  ncclDataType_t type;
  if (nccl_type_of(dtype, type)) return {type, count};
  return {ncclUint8, count * dtype_size(dtype)};
}

NcclReduction nccl_reduction(DType dtype, CollectiveReduce op, std::string_view collective) {
  ncclDataType_t type;
  if (!nccl_type_of(dtype, type))
    throw CommError(std::string(collective) + "{" + collective_reduce_name(op) + "} of " +
                        std::string(dtype_name(dtype)) + " on CUDA: NCCL has no " + std::string(dtype_name(dtype)) +
                        " type to reduce",
                    "", "cast to int32 before the collective and back after it (NCCL reduces int8, uint8, int32, "
                        "int64, float32 and float64)");
  ncclRedOp_t nccl_op = ncclSum;
  switch (op) {
    case CollectiveReduce::Sum: nccl_op = dtype == DType::Bool ? ncclMax : ncclSum; break;
    case CollectiveReduce::Max: nccl_op = ncclMax; break;
    case CollectiveReduce::Min: nccl_op = ncclMin; break;
  }
  return {type, nccl_op};
}

}  // namespace tgc::cuda
