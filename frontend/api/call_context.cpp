// CallContextPool: the first context without a lock, the others from a list under one.
#include "frontend/api/call_context.h"

namespace tgc {

CallContextPool::CallContextPool(const Program& program) : program_(program) { first_ = std::move(*make()); }

std::unique_ptr<CallContext> CallContextPool::make() const {
  auto c = std::make_unique<CallContext>();
  c->slots.assign(program_.num_slots, Tensor());
  for (const auto& [slot, value] : program_.constants) c->slots[slot] = value;
  return c;
}

CallContext* CallContextPool::take() {
  if (!first_taken_.exchange(true, std::memory_order_acquire)) return &first_;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!idle_.empty()) {
    CallContext* c = idle_.back();
    idle_.pop_back();
    return c;
  }
  more_.push_back(make());
  return more_.back().get();
}

void CallContextPool::give_back(CallContext* context) {
  if (context == &first_) {
    first_taken_.store(false, std::memory_order_release);
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(context);
}

}  // namespace tgc
