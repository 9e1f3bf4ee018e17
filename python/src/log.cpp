// tgc's warnings as Python warnings. A sink (runtime/log.h) keeps each warning in a queue,
// without the GIL: a sink that took the GIL could wait on a Python thread that holds it while
// it waits for a lock of tgc's. The package drains the queue with warnings.warn
// (tgc.TgcWarning) right after the calls that may warn (function, grad), so the warning points
// at the user's line and warnings filters apply. Other messages (notes, compile logs,
// profiles) go to stderr as before.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "python/src/bindings.h"
#include "runtime/log.h"
#include "runtime/log_stderr.h"

namespace tgc::python {

namespace {

// At most this many warnings wait for Python (a loop that warns without ever draining keeps
// the newest).
constexpr size_t kQueueCap = 1000;

std::mutex g_mutex;
std::deque<std::string> g_queue;

void sink(LogKind kind, const std::string& text) {
  if (kind != LogKind::Warning) return write_log_to_stderr(kind, text);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_queue.size() == kQueueCap) g_queue.pop_front();
  g_queue.push_back(text);
}

}  // namespace

void bind_log(nb::module_& m) {
  m.def(
      "_route_warnings",
      [](bool on) { set_log_sink(on ? LogSink(sink) : LogSink{}); },
      nb::arg("on"),
      "Keep tgc's warnings for _take_warnings (on), or print them on stderr again (off).");
  m.def(
      "_take_warnings",
      [] {
        std::lock_guard<std::mutex> lock(g_mutex);
        std::vector<std::string> out(g_queue.begin(), g_queue.end());
        g_queue.clear();
        return out;
      },
      "The warnings kept since the last call, oldest first.");
}

}  // namespace tgc::python
