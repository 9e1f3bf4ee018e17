// The per-device cuDNN handle, and the descriptor owners of cudnn_context.h.
#include "backends/cuda/cudnn_context.h"

#include <chrono>
#include <memory>

#include "runtime/compile_log.h"
#include "runtime/error.h"

namespace tgc::cuda {

CudnnContext& cudnn_context(CudaDevice& device) {
  static std::mutex mutex;
  static auto* contexts = new std::map<int, std::unique_ptr<CudnnContext>>();  // process lifetime, as devices
  std::lock_guard<std::mutex> lock(mutex);
  auto& c = (*contexts)[device.ordinal()];
  if (!c) {
    const auto t0 = std::chrono::steady_clock::now();
    const CudnnApi& api = cudnn_api();
    DeviceGuard guard(device.ordinal());
    auto ctx = std::make_unique<CudnnContext>();
    TGC_CUDNN_CHECK(api.Create(&ctx->handle));
    TGC_CUDNN_CHECK(api.SetStream(ctx->handle, device.stream()));
    c = std::move(ctx);
    // Once per device and process (cuDNN loads its parts here): log_compiles shows it.
    if (CompileLog* log = current_compile_log())
      log->add_library_setup("cuDNN handle on " + device.name(),
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return *c;
}

cudnnDataType_t cudnn_dtype(DType dtype) {
  TGC_INTERNAL_CHECK(dtype == DType::Float32 || dtype == DType::Float64, "cuDNN call on a non-float dtype");
  return dtype == DType::Float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

namespace {

int narrow(int64_t v) {
  TGC_INTERNAL_CHECK(v >= 0 && v <= INT32_MAX, "a size past cuDNN's int range reached a cuDNN call");
  return static_cast<int>(v);
}

}  // namespace

TensorDesc::TensorDesc() { TGC_CUDNN_CHECK(cudnn_api().CreateTensorDescriptor(&desc_)); }
TensorDesc::~TensorDesc() { cudnn_api().DestroyTensorDescriptor(desc_); }

void TensorDesc::set(DType dtype, const std::array<int, 4>& d, const std::array<int, 4>& s) {
  TGC_CUDNN_CHECK(
      cudnn_api().SetTensor4dDescriptorEx(desc_, cudnn_dtype(dtype), d[0], d[1], d[2], d[3], s[0], s[1], s[2], s[3]));
}

void TensorDesc::set_dense(DType dtype, ConvLayout layout, int64_t n, int64_t c, int64_t h, int64_t w) {
  const std::array<int, 4> dims{narrow(n), narrow(c), narrow(h), narrow(w)};
  // Strides of (n, c, h, w) in elements; the product checked too, as cuDNN takes ints.
  narrow(n * c * h * w);
  const std::array<int, 4> strides = layout == ConvLayout::NCHW
                                         ? std::array<int, 4>{narrow(c * h * w), narrow(h * w), narrow(w), 1}
                                         : std::array<int, 4>{narrow(h * w * c), 1, narrow(w * c), narrow(c)};
  set(dtype, dims, strides);
}

FilterDesc::FilterDesc(DType dtype, ConvLayout layout, int64_t o, int64_t ci, int64_t kh, int64_t kw) {
  const CudnnApi& api = cudnn_api();
  TGC_CUDNN_CHECK(api.CreateFilterDescriptor(&desc_));
  const cudnnTensorFormat_t format = layout == ConvLayout::NCHW ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
  TGC_CUDNN_CHECK(
      api.SetFilter4dDescriptor(desc_, cudnn_dtype(dtype), format, narrow(o), narrow(ci), narrow(kh), narrow(kw)));
}
FilterDesc::~FilterDesc() { cudnn_api().DestroyFilterDescriptor(desc_); }

ConvDesc::ConvDesc(DType dtype, const Conv2dParams& p, int64_t pad_h, int64_t pad_w) {
  const CudnnApi& api = cudnn_api();
  TGC_CUDNN_CHECK(api.CreateConvolutionDescriptor(&desc_));
  // Cross-correlation, as Conv2d is (no kernel flip); accumulated in the data's own type.
  TGC_CUDNN_CHECK(api.SetConvolution2dDescriptor(desc_, narrow(pad_h), narrow(pad_w), narrow(p.stride[0]),
                                                 narrow(p.stride[1]), narrow(p.dilation[0]), narrow(p.dilation[1]),
                                                 CUDNN_CROSS_CORRELATION, cudnn_dtype(dtype)));
  TGC_CUDNN_CHECK(api.SetConvolutionGroupCount(desc_, narrow(p.groups)));
}
ConvDesc::~ConvDesc() { cudnn_api().DestroyConvolutionDescriptor(desc_); }

PoolDesc::PoolDesc() { TGC_CUDNN_CHECK(cudnn_api().CreatePoolingDescriptor(&desc_)); }
PoolDesc::~PoolDesc() { cudnn_api().DestroyPoolingDescriptor(desc_); }

ActivationDesc::ActivationDesc() {
  const CudnnApi& api = cudnn_api();
  TGC_CUDNN_CHECK(api.CreateActivationDescriptor(&desc_));
  TGC_CUDNN_CHECK(api.SetActivationDescriptor(desc_, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
}
ActivationDesc::~ActivationDesc() { cudnn_api().DestroyActivationDescriptor(desc_); }

Workspace::Workspace(CudaDevice& device, size_t bytes) : device_(device), bytes_(bytes) {
  if (bytes_ > 0) ptr_ = device_.allocate(bytes_, device_.default_stream());
}
Workspace::~Workspace() {
  if (ptr_) device_.deallocate(ptr_, bytes_, device_.default_stream());
}

}  // namespace tgc::cuda
