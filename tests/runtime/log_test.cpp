// The log sink (runtime/log.h): the default writes each message to stderr with its prefix;
// a sink set in its place receives every kind with its text, a throwing sink is dropped, and
// setting null restores the default. Messages from the library itself (a cache directory that
// cannot be used) reach the sink.
#include "runtime/log.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/kernel_cache.h"

namespace tgc {
namespace {

// Records every message while it lives; the previous sink comes back when it ends.
class Recorder {
 public:
  Recorder() {
    previous_ = set_log_sink([this](LogKind kind, const std::string& text) { seen.emplace_back(kind, text); });
  }
  ~Recorder() { set_log_sink(std::move(previous_)); }
  std::vector<std::pair<LogKind, std::string>> seen;

 private:
  LogSink previous_;
};

TEST(LogSink, TheDefaultWritesToStderrWithEachKindsPrefix) {
  ::testing::internal::CaptureStderr();
  log_message(LogKind::Warning, "the cache is not used");
  log_message(LogKind::Note, "f: compiling program 2\n");
  log_message(LogKind::CompileLog, "tgc: compile 'f': 1.0 ms");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "tgc: warning: the cache is not used\ntgc: f: compiling program 2\ntgc: compile 'f': 1.0 ms\n");
}

TEST(LogSink, ASinkReceivesKindAndTextAndNullRestoresTheDefault) {
  {
    Recorder r;
    ::testing::internal::CaptureStderr();
    log_message(LogKind::Warning, "w");
    log_message(LogKind::Profile, "Function profiling\n===\n");
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "a sink replaces stderr";
    ASSERT_EQ(r.seen.size(), 2u);
    EXPECT_EQ(r.seen[0], std::pair(LogKind::Warning, std::string("w")));
    EXPECT_EQ(r.seen[1], std::pair(LogKind::Profile, std::string("Function profiling\n===")))
        << "trailing newlines are dropped";
  }
  ::testing::internal::CaptureStderr();
  log_message(LogKind::Warning, "back");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "tgc: warning: back\n");
}

TEST(LogSink, SettingReturnsThePreviousSink) {
  int first = 0, second = 0;
  LogSink before = set_log_sink([&](LogKind, const std::string&) { ++first; });
  LogSink replaced = set_log_sink([&](LogKind, const std::string&) { ++second; });
  ASSERT_TRUE(replaced);
  replaced(LogKind::Note, "x");
  log_message(LogKind::Note, "y");
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 1);
  set_log_sink(std::move(before));
}

TEST(LogSink, AThrowingSinkIsDropped) {
  LogSink before = set_log_sink([](LogKind, const std::string&) { throw std::runtime_error("sink down"); });
  EXPECT_NO_THROW(log_message(LogKind::Warning, "w"));
  set_log_sink(std::move(before));
}

TEST(LogSink, KindsHaveNames) {
  EXPECT_STREQ(log_kind_name(LogKind::Warning), "warning");
  EXPECT_STREQ(log_kind_name(LogKind::Note), "note");
  EXPECT_STREQ(log_kind_name(LogKind::CompileLog), "compile log");
  EXPECT_STREQ(log_kind_name(LogKind::Profile), "profile");
}

// The kernel cache's warning about a directory it cannot make reaches the sink.
TEST(LogSink, TheKernelCachesWarningsReachIt) {
  Recorder r;
  KernelCache cache("/proc/tgc-cannot-make-this");
  cache.put(KernelCacheKey{"cpu", "k", "v", "t", "f"}, KernelBlob{1, 2, 3});
  ASSERT_FALSE(r.seen.empty());
  EXPECT_EQ(r.seen[0].first, LogKind::Warning);
  EXPECT_NE(r.seen[0].second.find("cannot create the kernel cache directory"), std::string::npos) << r.seen[0].second;
}

}  // namespace
}  // namespace tgc
