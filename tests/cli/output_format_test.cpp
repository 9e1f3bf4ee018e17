// tgc run's printing (timing line, output headers, the tutorial's "Result is"), the --out
// file names, and the translation of global flags into config keys.
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "frontend/cli/global_flags.h"
#include "frontend/cli/output_format.h"
#include "support/catch_error.h"

namespace tgc::cli {
namespace {

TEST(CliOutputFormat, TimingLineReadsLikeTheTutorial) {
  EXPECT_EQ(timing_line("check1", 1, 0.25), "Calling check1 once took 0.250000 seconds");
  EXPECT_EQ(timing_line("check1", 1000, 0.5),
            "Looping 1000 times took 0.500000 seconds (0.000500 seconds per call)");
}

TEST(CliOutputFormat, OneOutputPrintsResultIs) {
  Tensor t = Tensor::from_vector(std::vector<float>{1.5f, 2.0f, -3.0f});
  EXPECT_EQ(format_outputs({"exp(x)"}, {t}), "out0 = exp(x): float32 (3,)\nResult is [ 1.5  2.  -3. ]\n");
}

TEST(CliOutputFormat, SeveralOutputsPrintHeadersAndValues) {
  Tensor a = Tensor::from_vector(std::vector<double>{1, 2});
  Tensor s = Tensor::full(DType::Int32, {}, 7);
  EXPECT_EQ(format_outputs({"x + y", "sum(x)"}, {a, s}),
            "out0 = x + y: float64 (2,)\n[1. 2.]\nout1 = sum(x): int32 ()\n7\n");
  EXPECT_EQ(format_outputs({}, {}), "(the function has no outputs)\n");
  EXPECT_EQ(format_outputs({}, {s}), "out0 = ?: int32 ()\nResult is 7\n");
}

TEST(CliOutputFormat, LargeOutputsAreElided) {
  Tensor big = Tensor::zeros(DType::Float32, {5000});
  std::string text = format_outputs({"z"}, {big});
  EXPECT_EQ(text, "out0 = z: float32 (5000,)\nResult is [0. 0. 0. ... 0. 0. 0.]\n");
}

TEST(CliOutputFormat, OutputPathIsFunctionAndIndex) {
  EXPECT_EQ(output_path("out", "train", 1), "out/train_1.npy");
}

TEST(CliGlobalFlags, OnlyGivenFlagsBecomeKeys) {
  GlobalFlags none;
  EXPECT_TRUE(config_overrides(none).empty());

  GlobalFlags f;
  f.device = "cpu";
  f.floatX = "float64";
  f.no_gc = true;
  f.sync = true;
  f.optimizer = "fast_compile";
  f.optimizer_excluding = "fusion:inplace";
  f.fast_math = true;
  f.assert_no_cpu_op = "warn";
  f.warn_float64 = true;
  f.profile_trace = "trace.json";  // implies profile
  std::map<std::string, std::string> want = {
      {"device", "cpu"},        {"floatX", "float64"},          {"allow_gc", "false"},
      {"sync", "true"},         {"optimizer", "fast_compile"},  {"optimizer_excluding", "fusion:inplace"},
      {"fast_math", "true"},    {"assert_no_cpu_op", "warn"},   {"warn_float64", "true"},
      {"profile", "true"},      {"profile_trace", "trace.json"}};
  EXPECT_EQ(config_overrides(f), want);
  // Every key the flags produce is a config key.
  Config c;
  for (auto& [key, value] : want) EXPECT_NO_THROW(c.set(key, value)) << key;
}

TEST(CliGlobalFlags, BadValueNamesTheFlag) {
  GlobalFlags f;
  f.optimizer = "fast_runn";
  ConfigError e = test::catch_error<ConfigError>([&] { apply_global_flags(f); });
  EXPECT_NE(std::string(e.what()).find("'fast_runn'"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("flag --optimizer"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("did you mean 'fast_run'"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace tgc::cli
