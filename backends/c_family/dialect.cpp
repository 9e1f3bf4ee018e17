// The CUDA C and OpenCL C 1.2 hooks of the C-family renderer.
#include "backends/c_family/dialect.h"

#include <fmt/format.h>

namespace tgc::cfam {

LongReduction long_reduction(Dialect dialect) {
  // CUDA: 512-thread blocks, two resident per multiprocessor (one wave of 264 blocks on an
  // H100 or H200), and no pass-2 launch. Timed on an H200 (sum of squares of 4000x4000
  // float32, benchmarks/cuda_experiments/reduction_designs.cu, a CUDA graph per call): 256
  // threads, 8 per multiprocessor, interleaved chunks and a pass-2 launch 19.6-20.0 us; the
  // same with the last block combining 19.0-19.2 us; 512 threads, 2 per multiprocessor, last
  // block combining 18.9 us. Fewer partials leave the combining block less to read, and 1024
  // resident threads with four 16-byte loads each in flight were enough to keep the memory
  // busy (docs/performance.md, GPU run 9).
  if (dialect == Dialect::Cuda) return {512, 2, true};
  // OpenCL 1.2 promises nothing about one work-group seeing another's writes within a
  // launch, so pass 2 combines; its local-memory tree holds 256 lanes.
  return {256, 8, false};
}

std::string DialectHooks::entry_qualifier() const {
  return cuda() ? "extern \"C\" __global__ void" : "__kernel void";
}
std::string DialectHooks::helper_qualifier() const {
  return cuda() ? "static __device__ __forceinline__" : "static inline";
}
std::string DialectHooks::global_param(const std::string& type, bool is_const, const std::string& name) const {
  // restrict: operands of one kernel never overlap (the memory planner keeps them apart).
  const std::string c = is_const ? "const " : "";
  return cuda() ? fmt::format("{}{}* __restrict__ {}", c, type, name)
                : fmt::format("__global {}{}* restrict {}", c, type, name);
}
std::string DialectHooks::global_ptr(const std::string& type, bool is_const) const {
  const std::string c = is_const ? "const " : "";
  return cuda() ? fmt::format("{}{}*", c, type) : fmt::format("__global {}{}*", c, type);
}
std::string DialectHooks::i64() const { return cuda() ? "long long" : "long"; }
std::string DialectHooks::u64() const { return cuda() ? "unsigned long long" : "ulong"; }
std::string DialectHooks::block_index() const { return cuda() ? "(int)blockIdx.x" : "(int)get_group_id(0)"; }
std::string DialectHooks::thread_index() const { return cuda() ? "(int)threadIdx.x" : "(int)get_local_id(0)"; }
std::string DialectHooks::block_size() const { return cuda() ? "(int)blockDim.x" : "(int)get_local_size(0)"; }
std::string DialectHooks::grid_size() const { return cuda() ? "(int)gridDim.x" : "(int)get_num_groups(0)"; }
std::string DialectHooks::barrier() const { return cuda() ? "__syncthreads()" : "barrier(CLK_LOCAL_MEM_FENCE)"; }
std::string DialectHooks::shared() const { return cuda() ? "__shared__" : "__local"; }
std::string DialectHooks::atomic_or(const std::string& ptr, const std::string& bits) const {
  return cuda() ? fmt::format("atomicOr({}, {})", ptr, bits) : fmt::format("atomic_or({}, {})", ptr, bits);
}

namespace {
std::string vector_base(DType t, Dialect d) {
  const bool cu = d == Dialect::Cuda;
  switch (t) {
    case DType::Bool:
    case DType::UInt8: return "uchar";
    case DType::Int8: return "char";
    case DType::Int16: return "short";
    case DType::Int32: return "int";
    case DType::Int64: return cu ? "longlong" : "long";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16:
    case DType::BFloat16: return "ushort";  // raw bits (render_half.h)
  }
  return "?";
}
}  // namespace

std::string DialectHooks::vector_type(DType memory, int width) const {
  return fmt::format("{}{}", vector_base(memory, d_), width);
}
std::string DialectHooks::vector_load(DType memory, int width, const std::string& ptr, const std::string& i) const {
  if (cuda()) return fmt::format("((const {}*){})[{}]", vector_type(memory, width), ptr, i);
  return fmt::format("vload{}({}, {})", width, i, ptr);
}
std::string DialectHooks::vector_store(DType memory, int width, const std::string& ptr, const std::string& i,
                                       const std::string& value) const {
  if (cuda()) return fmt::format("(({}*){})[{}] = {};", vector_type(memory, width), ptr, i, value);
  return fmt::format("vstore{}({}, {}, {});", width, value, i, ptr);
}
std::string DialectHooks::math(const std::string& name, bool single) const {
  return cuda() && single ? name + "f" : name;
}
std::string DialectHooks::double_from_bits(const std::string& bits) const {
  return cuda() ? fmt::format("__longlong_as_double({}LL)", bits) : fmt::format("as_double((long){}L)", bits);
}
std::string DialectHooks::prelude() const {
  if (cuda()) return "";
  // Doubles are an extension in OpenCL 1.2; no contraction keeps a*b+c rounded twice, as the
  // reference computes it.
  return "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#pragma OPENCL FP_CONTRACT OFF\n";
}
std::string DialectHooks::shuffle_down(const std::string& v, const std::string& offset) const {
  return fmt::format("__shfl_down_sync(0xffffffffu, {}, {})", v, offset);
}

std::string register_type(DType t, Dialect d) {
  const bool cu = d == Dialect::Cuda;
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return cu ? "signed char" : "char";
    case DType::UInt8: return cu ? "unsigned char" : "uchar";
    case DType::Int16: return "short";
    case DType::Int32: return "int";
    case DType::Int64: return cu ? "long long" : "long";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16:
    case DType::BFloat16: return cu ? "unsigned short" : "ushort";  // raw bits (render_half.h)
  }
  return "?";
}

std::string memory_type(DType t, Dialect d) {
  if (t == DType::Bool) return d == Dialect::Cuda ? "unsigned char" : "uchar";
  return register_type(t, d);
}

}  // namespace tgc::cfam
