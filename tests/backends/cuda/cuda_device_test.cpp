// CudaDevice on a real GPU (label gpu): the pool allocator reaches a steady state and hands
// out whole multiples of 16 bytes, copies round-trip through the staging ring and pinned
// memory, small copies run as the copy kernel, timers measure without waiting. Strided
// views: tests/backends/gpu.
#include "backends/cuda/cuda_device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/pinned_host_memory.h"
#include "cuda_test_util.h"

namespace tgc {
namespace {

using cuda::CudaDevice;

std::vector<float> iota_floats(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 100003) * 0.5f - 7.0f;
  return v;
}

TEST(CudaDevice, PoolAllocatorAllocatesNothingNewInSteadyState) {
  TGC_REQUIRE_CUDA();
  CudaDevice& dev = cuda::cuda_device(0);
  auto one_call = [&] {
    // What a call of a function does: a few intermediates of fixed sizes, freed in stream order.
    Tensor a = Tensor::empty(DType::Float32, {1 << 18}, dev);
    Tensor b = Tensor::empty(DType::Float64, {3, 1000, 7}, dev);
    void* scratch = dev.allocate(12345, dev.default_stream());
    dev.deallocate(scratch, 12345, dev.default_stream());
  };
  one_call();
  dev.synchronize();
  const size_t reserved = dev.pool_reserved_bytes();
  const size_t high = dev.pool_reserved_high();
  EXPECT_GT(reserved, 0u) << "the pool should keep the freed memory cached (release threshold)";
  for (int i = 0; i < 200; ++i) one_call();
  dev.synchronize();
  EXPECT_EQ(dev.pool_reserved_bytes(), reserved) << "the pool reserved more memory in steady state";
  EXPECT_EQ(dev.pool_reserved_high(), high) << "the pool's high-water mark grew in steady state";
}

TEST(CudaDevice, BlocksAreWholeMultiplesOf16Bytes) {
  TGC_REQUIRE_CUDA();
  // NCCL reads a buffer's last bytes as whole words (cuda_device.cpp): a 1-byte block is 16
  // bytes, so a freed 1-byte block serves the next request of up to 16 bytes.
  CudaDevice& dev = cuda::cuda_device(0);
  void* one = dev.allocate(1, dev.default_stream());
  dev.deallocate(one, 1, dev.default_stream());
  void* sixteen = dev.allocate(16, dev.default_stream());
  EXPECT_EQ(sixteen, one) << "the 1-byte block was not a 16-byte one";
  dev.deallocate(sixteen, 16, dev.default_stream());
  void* seventeen = dev.allocate(17, dev.default_stream());
  EXPECT_NE(seventeen, one) << "17 bytes need a 32-byte block";
  dev.deallocate(seventeen, 17, dev.default_stream());
  dev.synchronize();
}

TEST(CudaDevice, CopiesRoundTripAtEverySize) {
  TGC_REQUIRE_CUDA();
  CudaDevice& dev = cuda::cuda_device(0);
  // 0, tiny, one staging chunk, and more chunks than the ring holds (8 MiB x 4).
  for (size_t n : {size_t{0}, size_t{1}, size_t{1001}, size_t{2u << 20}, size_t{(40u << 20) / 4 + 3}}) {
    Tensor host = Tensor::from_vector(iota_floats(n), {static_cast<int64_t>(n)});
    Tensor on_dev = host.to(dev);
    EXPECT_EQ(&on_dev.device(), &dev);
    Tensor back = on_dev.to(host_device());
    EXPECT_TRUE(tensors_equal(back, host)) << n << " floats: " << cuda_test::diff_report(back, host);
    // Device to device, then back into pinned memory.
    Tensor copy = Tensor::empty(DType::Float32, {static_cast<int64_t>(n)}, dev);
    dev.copy_on_device(copy.raw_data(), on_dev.raw_data(), on_dev.nbytes(), dev.default_stream());
    Tensor pinned = Tensor::empty(DType::Float32, {static_cast<int64_t>(n)}, cuda::pinned_host_memory());
    dev.copy_to_host(pinned.raw_data(), copy.raw_data(), copy.nbytes(), dev.default_stream());
    dev.synchronize();
    EXPECT_TRUE(tensors_equal(pinned, host)) << n << " floats through pinned memory";
  }
}

// Small copies run as tgc's copy kernel (copy_bytes): every alignment and length around its
// 16-byte path and the size limit, device to device and into pinned memory, and nothing
// written outside the range.
TEST(CudaDevice, SmallCopiesByKernelAtAnyOffsetAndLength) {
  TGC_REQUIRE_CUDA();
  CudaDevice& dev = cuda::cuda_device(0);
  const size_t cap = cuda::kKernelCopyMaxBytes + 64;
  std::vector<unsigned char> pattern(cap);
  for (size_t i = 0; i < cap; ++i) pattern[i] = static_cast<unsigned char>(i * 7 + 3);
  Tensor src = Tensor::from_vector(std::vector<uint8_t>(pattern.begin(), pattern.end()), {static_cast<int64_t>(cap)}).to(dev);
  Tensor dst = Tensor::empty(DType::UInt8, {static_cast<int64_t>(cap)}, dev);
  Tensor pinned = Tensor::empty(DType::UInt8, {static_cast<int64_t>(cap)}, cuda::pinned_host_memory());
  auto* src_p = static_cast<unsigned char*>(src.raw_data());
  auto* dst_p = static_cast<unsigned char*>(dst.raw_data());
  auto* pin_p = static_cast<unsigned char*>(pinned.raw_data());
  for (size_t off : {size_t{0}, size_t{1}, size_t{15}, size_t{16}})
    for (size_t n : {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{4099}, cuda::kKernelCopyMaxBytes,
                     cuda::kKernelCopyMaxBytes + 1}) {
      std::memset(pin_p, 0xEE, cap);
      dev.copy_from_host(dst_p, pin_p, cap, dev.default_stream());
      dev.copy_on_device(dst_p + off, src_p + off, n, dev.default_stream());
      dev.copy_to_host(pin_p + off, dst_p + off, n, dev.default_stream());
      dev.synchronize();
      size_t bad = 0;
      for (size_t i = 0; i < cap; ++i) {
        const bool inside = i >= off && i < off + n;
        bad += pin_p[i] != (inside ? pattern[i] : 0xEE);
      }
      EXPECT_EQ(bad, 0u) << n << " bytes at offset " << off;
    }
}

TEST(CudaDevice, TimerMeasuresDeviceTimeWithoutWaiting) {
  TGC_REQUIRE_CUDA();
  CudaDevice& dev = cuda::cuda_device(0);
  std::unique_ptr<DeviceTimer> timer = dev.make_timer();
  ASSERT_NE(timer, nullptr);
  EXPECT_EQ(timer->elapsed_seconds(), std::nullopt) << "no time before stop()";
  Tensor a = Tensor::empty(DType::Float32, {64 << 20}, dev);
  Tensor b = Tensor::empty(DType::Float32, {64 << 20}, dev);
  timer->start(dev.default_stream());
  for (int i = 0; i < 4; ++i) dev.copy_on_device(b.raw_data(), a.raw_data(), a.nbytes(), dev.default_stream());
  timer->stop(dev.default_stream());
  dev.synchronize();
  std::optional<double> s = timer->elapsed_seconds();
  ASSERT_TRUE(s.has_value()) << "the stream was synchronised, so the stop event has passed";
  EXPECT_GT(*s, 0.0);
  EXPECT_LT(*s, 5.0);
}

TEST(CudaDevice, BackendNamesTheDevice) {
  TGC_REQUIRE_CUDA();
  std::unique_ptr<Backend> b = make_cuda_backend(Config{}, 0);
  ASSERT_NE(b->device(), nullptr);
  EXPECT_EQ(b->device()->name(), "cuda:0");
  EXPECT_EQ(b->device_kind(), DeviceKind::Cuda);
  EXPECT_THROW(make_cuda_backend(Config{}, 1000), ConfigError);
  EXPECT_NE(cuda_devices_description().find("cuda:0   available"), std::string::npos);
}

TEST(CudaDevice, SyncRaisesNothingWhenAllIsWell) {
  TGC_REQUIRE_CUDA();
  CudaDevice& dev = cuda::cuda_device(0);
  dev.note_launch("a = exp(x)");
  EXPECT_NO_THROW(dev.synchronize());
}

}  // namespace
}  // namespace tgc
