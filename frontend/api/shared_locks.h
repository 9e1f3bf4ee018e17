// The shared-variable locks of a function's calls (docs/api.md#threads): which variables a call
// locks and how (a LockPlan, made once by function()), and the locks one call holds
// (SharedLocks), taken in the variables' global order so that calls of functions whose sets of
// variables overlap cannot deadlock.
#pragma once

#include <vector>

#include "ops/core/shared_value_lock.h"

namespace tgc {

struct LockPlanEntry {
  const SharedValue* value;
  SharedValueLock* lock;
  bool exclusive;  // the call may replace the value (an update; a move to the function's device)
};
using LockPlan = std::vector<LockPlanEntry>;  // in the locks' order, each value once

// The plan for a function that reads `read` and updates `updated` (a value may be in both).
LockPlan make_lock_plan(const std::vector<const SharedValue*>& read, const std::vector<const SharedValue*>& updated);

// The locks of one call, held from construction until release() or destruction.
class SharedLocks {
 public:
  explicit SharedLocks(const LockPlan& plan) : plan_(&plan) { acquire(); }
  ~SharedLocks() { release(); }
  SharedLocks(const SharedLocks&) = delete;
  SharedLocks& operator=(const SharedLocks&) = delete;

  bool holds_exclusive(const SharedValue* value) const;
  // Lets go of every lock, then takes them again with `values` exclusive: for a call that
  // found it must replace a value it planned only to read. What the call read before must
  // be read again.
  void relock_exclusive(const std::vector<const SharedValue*>& values);
  void release();

 private:
  void acquire();
  const LockPlan* plan_;
  LockPlan upgraded_;  // the plan after relock_exclusive (plan_ points to it)
  bool held_ = false;
};

}  // namespace tgc
