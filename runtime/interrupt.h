// Interrupting compiles and calls (Ctrl-C in `tgc run` and in Python): request_interrupt()
// is safe in a signal handler and asks every compile and call running at that moment to stop
// at its next safe point, where check_interrupt() throws InterruptedError. Work begun later
// is not affected: each thread's outermost InterruptScope notes the request count it started
// at. A call stops only before it writes a shared variable in place (InterruptsHeld, taken by
// the executor), so an interrupted call leaves every variable as it was; device work already
// queued finishes on the device, and a wait for the device is not interrupted.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/error.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// A compile or call that stopped at a Ctrl-C. Python raises KeyboardInterrupt for it.
class InterruptedError : public Error { using Error::Error; };

// Async-signal-safe: one atomic increment.
void request_interrupt() noexcept;

// Marks the work of one compile or call on this thread. Nested scopes share the outermost's
// start; a thread with no scope open is never interrupted.
class InterruptScope {
 public:
  InterruptScope() noexcept;
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// While one lives on this thread, check_interrupt() does not throw: the work after it
// (in-place writes into shared variables) must run to its end.
class InterruptsHeld {
 public:
  InterruptsHeld() noexcept;
  ~InterruptsHeld();
  InterruptsHeld(const InterruptsHeld&) = delete;
  InterruptsHeld& operator=(const InterruptsHeld&) = delete;
};

// Whether this thread's work was asked to stop (and may stop here).
bool interrupt_pending() noexcept;

// Throws InterruptedError naming `doing` ("compiling f", "calling f") when interrupt_pending().
inline void check_interrupt(const char* doing) {
  if (interrupt_pending()) [[unlikely]]
    throw InterruptedError(std::string("interrupted (Ctrl-C) while ") + doing, "",
                           "nothing was changed: shared variables keep their values");
}

TGC_API_END
}  // namespace tgc
