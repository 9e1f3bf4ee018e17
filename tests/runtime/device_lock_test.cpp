// device_work_mutex gives one lock per device, the same on every call; copy_to_device_locked
// copies (never aliases) and takes no lock for a host-to-host copy.
#include "runtime/device_lock.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

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

}  // namespace
}  // namespace tgc
