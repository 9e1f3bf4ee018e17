// tgc's copy kernels on each GPU API: device views of every element size (transposed, at an
// offset of their buffer, broadcast, deeper than the kernel's rank) made dense, dense byte
// copies at every alignment, and Tensor::copy of a device view made dense by them (lent to
// runtime/ through runtime/device_kernels.h).
#include "backends/gpu/device_copy.h"

#include <gtest/gtest.h>

#include <numeric>

#include "gpu_test_device.h"
#include "runtime/device_kernels.h"

namespace tgc {
namespace {

Tensor iota(DType dtype, const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 101);
  return Tensor::from_vector(v, shape).astype(dtype);
}

TEST(GpuDeviceCopy, ViewsOfEveryElementSizeComeBackDense) {
  TGC_REQUIRE_GPU();
  gpu::GpuDevice& dev = gpu_test::device();
  for (DType dtype : {DType::Int8, DType::Int16, DType::Float32, DType::Float64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const Tensor host = iota(dtype, {6, 7, 5});
    const Tensor d = host.to(dev);
    for (const std::vector<int>& perm : {std::vector<int>{2, 0, 1}, std::vector<int>{1, 2, 0}}) {
      Tensor dense = gpu::contiguous_on_device(dev, d.transpose(perm));
      EXPECT_TRUE(dense.is_contiguous());
      EXPECT_TRUE(tensors_equal(dense.to(host_device()), host.transpose(perm).contiguous()));
    }
    // A view at an offset of its buffer (an element offset on OpenCL), transposed.
    const Tensor m = iota(dtype, {7, 13});
    const Tensor view = m.to(dev).view({12, 7}, {1, 13}, 1);
    EXPECT_TRUE(tensors_equal(gpu::contiguous_on_device(dev, view).to(host_device()),
                              m.view({12, 7}, {1, 13}, 1).contiguous()));
  }
  // Broadcast (stride 0) and a contiguous source (the API's own copy).
  const Tensor row = Tensor::from_vector<double>({1, 2, 3});
  Tensor out = Tensor::empty(DType::Float64, {4, 3}, dev);
  gpu::copy_strided(dev, row.to(dev).broadcast_to({4, 3}), out);
  EXPECT_TRUE(tensors_equal(out.to(host_device()), row.broadcast_to({4, 3}).contiguous()));
  const Tensor dense = iota(DType::Float32, {5, 3});
  Tensor copy = Tensor::empty(DType::Float32, {5, 3}, dev);
  gpu::copy_strided(dev, dense.to(dev), copy);
  EXPECT_TRUE(tensors_equal(copy.to(host_device()), dense));
}

TEST(GpuDeviceCopy, TensorCopyOfADeviceViewStaysOnTheDevice) {
  TGC_REQUIRE_GPU();
  gpu::GpuDevice& dev = gpu_test::device();
  const Tensor host = iota(DType::Float32, {6, 5});
  const Tensor view = host.to(dev).transpose({1, 0});
  Tensor out = Tensor::empty(DType::Float32, {5, 6}, dev);
  ASSERT_TRUE(dense_copy_on_device(view, out)) << "the GPU layer lent runtime/ no copy for " << dev.name();
  EXPECT_TRUE(tensors_equal(out.to(host_device()), host.transpose({1, 0}).contiguous()));
  const Tensor copy = view.copy();  // through the same copy
  EXPECT_EQ(&copy.device(), static_cast<Device*>(&dev));
  EXPECT_TRUE(copy.is_contiguous());
  EXPECT_TRUE(tensors_equal(copy.to(host_device()), host.transpose({1, 0}).contiguous()));
}

// astype of a device tensor converts on its device (the eager cast, lent to runtime/).
TEST(GpuDeviceCopy, AstypeOfADeviceTensorConvertsOnTheDevice) {
  TGC_REQUIRE_GPU();
  gpu::GpuDevice& dev = gpu_test::device();
  const Tensor host = Tensor::from_vector<float>({-2.5f, 0.0f, 1.75f, 300.0f}, {2, 2});
  const Tensor on_dev = host.to(dev);
  ASSERT_TRUE(device_cast(on_dev, DType::Float64).has_value()) << "no cast on " << dev.name();
  const Tensor d = on_dev.astype(DType::Float64);
  EXPECT_EQ(&d.device(), static_cast<Device*>(&dev));
  EXPECT_EQ(d.dtype(), DType::Float64);
  EXPECT_TRUE(tensors_equal(d.to(host_device()), host.astype(DType::Float64)));
  EXPECT_TRUE(tensors_equal(on_dev.transpose({1, 0}).astype(DType::Int32).to(host_device()),
                            host.transpose({1, 0}).astype(DType::Int32)));
}

TEST(GpuDeviceCopy, RanksBeyondTheKernelsGoThroughTheHost) {
  TGC_REQUIRE_GPU();
  gpu::GpuDevice& dev = gpu_test::device();
  const Shape shape{2, 2, 2, 2, 2, 2, 2, 2, 2, 2};  // 10 dims of 2: none dropped as size 1
  const Tensor host = iota(DType::Float32, shape);
  std::vector<int> perm(shape.size());
  std::iota(perm.rbegin(), perm.rend(), 0);
  const Tensor dense = gpu::contiguous_on_device(dev, host.to(dev).transpose(perm));
  EXPECT_TRUE(tensors_equal(dense.to(host_device()), host.transpose(perm).contiguous()));
}

TEST(GpuDeviceCopy, ByteCopiesAtEveryAlignment) {
  TGC_REQUIRE_GPU();
  gpu::GpuDevice& dev = gpu_test::device();
  const int64_t cap = 5000;
  const Tensor src_host = iota(DType::UInt8, {cap});
  const Tensor src = src_host.to(dev);
  // Both 16-byte aligned (the vector path), either not (bytes), and every tail length.
  for (int64_t from : {0, 3})
    for (int64_t off : {0, 1, 16})
      for (int64_t n : {1, 15, 16, 17, 4099}) {
        Tensor dst = Tensor::zeros(DType::UInt8, {cap}).to(dev);
        gpu::copy_bytes(dev, static_cast<char*>(dst.raw_data()) + off,
                        static_cast<const char*>(src.raw_data()) + from, static_cast<size_t>(n));
        const Tensor got = dst.to(host_device());
        int64_t bad = 0;
        for (int64_t i = 0; i < cap; ++i) {
          const uint8_t want = i >= off && i < off + n ? src_host.data<uint8_t>()[i - off + from] : 0;
          bad += got.data<uint8_t>()[i] != want;
        }
        EXPECT_EQ(bad, 0) << n << " bytes from offset " << from << " to offset " << off;
      }
}

}  // namespace
}  // namespace tgc
