// cuDNN loaded at run time (dlopen), as NCCL and the CUDA driver are: the same libtgc starts
// on machines without cuDNN (its convolutions and pooling then stay on the host of a CUDA
// function, saying why), and finds the copy inside Python's NVIDIA wheel where that is the
// only one. cudnn_status() says which library was loaded and from where, or why none was;
// cudnn_api() is the table of the functions tgc calls, which needs cudnn.h
// (TGC_HAVE_CUDNN_HEADERS); the status is there in every build.
#pragma once

#include <string>
#include <vector>

#if TGC_HAVE_CUDNN_HEADERS
#include <cudnn.h>
#endif

namespace tgc::cuda {

struct CudnnStatus {
  bool available = false;
  // Why not, when not: "built without cuDNN headers ...", "libcudnn.so.9 not found (tried ...)".
  std::string reason;
  size_t version = 0;  // cudnnGetVersion: 91900 for 9.19.0
  std::string path;    // the file loaded
};

// Loaded once per process (thread-safe); never throws.
const CudnnStatus& cudnn_status();

// Where libcudnn.so.9 is looked for, in order: $TGC_CUDNN_LIBRARY (a file, when set: then
// nothing else), "libcudnn.so.9" (LD_LIBRARY_PATH and the system's library cache), the NVIDIA
// wheel found when tgc was configured, then the wheel under the Python installations
// library_search.h lists.
std::vector<std::string> cudnn_library_candidates();

// "9.19.0" from 91900.
std::string cudnn_version_str(size_t code);

// The `tgc devices` line: "cudnn    available  (cuDNN 9.19.0, <path>; ...)" or
// "cudnn    unavailable  (<reason>)".
std::string cudnn_description();

#if TGC_HAVE_CUDNN_HEADERS
// The functions tgc calls, each resolved with dlsym from the loaded library. One list makes
// both the table's members and the names looked up.
#define TGC_CUDNN_FUNCTIONS(X)                                                                                  \
  X(GetVersion) X(GetErrorString) X(Create) X(Destroy) X(SetStream) X(CreateTensorDescriptor)                   \
  X(DestroyTensorDescriptor) X(SetTensor4dDescriptorEx) X(CreateFilterDescriptor) X(DestroyFilterDescriptor)    \
  X(SetFilter4dDescriptor) X(CreateConvolutionDescriptor) X(DestroyConvolutionDescriptor)                       \
  X(SetConvolution2dDescriptor) X(SetConvolutionGroupCount) X(SetConvolutionMathType)                           \
  X(GetConvolutionForwardAlgorithm_v7) X(GetConvolutionBackwardDataAlgorithm_v7)                                \
  X(GetConvolutionBackwardFilterAlgorithm_v7) X(GetConvolutionForwardWorkspaceSize)                             \
  X(GetConvolutionBackwardDataWorkspaceSize) X(GetConvolutionBackwardFilterWorkspaceSize) X(ConvolutionForward) \
  X(ConvolutionBackwardData) X(ConvolutionBackwardFilter) X(ConvolutionBiasActivationForward)                   \
  X(CreateActivationDescriptor) X(DestroyActivationDescriptor) X(SetActivationDescriptor) X(ActivationForward)  \
  X(AddTensor) X(TransformTensor) X(CreatePoolingDescriptor) X(DestroyPoolingDescriptor)                       \
  X(SetPooling2dDescriptor) X(PoolingForward) X(PoolingBackward) X(FindConvolutionForwardAlgorithmEx)            \
  X(FindConvolutionBackwardDataAlgorithmEx) X(FindConvolutionBackwardFilterAlgorithmEx)

struct CudnnApi {
#define TGC_CUDNN_MEMBER(name) decltype(&::cudnn##name) name;
  TGC_CUDNN_FUNCTIONS(TGC_CUDNN_MEMBER)
#undef TGC_CUDNN_MEMBER
};

// The table; DeviceError with cudnn_status()'s reason when cuDNN could not be loaded.
const CudnnApi& cudnn_api();

// DeviceError "cuDNN call cudnnConvolutionForward failed: CUDNN_STATUS_NOT_SUPPORTED (...)".
[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call);
inline void check_cudnn(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS) throw_cudnn_error(status, call);
}
#define TGC_CUDNN_CHECK(expr) ::tgc::cuda::check_cudnn((expr), #expr)
#endif

}  // namespace tgc::cuda
