// How the tgc command reports a failure: user errors (a .tg source error, any tgc::Error,
// a bad flag) exit with code 2, tgc's own bugs with code 1; never a raw C++ exception.
#pragma once

namespace tgc::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitUserError = 2;
// Stopped by Ctrl-C (SIGINT), after printing what was measured if anything was: 128 + SIGINT,
// as a shell reports it.
inline constexpr int kExitInterrupted = 130;

// Flushes stdout; IOError when the output could not be written (a full disk, a closed pipe
// is left to SIGPIPE), so that a failed write is not a silent success.
void finish_stdout();

// Call inside a catch block: prints the exception in flight to stderr, as the user should
// read it, and returns the exit code.
int report_current_exception();

}  // namespace tgc::cli
