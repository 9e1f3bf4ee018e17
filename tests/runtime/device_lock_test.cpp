// device_work_mutex gives one lock per device, the same on every call; copy_to_device_locked
// copies (never aliases) and takes no lock for a host-to-host copy; a device Tensor's copies and
// waits outside a call take the device's lock (so they wait for a call, a recording, that holds
// it) and take none inside one; a dense device copy stays on the device.
#include "runtime/device_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "support/host_memory_device.h"

namespace tgc {
namespace {

TEST(DeviceLock, OneMutexPerDeviceForTheProcess) {
  DeviceWorkMutex* a = &device_work_mutex(host_device());
  DeviceWorkMutex* b = nullptr;
  std::thread([&] { b = &device_work_mutex(host_device()); }).join();
  EXPECT_EQ(a, b);
}

// Callers get the device in the order they asked: a thread that releases it and asks again
// queues behind the threads already waiting (a plain mutex let it barge in again at once).
TEST(DeviceLock, WaitersGetTheLockInTheOrderTheyAsked) {
  DeviceWorkMutex m;
  std::vector<int> order;
  m.lock();
  auto wait_for = [&](uint64_t n) {
    while (m.holders_and_waiters() != n) std::this_thread::yield();
  };
  std::thread first([&] {
    std::lock_guard<DeviceWorkMutex> l(m);
    order.push_back(1);
  });
  wait_for(2);
  std::thread second([&] {
    std::lock_guard<DeviceWorkMutex> l(m);
    order.push_back(2);
  });
  wait_for(3);
  m.unlock();
  m.lock();  // behind both
  order.push_back(0);
  m.unlock();
  first.join();
  second.join();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 0}));
}

TEST(DeviceLock, AHostCopyTakesNoLockAndDoesNotAlias) {
  Tensor t = Tensor::from_vector(std::vector<double>{1, 2, 3});
  std::lock_guard<DeviceWorkMutex> held(device_work_mutex(host_device()));  // would deadlock if taken
  Tensor c = copy_to_device_locked(t, host_device());
  EXPECT_FALSE(c.shares_buffer(t));
  EXPECT_EQ(c.to_vector<double>(), (std::vector<double>{1, 2, 3}));
}

// While another thread holds the device (a call recording a CUDA graph), a device Tensor's
// copy to the host waits for it instead of landing in the recording.
TEST(DeviceLock, ADeviceTensorsCopiesOutsideCallsWaitForTheDevice) {
  test::HostMemoryDevice dev;
  const Tensor t = Tensor::from_vector(std::vector<double>{1, 2, 3}).to(dev);
  std::atomic<bool> done{false};
  device_work_mutex(dev).lock();  // as a call on another thread holds it
  std::thread reader([&] {
    EXPECT_EQ(t.to_host().to_vector<double>(), (std::vector<double>{1, 2, 3}));
    t.sync();
    EXPECT_EQ(t.copy().astype(DType::Float32).to_vector<float>(), (std::vector<float>{1, 2, 3}));
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(done.load()) << "the copy ran while another thread held the device";
  device_work_mutex(dev).unlock();
  reader.join();
  EXPECT_TRUE(done.load());
}

// Inside a call (this thread holds the device's lock) the same copies take no second lock:
// the lock is not recursive, so taking it would hang.
TEST(DeviceLock, InsideACallTensorCopiesTakeNoSecondLock) {
  test::HostMemoryDevice dev;
  std::lock_guard<DeviceWorkMutex> call(device_work_mutex(dev));
  const Tensor t = Tensor::from_vector(std::vector<double>{4, 5}).to(dev);
  EXPECT_EQ(t.copy().to_host().to_vector<double>(), (std::vector<double>{4, 5}));
  t.sync();
}

TEST(DeviceLock, ADenseDeviceCopyStaysOnTheDevice) {
  test::HostMemoryDevice dev;
  const Tensor t = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}).to(dev);
  const int to_host = dev.to_host, on_device = dev.on_device;
  const Tensor c = t.copy();
  const Tensor same = t.astype(DType::Float32);
  EXPECT_EQ(dev.to_host - to_host, 0) << "a dense device copy went through the host";
  EXPECT_EQ(dev.on_device - on_device, 2);
  EXPECT_FALSE(c.shares_buffer(t));
  EXPECT_EQ(&c.device(), static_cast<Device*>(&dev));
  EXPECT_EQ(c.to_vector<float>(), t.to_vector<float>());
  EXPECT_EQ(same.to_vector<float>(), t.to_vector<float>());
}

}  // namespace
}  // namespace tgc
