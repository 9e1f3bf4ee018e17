// Progress lines on stderr when it is a terminal (progress.h).
#include "frontend/cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace tgc::cli {

namespace {

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// "850 ms", "2.5 s", "3 min 20 s".
std::string duration_text(double s) {
  if (s < 1) return fmt::format("{:.0f} ms", s * 1e3);
  if (s < 60) return fmt::format("{:.1f} s", s);
  if (s < 3600) return fmt::format("{} min {} s", static_cast<long>(s) / 60, static_cast<long>(s) % 60);
  return fmt::format("{} h {} min", static_cast<long>(s) / 3600, static_cast<long>(s) % 3600 / 60);
}

// Redraws the line in place: carriage return, the text, then clear to the line's end.
void draw(const std::string& text) {
  std::fputs(("\r" + text + "\033[K").c_str(), stderr);
  std::fflush(stderr);
}
void clear_line() {
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
}

}  // namespace

bool progress_allowed() { return ::isatty(STDERR_FILENO) == 1; }

std::string calls_progress_line(long done, long total, double elapsed_s) {
  std::string line = fmt::format("call {} of {} ({}%), {}", done, total, total ? done * 100 / total : 0,
                                 duration_text(elapsed_s));
  if (done > 0) {
    const double per_call = elapsed_s / static_cast<double>(done);
    line += fmt::format(", {} per call", per_call < 1e-3 ? fmt::format("{:.1f} us", per_call * 1e6)
                                         : per_call < 1  ? fmt::format("{:.1f} ms", per_call * 1e3)
                                                         : duration_text(per_call));
    if (done < total) line += ", about " + duration_text(per_call * static_cast<double>(total - done)) + " left";
  }
  return line;
}

std::string compile_progress_line(const std::string& what, double elapsed_s) {
  return fmt::format("compiling {}: {}", what, duration_text(elapsed_s));
}

CallsProgress::CallsProgress(long total, double delay_s)
    : total_(total), delay_s_(delay_s), enabled_(progress_allowed() && total > 1),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

void CallsProgress::finish() {
  if (shown_) clear_line();
  shown_ = false;
  enabled_ = false;
}

void CallsProgress::done(long calls) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = seconds_between(start_, now);
  if (elapsed < delay_s_ || (shown_ && seconds_between(last_draw_, now) < 0.25)) return;
  draw(calls_progress_line(calls, total_, elapsed));
  shown_ = true;
  last_draw_ = now;
}

CompileProgress::CompileProgress(std::string what, double delay_s) : what_(std::move(what)) {
  if (!progress_allowed()) return;
  thread_ = std::thread([this, delay_s] {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    if (stop_cv_.wait_for(lock, std::chrono::duration<double>(delay_s), [this] { return stop_; })) return;
    do {
      draw(compile_progress_line(what_, seconds_between(start, std::chrono::steady_clock::now())));
      shown_ = true;
    } while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; }));
  });
}

CompileProgress::~CompileProgress() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
  if (shown_) clear_line();
}

}  // namespace tgc::cli
