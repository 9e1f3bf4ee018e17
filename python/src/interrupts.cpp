// Ctrl-C during a compile or a call made from Python (docs/python.md "Ctrl-C"). Python's own
// SIGINT handler only notes the signal, and Python acts on it when the interpreter runs
// again: not while tgc compiles or runs a call with the GIL released. So the module puts a
// handler of its own in front of Python's: it asks tgc's work in progress to stop
// (request_interrupt, runtime/interrupt.h) and then runs Python's handler, which raises
// KeyboardInterrupt once the call returns (errors.cpp turns the InterruptedError into it).
#include <csignal>

#include "python/src/bindings.h"

namespace tgc::python {
namespace {

struct sigaction g_python_handler {};  // what SIGINT did when the module was imported

extern "C" void on_sigint(int sig, siginfo_t* info, void* context) {
  request_interrupt();
  if (g_python_handler.sa_flags & SA_SIGINFO)
    g_python_handler.sa_sigaction(sig, info, context);
  else
    g_python_handler.sa_handler(sig);
}

}  // namespace

void bind_interrupts(nb::module_& m) {
  m.def("_request_interrupt", &request_interrupt,
        "Asks the compiles and calls running now to stop, as Ctrl-C does (for tests).");
  // Only in front of a handler: SIGINT ignored or left to its default (Python embedded
  // without its signal handlers) stays as it is. A later signal.signal(SIGINT, ...) replaces
  // this handler: Ctrl-C then waits for the call to end, as before.
  struct sigaction previous {};
  if (sigaction(SIGINT, nullptr, &previous) != 0) return;
  const bool is_handler = (previous.sa_flags & SA_SIGINFO) ||
                          (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN);
  if (!is_handler) return;
  g_python_handler = previous;
  struct sigaction ours = previous;
  ours.sa_flags |= SA_SIGINFO;
  ours.sa_sigaction = on_sigint;
  sigaction(SIGINT, &ours, nullptr);
}

}  // namespace tgc::python
