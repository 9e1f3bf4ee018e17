// Every difference between CUDA C and OpenCL C 1.2 that the C-family renderer meets, as
// small hooks: qualifiers, address spaces, built-in indices, vector types, barriers,
// atomics, math names. Renderers never test the dialect themselves.
#pragma once

#include <string>

#include "backends/c_family/kernel_render.h"
#include "runtime/dtype.h"

namespace tgc::cfam {

class DialectHooks {
 public:
  explicit DialectHooks(Dialect d) : d_(d) {}
  Dialect dialect() const { return d_; }
  bool cuda() const { return d_ == Dialect::Cuda; }

  // "extern \"C\" __global__ void" / "__kernel void".
  std::string entry_qualifier() const;
  // A helper function's qualifiers: "static __device__ __forceinline__" / "static inline".
  std::string helper_qualifier() const;
  // A global-memory kernel parameter of element type `type`.
  std::string global_param(const std::string& type, bool is_const, const std::string& name) const;
  // A global pointer type (for casts inside a kernel): "double*" / "__global double*".
  std::string global_ptr(const std::string& type, bool is_const) const;
  std::string i64() const;  // "long long" / "long"
  std::string u64() const;  // "unsigned long long" / "ulong"
  // Built-in indices of the 1-D launch.
  std::string block_index() const;   // blockIdx.x / get_group_id(0)
  std::string thread_index() const;  // threadIdx.x / get_local_id(0)
  std::string block_size() const;    // blockDim.x / get_local_size(0)
  std::string grid_size() const;     // gridDim.x / get_num_groups(0)
  std::string barrier() const;       // __syncthreads() / barrier(CLK_LOCAL_MEM_FENCE)
  std::string shared() const;        // __shared__ / __local
  // ORs `bits` into the global int at `ptr`.
  std::string atomic_or(const std::string& ptr, const std::string& bits) const;
  // Element `i` of the `width`-vector array at `ptr` (element type `type`): a load and a store.
  std::string vector_type(DType memory, int width) const;  // "float4", "longlong2" / "long2"
  std::string vector_load(DType memory, int width, const std::string& ptr, const std::string& i) const;
  std::string vector_store(DType memory, int width, const std::string& ptr, const std::string& i,
                           const std::string& value) const;
  // The math function `name` (C's double name: "exp") for float (CUDA appends f; OpenCL
  // overloads).
  std::string math(const std::string& name, bool single) const;
  // A double with the bit pattern `bits` (infinities, NaN).
  std::string double_from_bits(const std::string& bits) const;
  // The preamble lines only this dialect needs (OpenCL: cl_khr_fp64, FP_CONTRACT off).
  std::string prelude() const;
  // Whether sub-groups can combine in registers (warp shuffles); else local memory trees.
  bool has_shuffle() const { return cuda(); }
  std::string shuffle_down(const std::string& v, const std::string& offset) const;

 private:
  Dialect d_;
};

// A dtype's type in registers (bool is bool) and in memory (bool is an unsigned byte).
std::string register_type(DType t, Dialect d);
std::string memory_type(DType t, Dialect d);

}  // namespace tgc::cfam
