// OpenCLDevice on whatever OpenCL device is here (PoCL in CI, label opencl): fake addresses
// resolve to (buffer, offset), the caching allocator creates no buffer in steady state,
// copies round-trip at every size, timers measure, errors name the call and the status, and
// the device listing and selection say what they found. Strided views: tests/backends/gpu.
#include "backends/opencl/opencl_device.h"

#include <gtest/gtest.h>

#include "backends/opencl/cl_error.h"
#include "backends/opencl/opencl_backend.h"
#include "opencl_test_util.h"

namespace tgc {
namespace {

using opencl::OpenCLDevice;

Tensor floats(int64_t n, float scale = 0.5f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i % 1009) * scale - 3.0f;
  return Tensor::from_vector(v, {n});
}

TEST(OpenCLDevice, AddressesInsideAnAllocationResolveToItsBufferAndOffset) {
  TGC_REQUIRE_OPENCL();
  OpenCLDevice& dev = opencl::opencl_device(-1, 0);
  char* a = static_cast<char*>(dev.allocate(1000, dev.default_stream()));
  char* b = static_cast<char*>(dev.allocate(1000, dev.default_stream()));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 256, 0u);
  const opencl::BufferRef ra = dev.resolve(a + 40), rb = dev.resolve(b);
  EXPECT_NE(ra.mem, rb.mem);
  EXPECT_EQ(ra.offset, 40u);
  EXPECT_EQ(rb.offset, 0u);
  EXPECT_EQ(dev.resolve(nullptr).mem, nullptr);
  dev.deallocate(a, 1000, dev.default_stream());
  dev.deallocate(b, 1000, dev.default_stream());
  // A freed address is no longer this device's memory.
  EXPECT_THROW(dev.resolve(a + 40), InternalError);
}

TEST(OpenCLDevice, CachingAllocatorCreatesNoBufferInSteadyState) {
  TGC_REQUIRE_OPENCL();
  OpenCLDevice& dev = opencl::opencl_device(-1, 0);
  auto one_call = [&] {
    Tensor a = Tensor::empty(DType::Float32, {1 << 16}, dev);
    Tensor b = Tensor::empty(DType::Float64, {3, 100, 7}, dev);
    void* scratch = dev.allocate(12345, dev.default_stream());
    dev.deallocate(scratch, 12345, dev.default_stream());
  };
  one_call();
  const size_t created = dev.buffers_created();
  for (int i = 0; i < 100; ++i) one_call();
  EXPECT_EQ(dev.buffers_created(), created) << "steady-state calls created cl_mem buffers";
}

TEST(OpenCLDevice, CopiesRoundTripAtEverySize) {
  TGC_REQUIRE_OPENCL();
  OpenCLDevice& dev = opencl::opencl_device(-1, 0);
  // 0, small (staged asynchronous write) and large (blocking write) copies.
  for (int64_t n : {int64_t{0}, int64_t{1001}, int64_t{(5 << 20) / 4 + 3}}) {
    Tensor host = floats(n);
    Tensor on_dev = host.to(dev);
    EXPECT_TRUE(tensors_equal(on_dev.to(host_device()), host)) << n << " floats";
  }
}

TEST(OpenCLDevice, TimerMeasuresWorkOnTheQueue) {
  TGC_REQUIRE_OPENCL();
  OpenCLDevice& dev = opencl::opencl_device(-1, 0);
  Tensor big = floats(1 << 20).to(dev);
  Tensor copy = Tensor::empty(DType::Float32, {1 << 20}, dev);
  std::unique_ptr<DeviceTimer> timer = dev.make_timer();
  ASSERT_NE(timer, nullptr);
  timer->start(dev.default_stream());
  dev.copy_on_device(copy.raw_data(), big.raw_data(), big.nbytes(), dev.default_stream());
  timer->stop(dev.default_stream());
  dev.synchronize();
  std::optional<double> s = timer->elapsed_seconds();
  ASSERT_TRUE(s.has_value()) << "the timer is not done after a synchronize";
  EXPECT_GE(*s, 0.0);
  EXPECT_LT(*s, 10.0);
}

TEST(OpenCLDevice, FailedCallsNameTheCallTheNodeAndTheStatus) {
  EXPECT_EQ(opencl::cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(opencl::cl_error_name(-12345), "OpenCL error -12345");
  try {
    opencl::throw_cl_error(CL_INVALID_WORK_GROUP_SIZE, "clEnqueueNDRangeKernel(q, k, 1, ...)", "c = add(a, b)");
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    const std::string what = e.what_part();
    EXPECT_NE(what.find("clEnqueueNDRangeKernel failed (CL_INVALID_WORK_GROUP_SIZE)"), std::string::npos) << what;
    EXPECT_NE(what.find("node 'c = add(a, b)'"), std::string::npos) << what;
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(OpenCLDevice, ListingAndSelectionNameEveryDevice) {
  const std::string listing = opencl_devices_description();
  EXPECT_EQ(listing.rfind("opencl", 0), 0u) << listing;
  if (!opencl::opencl_status().available) {
    EXPECT_NE(listing.find("unavailable"), std::string::npos) << listing;
    GTEST_SKIP() << "no OpenCL device: " << opencl::opencl_status().reason;
  }
  const opencl::OpenCLDeviceInfo& first = opencl::opencl_status().devices.at(0);
  EXPECT_NE(listing.find(first.spec() + " "), std::string::npos) << listing;
  EXPECT_NE(listing.find(first.device_name), std::string::npos) << listing;
  EXPECT_NE(listing.find(first.platform_name), std::string::npos) << listing;
  Var x = vector("x");
  EXPECT_THROW(function({x}, {x + 1.0}, {}, opencl_test::on("opencl:99:0")), ConfigError);
  EXPECT_THROW(function({x}, {x + 1.0}, {}, opencl_test::on("opencl:0")), ConfigError);
  opencl_test::expect_opencl_matches_cpu({x}, {x + 1.0}, {floats(5)}, 0, 0);
  Function f = function({x}, {x + 1.0}, {}, opencl_test::on(first.spec()));
  Function cpu = function({x}, {x + 1.0}, {}, opencl_test::on("cpu"));
  EXPECT_TRUE(tensors_equal(f({floats(5)})[0], cpu({floats(5)})[0]));
}

}  // namespace
}  // namespace tgc
