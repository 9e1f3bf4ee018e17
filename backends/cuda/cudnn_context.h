// What the cuDNN thunks share on one CUDA device: its handle (bound to the device's stream, so
// calls are recorded into CUDA graphs like any other work), the lock of that handle, and the
// convolution algorithms chosen per problem; plus owners of cuDNN's descriptors and the
// descriptor of a dense activation in tgc's layouts. Needs cudnn.h (TGC_HAVE_CUDNN_HEADERS).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cudnn_library.h"
#include "ops/conv/conv_params.h"
#include "runtime/dtype.h"

namespace tgc::cuda {

// One convolution problem as the algorithm cache keys it: the direction (0 forward, 1
// backward data, 2 backward filter), dtype, layout, TF32, deterministic, and every size and
// attribute.
using ConvAlgoKey = std::array<int64_t, 21>;

struct ConvAlgo {
  int algo = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

struct CudnnContext {
  cudnnHandle_t handle = nullptr;
  // cuDNN handles are not thread-safe: one call (with its descriptors' setup) at a time.
  std::mutex mutex;
  // Each problem's algorithms in the order to try them (cudnn_conv_thunk.cpp), under mutex, for
  // the process (devices are).
  std::map<ConvAlgoKey, std::vector<ConvAlgo>> algos;
};

// The device's context, its handle created on first use (inside function(), by make_thunk,
// so never while a call is being recorded) and kept for the process.
CudnnContext& cudnn_context(CudaDevice& device);

// The cuDNN data type of a float dtype (float32, float64).
cudnnDataType_t cudnn_dtype(DType dtype);

// Owners of descriptors, destroyed through the loaded library.
class TensorDesc {
 public:
  TensorDesc();
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  // dims (n, c, h, w) with element strides.
  void set(DType dtype, const std::array<int, 4>& dims, const std::array<int, 4>& strides);
  // A dense activation (n, c, h, w) stored in `layout` (NHWC: channels innermost).
  void set_dense(DType dtype, ConvLayout layout, int64_t n, int64_t c, int64_t h, int64_t w);
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

class FilterDesc {
 public:
  // (o, c per group, kh, kw) in the layout's weight format (NCHW: KCRS, NHWC: KRSC).
  FilterDesc(DType dtype, ConvLayout layout, int64_t o, int64_t ci, int64_t kh, int64_t kw);
  ~FilterDesc();
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  cudnnFilterDescriptor_t get() const { return desc_; }

 private:
  cudnnFilterDescriptor_t desc_ = nullptr;
};

class ConvDesc {
 public:
  // Symmetric padding (pad_h, pad_w): asymmetric padding is made by the thunk (cudnn_conv_thunk.cpp).
  ConvDesc(DType dtype, const Conv2dParams& p, int64_t pad_h, int64_t pad_w);
  ~ConvDesc();
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  cudnnConvolutionDescriptor_t get() const { return desc_; }

 private:
  cudnnConvolutionDescriptor_t desc_ = nullptr;
};

class PoolDesc {
 public:
  PoolDesc();
  ~PoolDesc();
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
  cudnnPoolingDescriptor_t get() const { return desc_; }

 private:
  cudnnPoolingDescriptor_t desc_ = nullptr;
};

class ActivationDesc {
 public:
  ActivationDesc();  // relu, NaN propagated (as maximum(x, 0) of a NaN is NaN)
  ~ActivationDesc();
  ActivationDesc(const ActivationDesc&) = delete;
  ActivationDesc& operator=(const ActivationDesc&) = delete;
  cudnnActivationDescriptor_t get() const { return desc_; }

 private:
  cudnnActivationDescriptor_t desc_ = nullptr;
};

// cuDNN's scaling factors are host values of the computation's type: double for float64
// data, float otherwise.
struct Scalars {
  explicit Scalars(DType dtype) : dbl(dtype == DType::Float64) {}
  const void* one() const { return dbl ? static_cast<const void*>(&d1) : &f1; }
  const void* zero() const { return dbl ? static_cast<const void*>(&d0) : &f0; }
  bool dbl;
  float f1 = 1.0f, f0 = 0.0f;
  double d1 = 1.0, d0 = 0.0;
};

// Device memory for a call's workspace, from the device's allocator on its stream (in stream
// order, so it is freed as soon as the call is enqueued; while recording it belongs to the
// recording).
class Workspace {
 public:
  Workspace(CudaDevice& device, size_t bytes);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  void* get() const { return ptr_; }
  size_t size() const { return bytes_; }

 private:
  CudaDevice& device_;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace tgc::cuda
