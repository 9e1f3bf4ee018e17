// The request count and each thread's view of it (runtime/interrupt.h).
#include "runtime/interrupt.h"

#include <atomic>

namespace tgc {
namespace {

// Lock-free so that the signal handler's increment is async-signal-safe.
std::atomic<uint64_t> g_requests{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free);

thread_local int t_scopes = 0;       // InterruptScopes open on this thread
thread_local uint64_t t_start = 0;   // g_requests when the outermost one opened
thread_local int t_held = 0;         // InterruptsHeld alive on this thread

}  // namespace

void request_interrupt() noexcept { g_requests.fetch_add(1, std::memory_order_relaxed); }

InterruptScope::InterruptScope() noexcept {
  if (t_scopes++ == 0) t_start = g_requests.load(std::memory_order_relaxed);
}

InterruptScope::~InterruptScope() { --t_scopes; }

InterruptsHeld::InterruptsHeld() noexcept { ++t_held; }

InterruptsHeld::~InterruptsHeld() { --t_held; }

bool interrupt_pending() noexcept {
  return t_scopes > 0 && t_held == 0 && g_requests.load(std::memory_order_relaxed) != t_start;
}

}  // namespace tgc
