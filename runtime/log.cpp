// The log sink: one process-wide function, replaced under a lock and called outside it (a
// sink may log again, or be replaced while another thread calls it).
#include "runtime/log.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>

#include "runtime/log_stderr.h"

namespace tgc {

namespace {

std::mutex g_mutex;
std::shared_ptr<const LogSink> g_sink;  // null: the default

}  // namespace

void write_log_to_stderr(LogKind kind, const std::string& text) {
  std::string line = kind == LogKind::Warning ? "tgc: warning: " + text : kind == LogKind::Note ? "tgc: " + text : text;
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);  // one write: lines of several threads do not interleave
  std::fflush(stderr);
}

const char* log_kind_name(LogKind kind) {
  switch (kind) {
    case LogKind::Warning: return "warning";
    case LogKind::Note: return "note";
    case LogKind::CompileLog: return "compile log";
    case LogKind::Profile: return "profile";
  }
  return "message";
}

LogSink set_log_sink(LogSink sink) {
  auto next = sink ? std::make_shared<const LogSink>(std::move(sink)) : nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  std::shared_ptr<const LogSink> previous = std::exchange(g_sink, std::move(next));
  return previous ? *previous : LogSink{};
}

void log_message(LogKind kind, const std::string& message) {
  std::string text = message;
  while (!text.empty() && text.back() == '\n') text.pop_back();  // the sink's text ends without one
  std::shared_ptr<const LogSink> sink;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    sink = g_sink;
  }
  if (!sink) return write_log_to_stderr(kind, text);
  try {
    (*sink)(kind, text);
  } catch (...) {
    // A sink's failure must not turn a warning into an error of the call that gave it.
  }
}

}  // namespace tgc
