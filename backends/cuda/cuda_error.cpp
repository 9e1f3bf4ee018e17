// Turning CUDA and cuBLAS error codes into DeviceErrors with hints.
#include "backends/cuda/cuda_error.h"

#include "backends/cuda/toolkit_libraries.h"

namespace tgc::cuda {

std::string cuda_error_text(cudaError_t err) {
  return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

bool is_sticky(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

std::string call_name(const char* call) {
  std::string s(call);
  // A call through a loaded library's table, "cublas_api().Sgemm(...)": the library's own name.
  for (const auto& [table, prefix] : {std::pair{"cublaslt_api().", "cublasLt"}, std::pair{"cublas_api().", "cublas"},
                                      std::pair{"nvrtc_api().", "nvrtc"}, std::pair{"cudnn_api().", "cudnn"}})
    if (s.rfind(table, 0) == 0) {
      s = prefix + s.substr(std::string(table).size());
      break;
    }
  size_t paren = s.find('(');
  if (paren != std::string::npos) s.resize(paren);
  // "::cudaFoo" or "tgc::x" prefixes read worse than the bare name.
  size_t colon = s.rfind("::");
  if (colon != std::string::npos) s = s.substr(colon + 2);
  return s;
}

namespace {

std::string hint_for(cudaError_t err) {
  if (err == cudaErrorMemoryAllocation)
    return "the GPU ran out of memory: use smaller sizes, keep allow_gc=true so intermediates are freed, "
           "or free device tensors held elsewhere";
  if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice)
    return "check `tgc devices`; use device=cpu on machines without a usable NVIDIA GPU";
  if (is_sticky(err))
    return "a kernel faulted, which leaves the CUDA context unusable: restart the process; run with "
           "sync=true to find the node that caused it";
  return "run with sync=true so that each device node is checked as it runs";
}

}  // namespace

void throw_cuda_error(cudaError_t err, const char* call, const std::string& where) {
  throw DeviceError("CUDA call " + call_name(call) + " failed: " + cuda_error_text(err), where, hint_for(err));
}

void throw_cublas_error(int status, const char* call) {
  const auto s = static_cast<cublasStatus_t>(status);
  std::string hint = s == CUBLAS_STATUS_ALLOC_FAILED
                         ? "the GPU ran out of memory: use smaller sizes or keep allow_gc=true"
                         : "this is most likely a bug in tgc's cuBLAS call; run with sync=true and report it";
  throw DeviceError("cuBLAS call " + call_name(call) + " failed: " + cublas_api().GetStatusString(s) + " (" +
                        cublas_api().GetStatusName(s) + ")",
                    "", hint);
}

}  // namespace tgc::cuda
