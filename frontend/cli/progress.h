// Progress on a terminal: a long `tgc run --iters N` loop shows how far it is, and a .tg file
// whose functions take more than a second to compile shows the time so far, each on one line
// of stderr redrawn in place and cleared when done. Nothing is printed when stderr is not a
// terminal (a log file, a pipe, a test), so scripts see the same output as before.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace tgc::cli {

// Whether progress may be drawn: stderr is a terminal.
bool progress_allowed();

// "call 1200 of 5000 (24%), 2.5 s, 2.1 ms per call, about 8 s left".
std::string calls_progress_line(long done, long total, double elapsed_s);
// "compiling train.tg: 3.4 s".
std::string compile_progress_line(const std::string& what, double elapsed_s);

// The --iters loop's line: shown once the loop has run `delay_s`, redrawn at most every
// quarter second.
class CallsProgress {
 public:
  explicit CallsProgress(long total, double delay_s = 2.0);
  ~CallsProgress() { finish(); }
  CallsProgress(const CallsProgress&) = delete;
  CallsProgress& operator=(const CallsProgress&) = delete;
  void done(long calls);  // after each call
  void finish();          // clears the line (before the results are printed)

 private:
  long total_;
  double delay_s_;
  bool enabled_, shown_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// While it lives, a thread shows the compile's time after `delay_s` (the work itself runs on
// the caller's thread, which is busy compiling).
class CompileProgress {
 public:
  explicit CompileProgress(std::string what, double delay_s = 1.0);
  ~CompileProgress();  // stops the thread, clears the line
  CompileProgress(const CompileProgress&) = delete;
  CompileProgress& operator=(const CompileProgress&) = delete;

 private:
  std::string what_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false, shown_ = false;
  std::thread thread_;
};

}  // namespace tgc::cli
