// set_log_sink through the C++ API: a function's compile log (log_compiles), its profile
// (profile=true, when the function ends), a disconnected gradient's warning and the note of a
// program compiled again for new shared shapes all reach the sink, with nothing on stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tgc/tgc.h>

#include <string>
#include <utility>
#include <vector>

namespace tgc {
namespace {

using ::testing::HasSubstr;

class Recorder {
 public:
  Recorder() {
    previous_ = set_log_sink([this](LogKind kind, const std::string& text) { seen.emplace_back(kind, text); });
  }
  ~Recorder() { set_log_sink(std::move(previous_)); }
  // The texts of one kind, joined.
  std::string of(LogKind kind) const {
    std::string out;
    for (const auto& [k, text] : seen)
      if (k == kind) out += text + "\n";
    return out;
  }
  std::vector<std::pair<LogKind, std::string>> seen;

 private:
  LogSink previous_;
};

TEST(LogSinkApi, CompileLogsProfilesWarningsAndNotesReachTheSink) {
  Recorder r;
  ::testing::internal::CaptureStderr();
  {
    Var x = vector("x");
    FunctionOptions options;
    options.name = "logged";
    options.config = {{"log_compiles", "true"}, {"profile", "true"}, {"device", "cpu"}};
    Function f = function({x}, {exp(x) + 1.0}, {}, options);
    f(Tensor::from_vector<float>({1, 2}));
  }  // the profile is reported when the function ends
  GradOptions warn;
  warn.disconnected_inputs = DisconnectedInputs::Warn;
  Var a = scalar("a"), unused = scalar("unused");
  grad(a * a, {a, unused}, warn);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "everything went to the sink";
  EXPECT_THAT(r.of(LogKind::CompileLog), HasSubstr("tgc: compile 'logged'"));
  EXPECT_THAT(r.of(LogKind::Profile), HasSubstr("Message: logged"));
  EXPECT_THAT(r.of(LogKind::Warning), HasSubstr("the cost does not depend on 'unused'; its gradient is zero"));
}

TEST(LogSinkApi, ARecompileForNewSharedShapesIsANote) {
  Recorder r;
  Shared w = shared(Tensor::from_vector<double>({1, 2, 3}), "w");
  FunctionOptions options;
  options.name = "grow";
  options.config = {{"device", "cpu"}};
  Function f = function({}, {sum(w * 2.0)}, {}, options);
  f();
  w.set_value(Tensor::from_vector<double>({1, 2, 3, 4}));
  EXPECT_EQ(f()[0].to_vector<double>()[0], 20.0);
  EXPECT_THAT(r.of(LogKind::Note), HasSubstr("grow: shared variable"));
  EXPECT_THAT(r.of(LogKind::Note), HasSubstr("compiling program 2 for the new shapes"));
}

}  // namespace
}  // namespace tgc
