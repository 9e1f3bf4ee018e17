// The CUDA toolkit's libraries tgc calls — NVRTC (kernels compiled at run time), cuBLAS and
// cuBLASLt (matrix products) — loaded at run time (dlopen), as the driver, NCCL and cuDNN are:
// libtgc records none of them as needed, so one CUDA build starts on machines without the
// toolkit (CUDA devices are then unavailable, and `tgc devices` says which library is missing
// and why). Each is looked for in the usual places (library_search.h): its soname, the
// toolkit's folder CMake found, and NVIDIA's CUDA 13 wheels (nvidia/cu13/lib, which PyTorch
// and JAX install). The tables hold the functions tgc calls, resolved by name from the loaded
// library; one list per library makes both the members and the names looked up.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <nvrtc.h>

#include <string>
#include <vector>

namespace tgc::cuda {

struct ToolkitLibraryStatus {
  bool available = false;
  // Why not, when not: "libnvrtc.so.13 not found (tried ...; ...)", "<file> lacks nvrtcGetCUBIN: ...".
  std::string reason;
  std::string version;  // "13.0" (NVRTC), "13.1.0" (cuBLAS, cuBLASLt)
  std::string path;     // the file loaded
};

// Loaded once per process each (thread-safe); never throw. cublas_status() covers cuBLASLt
// too (libcublas needs it, and tgc's products go through both): its version and path are
// cuBLAS's, its reason names whichever failed.
const ToolkitLibraryStatus& nvrtc_status();
const ToolkitLibraryStatus& cublas_status();

// Where each is looked for, in order: $TGC_NVRTC_LIBRARY / $TGC_CUBLAS_LIBRARY /
// $TGC_CUBLASLT_LIBRARY (a file, when set: then nothing else), the soname, the toolkit's file
// found when tgc was configured, then the wheels under the Python installations
// library_search.h lists.
std::vector<std::string> nvrtc_library_candidates();
std::vector<std::string> cublas_library_candidates();
std::vector<std::string> cublaslt_library_candidates();

// The `tgc devices` lines: "nvrtc    available  (NVRTC 13.0, <path>; ...)" and
// "cublas   available  (cuBLAS 13.1.0 and cuBLASLt 13.1.0, <path>; ...)", or "... unavailable  (<reason>)".
std::string nvrtc_description();
std::string cublas_description();

// The functions of each table. cuBLAS's names are its header's macros (cublasCreate is
// cublasCreate_v2): the table's members take the short names, the lookup the real ones.
#define TGC_NVRTC_FUNCTIONS(X)                                                                               \
  X(Version) X(GetErrorString) X(CreateProgram) X(DestroyProgram) X(CompileProgram) X(GetProgramLogSize)     \
  X(GetProgramLog) X(GetPTXSize) X(GetPTX) X(GetCUBINSize) X(GetCUBIN)
#define TGC_CUBLAS_FUNCTIONS(X)                                                                              \
  X(GetProperty) X(GetStatusString) X(GetStatusName) X(Create) X(Destroy) X(SetStream) X(SetWorkspace)        \
  X(SetPointerMode) X(SetMathMode) X(Sgemm) X(Dgemm) X(Sgemv) X(Dgemv) X(Sdot) X(Ddot) X(DotEx)      \
  X(Sscal) X(Dscal) X(ScalEx) X(SgemmStridedBatched) X(DgemmStridedBatched)
#define TGC_CUBLASLT_FUNCTIONS(X)                                                                            \
  X(GetVersion) X(Create) X(MatmulDescCreate) X(MatmulDescDestroy) X(MatmulDescSetAttribute)                  \
  X(MatrixLayoutCreate) X(MatrixLayoutDestroy) X(MatmulPreferenceCreate) X(MatmulPreferenceDestroy)           \
  X(MatmulPreferenceSetAttribute) X(MatmulAlgoGetHeuristic) X(Matmul)

#define TGC_TOOLKIT_MEMBER(prefix, name) decltype(&::prefix##name) name;
#define TGC_NVRTC_MEMBER(name) TGC_TOOLKIT_MEMBER(nvrtc, name)
#define TGC_CUBLAS_MEMBER(name) TGC_TOOLKIT_MEMBER(cublas, name)
#define TGC_CUBLASLT_MEMBER(name) TGC_TOOLKIT_MEMBER(cublasLt, name)
struct NvrtcApi {
  TGC_NVRTC_FUNCTIONS(TGC_NVRTC_MEMBER)
};
struct CublasApi {
  TGC_CUBLAS_FUNCTIONS(TGC_CUBLAS_MEMBER)
  // C++ sees two of each of these (the header adds inline wrappers taking a cudaDataType as
  // the compute type): the exported ones take a cublasComputeType_t.
  cublasStatus_t (*GemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                           const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                           cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
  cublasStatus_t (*GemmStridedBatchedEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                         const void*, const void*, cudaDataType, int, long long, const void*,
                                         cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                         long long, int, cublasComputeType_t, cublasGemmAlgo_t);
};
struct CublasLtApi {
  TGC_CUBLASLT_FUNCTIONS(TGC_CUBLASLT_MEMBER)
};
#undef TGC_NVRTC_MEMBER
#undef TGC_CUBLAS_MEMBER
#undef TGC_CUBLASLT_MEMBER
#undef TGC_TOOLKIT_MEMBER

// The tables; DeviceError with the status's reason (and what to install) when the library
// could not be loaded. Call sites spell a call `cublas_api().Sgemm(...)`: the checks' messages
// read it back as "cublasSgemm" (cuda_error.h).
const NvrtcApi& nvrtc_api();
const CublasApi& cublas_api();
const CublasLtApi& cublaslt_api();

}  // namespace tgc::cuda
