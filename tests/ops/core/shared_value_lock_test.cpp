// Shared-value locks: one per value with a fixed order, values made by make_shared_value
// carry theirs, and set_value_locked replaces the value without taking the lock.
#include "ops/core/shared_value_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace tgc {
namespace {

Tensor f64(std::vector<double> v) { return Tensor::from_vector(v); }

TEST(SharedValueLock, OneLockPerValueWithAFixedOrder) {
  std::shared_ptr<SharedValue> a = make_shared_value(f64({1}), "a", false);
  std::shared_ptr<SharedValue> b = make_shared_value(f64({2}), "b", false);
  SharedValueLock& la = lock_of(*a);
  EXPECT_EQ(&lock_of(*a), &la);
  EXPECT_NE(&lock_of(*b), &la);
  const uint64_t order = la.order;
  EXPECT_NE(lock_of(*b).order, order);
  EXPECT_EQ(lock_of(*a).order, order);
}

TEST(SharedValueLock, GetAndSetValueWaitForAnExclusiveHolder) {
  std::shared_ptr<SharedValue> v = make_shared_value(f64({1, 2}), "v", false);
  std::unique_lock<std::shared_mutex> held(lock_of(*v).mutex);
  std::atomic<bool> read{false};
  std::thread reader([&] {
    EXPECT_EQ(v->get_value().to_vector<double>(), (std::vector<double>{5, 6}));
    read = true;
  });
  // The holder replaces the value without taking the lock again; the reader sees the new
  // value only once the holder lets go.
  set_value_locked(*v, f64({5, 6}));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(read.load());
  held.unlock();
  reader.join();
  EXPECT_TRUE(read.load());
}

}  // namespace
}  // namespace tgc
