// LockPlan and SharedLocks: each variable once, exclusive where any use updates it, in the
// locks' order; a relock makes a planned read exclusive.
#include "frontend/api/shared_locks.h"

#include <gtest/gtest.h>

#include <thread>

namespace tgc {
namespace {

std::shared_ptr<SharedValue> value(const char* name) {
  return make_shared_value(Tensor::from_vector(std::vector<double>{0}), name, false);
}

// Whether another thread could take `v`'s lock shared right now.
bool readable_elsewhere(const SharedValue& v) {
  bool ok = false;
  std::thread([&] {
    ok = lock_of(v).mutex.try_lock_shared();
    if (ok) lock_of(v).mutex.unlock_shared();
  }).join();
  return ok;
}

TEST(LockPlan, EachVariableOnceInTheLocksOrderExclusiveWhereUpdated) {
  auto a = value("a"), b = value("b"), c = value("c");
  // Listed against the locks' order, b both read and updated.
  const LockPlan plan = make_lock_plan({c.get(), b.get(), a.get(), b.get()}, {b.get()});
  ASSERT_EQ(plan.size(), 3u);
  for (size_t i = 1; i < plan.size(); ++i) EXPECT_LT(plan[i - 1].lock->order, plan[i].lock->order);
  for (const LockPlanEntry& e : plan) EXPECT_EQ(e.exclusive, e.value == b.get()) << e.value->name();
}

TEST(SharedLocks, HoldsReadsSharedAndUpdatesExclusiveUntilReleased) {
  auto a = value("a"), b = value("b");
  const LockPlan plan = make_lock_plan({a.get()}, {b.get()});
  {
    SharedLocks locks(plan);
    EXPECT_TRUE(readable_elsewhere(*a));
    EXPECT_FALSE(readable_elsewhere(*b));
    EXPECT_FALSE(locks.holds_exclusive(a.get()));
    EXPECT_TRUE(locks.holds_exclusive(b.get()));
    locks.relock_exclusive({a.get()});
    EXPECT_FALSE(readable_elsewhere(*a));
    EXPECT_TRUE(locks.holds_exclusive(a.get()));
  }
  EXPECT_TRUE(readable_elsewhere(*a));
  EXPECT_TRUE(readable_elsewhere(*b));
}

}  // namespace
}  // namespace tgc
