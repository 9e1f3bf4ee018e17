// The registry of shared-value locks, by address. (The lock is not a member of SharedValue so
// that the value's class stays as it was; a lookup is paid by function() and by
// get_value/set_value, never by a call, which keeps the locks it found.)
#include "ops/core/shared_value_lock.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace tgc {

namespace {

std::mutex registry_mutex;
std::unordered_map<const SharedValue*, std::unique_ptr<SharedValueLock>>& registry() {
  // Leaked on purpose: a shared value may die while static destructors run.
  static auto* locks = new std::unordered_map<const SharedValue*, std::unique_ptr<SharedValueLock>>;
  return *locks;
}
std::atomic<uint64_t> next_order{1};

}  // namespace

SharedValueLock& lock_of(const SharedValue& value) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  std::unique_ptr<SharedValueLock>& l = registry()[&value];
  if (!l) {
    l = std::make_unique<SharedValueLock>();
    l->order = next_order++;
  }
  return *l;
}

std::shared_ptr<SharedValue> make_shared_value(const Tensor& value, std::string name, bool borrow) {
  return std::shared_ptr<SharedValue>(new SharedValue(value, std::move(name), borrow), [](SharedValue* v) {
    {
      std::lock_guard<std::mutex> lock(registry_mutex);
      registry().erase(v);
    }
    delete v;
  });
}

void set_value_locked(SharedValue& value, Tensor t) {
  // current() is the value itself; the const is for the executor's readers.
  const_cast<Tensor&>(value.current()) = std::move(t);
}

}  // namespace tgc
