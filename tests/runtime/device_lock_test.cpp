// device_work_mutex gives one lock per device, the same on every call; copy_to_device_locked
// copies (never aliases) and takes no lock for a host-to-host copy.
#include "runtime/device_lock.h"

#include <gtest/gtest.h>

#include <thread>

namespace tgc {
namespace {

TEST(DeviceLock, OneMutexPerDeviceForTheProcess) {
  std::mutex* a = &device_work_mutex(host_device());
  std::mutex* b = nullptr;
  std::thread([&] { b = &device_work_mutex(host_device()); }).join();
  EXPECT_EQ(a, b);
}

TEST(DeviceLock, AHostCopyTakesNoLockAndDoesNotAlias) {
  Tensor t = Tensor::from_vector(std::vector<double>{1, 2, 3});
  std::lock_guard<std::mutex> held(device_work_mutex(host_device()));  // would deadlock if taken
  Tensor c = copy_to_device_locked(t, host_device());
  EXPECT_FALSE(c.shares_buffer(t));
  EXPECT_EQ(c.to_vector<double>(), (std::vector<double>{1, 2, 3}));
}

}  // namespace
}  // namespace tgc
