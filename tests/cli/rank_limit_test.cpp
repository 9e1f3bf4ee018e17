// The rank limit (64, NumPy's) through the tgc binary: a .tg file that makes a 65th dimension
// (tensor(), reshape, a generated value, an array written as lists) stops with file:line:col,
// the message, a hint and exit code 2, within a second; a rank-64 program compiles and runs
// within a second and gives the reference evaluator's values.
#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <string>

#include <tgc/tgc.h>

#include "cli/cli_runner.h"
#include "support/op_test_util.h"

namespace tgc::test {
namespace {

// "1, 1, ..., 1" with n ones.
std::string ones(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i ? ", 1" : "1";
  return s;
}

// Runs `tgc args` and returns the result with its wall time in seconds.
std::pair<CliResult, double> timed(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  const auto start = std::chrono::steady_clock::now();
  CliResult r = run_tgc(args, env);
  return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

struct OverLimit {
  const char* name;
  std::string source;
  std::string location_and_message;  // after the file name
};

// Test names and failure messages show the case's name, not its bytes.
void PrintTo(const OverLimit& c, std::ostream* os) { *os << c.name; }

class RankOverLimit : public ::testing::TestWithParam<OverLimit> {};

TEST_P(RankOverLimit, ReportsWhereAndExitsWith2WithinASecond) {
  ScratchDir dir;
  const OverLimit& c = GetParam();
  const std::string path = dir.write(std::string(c.name) + ".tg", c.source);
  auto [r, seconds] = timed({"run", path});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(path + ":" + c.location_and_message), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("64 dimensions"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_LT(seconds, 1.0);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, RankOverLimit,
    ::testing::Values(
        OverLimit{"tensor_shape", "x = tensor(shape=(" + ones(65) + "))\nf = function([x], x)\n",
                  "1:12: error: tensor(): 65 dimensions, more than the limit of 64"},
        OverLimit{"tensor_ndim", "x = tensor(\"float32\", 65)\nf = function([x], x)\n",
                  "1:23: error: tensor(): ndim 65 is out of range"},
        OverLimit{"reshape", "x = tensor(shape=(1, 1))\ny = x.reshape((" + ones(65) + "))\nf = function([x], y)\n",
                  "2:7: error: a tensor of 65 dimensions is over the limit of 64 in reshape(x)"},
        OverLimit{"generated_value", "z = zeros(" + ones(65) + ")\n",
                  "1:11: error: zeros: 65 dimensions, more than the limit of 64"},
        OverLimit{"nested_lists", "a = array(" + std::string(65, '[') + "1" + std::string(65, ']') + ")\n",
                  "1:11: error: array nested more than 64 levels deep"}),
    [](const ::testing::TestParamInfo<OverLimit>& info) { return std::string(info.param.name); });

TEST(CliRankLimit, Rank64CompilesAndRunsWithinASecondAndMatchesTheReference) {
  // Sizes on three of the 64 dims (one broadcast), the rest 1.
  std::string shape_x, shape_y;
  for (int d = 0; d < 64; ++d) {
    const bool sized = d == 0 || d == 20 || d == 63;
    shape_x += std::string(d ? ", " : "") + (sized ? std::to_string(d % 5 + 2) : "1");
    shape_y += std::string(d ? ", " : "") + (sized && d ? std::to_string(d % 5 + 2) : "1");
  }
  ScratchDir dir;
  const std::string path = dir.write("rank64.tg", "x = tensor(shape=(" + shape_x + "), name=\"x\")\ny = tensor(shape=(" +
                                                      shape_y + "), name=\"y\")\nf = function([x, y], exp(x) * y + 1)\n");
  const std::vector<std::string> inputs{"--input", "x=rand(" + shape_x + ", seed=1)", "--input",
                                        "y=rand(" + shape_y + ", seed=2)"};
  std::vector<std::string> compiled{"run", path, "--out", dir.path() + "/compiled"};
  compiled.insert(compiled.end(), inputs.begin(), inputs.end());
  std::vector<std::string> reference{"run", path, "--out", dir.path() + "/reference"};
  reference.insert(reference.end(), inputs.begin(), inputs.end());
  // A fresh kernel cache: the kernel is compiled in this run, not loaded.
  auto [r, seconds] = timed(compiled, {"TGC_FLAGS=cache_dir=" + dir.path() + "/cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(seconds, 1.0) << "tgc run of a rank-64 program";
  CliResult ref = run_tgc(reference, {"TGC_FLAGS=optimizer=none"});
  ASSERT_EQ(ref.exit_code, 0) << ref.err;
  const Tensor got = read_npy(dir.path() + "/compiled/f_0.npy"), want = read_npy(dir.path() + "/reference/f_0.npy");
  EXPECT_EQ(got.ndim(), 64);
  EXPECT_TRUE(same_values(got, want, 1e-6)) << got.str() << "\nexpected\n" << want.str();
}

}  // namespace
}  // namespace tgc::test
