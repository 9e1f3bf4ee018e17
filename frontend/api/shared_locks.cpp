// LockPlan and SharedLocks.
#include "frontend/api/shared_locks.h"

#include <algorithm>

namespace tgc {

LockPlan make_lock_plan(const std::vector<const SharedValue*>& read, const std::vector<const SharedValue*>& updated) {
  LockPlan plan;
  auto add = [&](const SharedValue* v, bool exclusive) {
    for (LockPlanEntry& e : plan)
      if (e.value == v) {
        e.exclusive = e.exclusive || exclusive;
        return;
      }
    plan.push_back({v, &lock_of(*v), exclusive});
  };
  for (const SharedValue* v : updated) add(v, true);
  for (const SharedValue* v : read) add(v, false);
  std::sort(plan.begin(), plan.end(),
            [](const LockPlanEntry& a, const LockPlanEntry& b) { return a.lock->order < b.lock->order; });
  return plan;
}

void SharedLocks::acquire() {
  for (const LockPlanEntry& e : *plan_) {
    if (e.exclusive) e.lock->mutex.lock();
    else e.lock->mutex.lock_shared();
  }
  held_ = true;
}

void SharedLocks::release() {
  if (!held_) return;
  for (auto it = plan_->rbegin(); it != plan_->rend(); ++it) {
    if (it->exclusive) it->lock->mutex.unlock();
    else it->lock->mutex.unlock_shared();
  }
  held_ = false;
}

bool SharedLocks::holds_exclusive(const SharedValue* value) const {
  for (const LockPlanEntry& e : *plan_)
    if (e.value == value) return held_ && e.exclusive;
  return false;
}

void SharedLocks::relock_exclusive(const std::vector<const SharedValue*>& values) {
  release();
  LockPlan plan = *plan_;
  for (LockPlanEntry& e : plan)
    if (std::find(values.begin(), values.end(), e.value) != values.end()) e.exclusive = true;
  upgraded_ = std::move(plan);
  plan_ = &upgraded_;
  acquire();
}

}  // namespace tgc
