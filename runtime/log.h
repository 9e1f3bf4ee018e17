// Where tgc's own messages go: warnings (a cache directory not used, a disconnected gradient,
// float64 in a float32 graph), notes (a program compiled again for new shared shapes), the
// compile log (log_compiles) and profiles (profile=true). By default each is written to
// standard error as `tgc` always printed them; an embedding program routes them elsewhere
// (its own logger, a GUI, a test's capture) with set_log_sink. Part of the public API
// (<tgc/tgc.h>).
#pragma once

#include <functional>
#include <string>

#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

enum class LogKind {
  Warning,     // something is not as the user asked or expects; the work goes on
  Note,        // tgc did something the user may want to know of (a recompile)
  CompileLog,  // log_compiles: a function's phases, kernel-cache misses
  Profile,     // profile=true: a function's profile, when the function ends
};

// "warning", "note", "compile log", "profile".
const char* log_kind_name(LogKind kind);

// Receives each message: its kind and its text (one or more lines, no trailing newline; a
// warning's text without the "tgc: warning: " the default sink puts before it). Called on
// the thread that produced the message, possibly from several threads at once; an exception
// it throws is dropped.
using LogSink = std::function<void(LogKind kind, const std::string& text)>;

// Makes `sink` receive every later message and returns the sink it replaces (null for the
// default). A null `sink` restores the default: standard error, "tgc: warning: <text>" for
// warnings, "tgc: <text>" for notes, compile logs and profiles as they are.
LogSink set_log_sink(LogSink sink);

// Sends one message to the current sink (trailing newlines of `text` dropped).
void log_message(LogKind kind, const std::string& text);

TGC_API_END
}  // namespace tgc
