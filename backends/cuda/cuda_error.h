// CUDA and cuBLAS failures as tgc::DeviceError: every call is checked, and the message names
// the call and CUDA's own words for the error.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "runtime/error.h"

namespace tgc::cuda {

// "out of memory (cudaErrorMemoryAllocation)".
std::string cuda_error_text(cudaError_t err);
// Whether `err` leaves the CUDA context unusable (a kernel fault): every later call fails too.
bool is_sticky(cudaError_t err);

// DeviceError "CUDA call cudaMemcpyAsync failed: invalid argument (cudaErrorInvalidValue)"
// with a hint fitting the error (out of memory, a sticky kernel fault, ...). `call` is the
// checked expression; its function name is what the message shows.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const std::string& where = "");
inline void check_cuda(cudaError_t err, const char* call) {
  if (err != cudaSuccess) throw_cuda_error(err, call);
}

// The same for cuBLAS statuses (cublasStatus_t, passed as int so this header needs no cuBLAS).
[[noreturn]] void throw_cublas_error(int status, const char* call);
inline void check_cublas(int status, const char* call) {
  if (status != 0) throw_cublas_error(status, call);
}

// The function name of a checked expression: "cudaMemcpyAsync(dst, src, n, k, s)" -> "cudaMemcpyAsync".
std::string call_name(const char* call);

}  // namespace tgc::cuda

#define TGC_CUDA_CHECK(expr) ::tgc::cuda::check_cuda((expr), #expr)
#define TGC_CUBLAS_CHECK(expr) ::tgc::cuda::check_cublas(static_cast<int>(expr), #expr)
