// The lock of a shared variable's value (docs/api.md#threads). A call holds the locks of the
// shared variables it reads (shared) and updates (exclusive) from binding them to applying its
// updates, taken in one global order, so that no update is lost, a call reads one version of
// each variable, and functions whose variables overlap cannot deadlock. get_value() and
// set_value() take the same lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>

#include "ops/core/variable.h"

namespace tgc {

struct SharedValueLock {
  std::shared_mutex mutex;
  uint64_t order = 0;  // locks are taken in increasing order
  // Counts the writes of the value (set_value, a call's updates): a function that keeps copies
  // of it on other devices (data_parallel.devices) refreshes them when it moved.
  std::atomic<uint64_t> version{0};
};

// The lock of `value`, made on first use. The values that shared() makes drop theirs when they
// die (make_shared_value); one made otherwise keeps it for the process.
SharedValueLock& lock_of(const SharedValue& value);

// A new shared value whose lock goes with it.
std::shared_ptr<SharedValue> make_shared_value(const Tensor& value, std::string name, bool borrow);

// Replaces the value of `value` without taking its lock: for a call that holds it exclusively
// (set_value() would take it again). The dtype and rank are the variable's (the compiler
// checked the update's type).
void set_value_locked(SharedValue& value, Tensor t);

}  // namespace tgc
