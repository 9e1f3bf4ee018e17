// User errors through the tgc binary: malformed .tg files, bad inputs, bad flags. Each must
// exit with code 2 and print the message (for a .tg file: file:line:col, the source line, a
// caret and a hint) without C++ exception noise.
#include <gtest/gtest.h>

#include <ostream>

#include "backends/cuda/cuda_backend.h"
#include "cli/cli_runner.h"
#include "runtime/npy.h"

namespace tgc::test {
namespace {

// Expects a clean user error whose stderr contains every one of `parts`.
void expect_user_error(const CliResult& r, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  for (const std::string& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "missing '" << p << "' in\n" << r.err;
  for (const char* noise : {"terminate called", "what()", "internal error", "std::", "Aborted"})
    EXPECT_EQ(r.err.find(noise), std::string::npos) << "'" << noise << "' in\n" << r.err;
}

struct BadFile {
  const char* name;
  std::string source;
  std::vector<std::string> parts;  // location, message, caret line, hint
};

// Test names and failure messages show the case's name, not its bytes.
void PrintTo(const BadFile& bad, std::ostream* os) { *os << bad.name; }

class MalformedFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(MalformedFile, ReportsWhereAndExitsWith2) {
  ScratchDir dir;
  const BadFile& bad = GetParam();
  std::string path = dir.write(std::string(bad.name) + ".tg", bad.source);
  for (const char* command : {"run", "show"}) {
    CliResult r = run_tgc({command, path});
    SCOPED_TRACE(std::string("tgc ") + command);
    std::vector<std::string> parts = bad.parts;
    parts[0] = path + ":" + parts[0];  // the location as file:line:col
    expect_user_error(r, parts);
    EXPECT_EQ(r.out, "");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cli, MalformedFile,
    ::testing::Values(
        BadFile{"unbalanced", "x = vector(\"x\")\ny = exp(x\nf = function([x], [y])\n",
                {"2:8: error: '(' was never closed", "    y = exp(x\n           ^\n", "hint: "}},
        BadFile{"mismatched", "x = vector(\"x\")\ny = (exp(x)]\nf = function([x], [y])\n",
                {"2:12: error: closing ']' does not match '('", "               ^\n", "hint: "}},
        BadFile{"unknown_function", "x = vector(\"x\")\ny = expp(x)\nf = function([x], [y])\n",
                {"2:5: error: unknown function 'expp'", "        ^\n", "hint: did you mean 'exp'?"}},
        BadFile{"unknown_name", "x = vector(\"x\")\nf = function([x], [x + z])\n",
                {"2:24: error: unknown name 'z'", "hint: "}},
        BadFile{"wrong_arity", "x = vector(\"x\")\ny = exp(x, x)\nf = function([x], [y])\n",
                {"2:12: error: exp() takes 1 positional argument but 2 were given", "hint: the signature is exp(x)"}},
        BadFile{"shape_mismatch", "a = ones(3, 4)\nb = ones(5)\nx = vector(\"x\")\nf = function([x], [dot(a, b) + x])\n",
                {"4:20: error: dot: shapes (3, 4) and (5,) are not aligned", "hint: "}},
        BadFile{"missing_function_input", "x = matrix(\"x\")\nw = vector(\"w\")\nf = function([x], [dot(x, w)])\n",
                {"3:5: error: output", "depends on input 'w'", "hint: add 'w' to the inputs"}},
        BadFile{"huge_literal", "x = 123456789012345678901234567890\n",
                {"1:5: error: integer 123456789012345678901234567890 does not fit in 64 bits", "hint: "}},
        BadFile{"non_utf8", "x = vector(\"x\")\ny = \xff\xfe exp(x)\n",
                {"2:5: error: invalid UTF-8 byte 0xFF", "hint: "}},
        BadFile{"huge_shape", "x = shared(zeros(100000, 100000, 100000))\nf = function([], x)\n",
                {"1:18: error: zeros: shape (100000, 100000, 100000) has 1000000000000000 elements",
                 "hint: use a smaller shape"}}),
    [](const ::testing::TestParamInfo<BadFile>& info) { return std::string(info.param.name); });

TEST(CliErrors, EmptyFileDefinesNoFunction) {
  ScratchDir dir;
  std::string path = dir.write("empty.tg", "");
  expect_user_error(run_tgc({"run", path}), {"empty.tg defines no function to run", "hint: "});
  std::string comments = dir.write("comments.tg", "# nothing here\nx = vector(\"x\")\n");
  expect_user_error(run_tgc({"show", comments}), {"comments.tg defines no function", "hint: "});
}

TEST(CliErrors, MissingFile) {
  expect_user_error(run_tgc({"run", "/nonexistent/prog.tg"}), {"cannot read '/nonexistent/prog.tg'", "hint: "});
  ScratchDir dir;
  expect_user_error(run_tgc({"run", dir.path()}), {dir.path(), "hint: "});  // a directory
}

TEST(CliErrors, FunctionNames) {
  expect_user_error(run_tgc({"run", example("logreg.tg"), "--fn", "trian"}),
                    {"has no function 'trian' (it defines: train, predict)", "hint: did you mean 'train'?"});
}

TEST(CliErrors, MissingExtraAndRepeatedInputsNameTheSignature) {
  const std::string sig = "two_outputs(x: float32 matrix (?, ?), y: float32 matrix (?, ?))";
  expect_user_error(run_tgc({"run", example("two_outputs.tg")}),
                    {"inputs 'x', 'y' of two_outputs are not given", sig});
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=zeros(2, 2)"}),
                    {"input 'y' of two_outputs is not given", sig});
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=zeros(2, 2)", "--input",
                             "y=zeros(2, 2)", "--input", "z=1"}),
                    {"two_outputs has no input 'z'", sig});
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=zeros(2, 2)", "--input", "x=1"}),
                    {"input 'x' is given twice"});
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x"}), {"malformed --input 'x'"});
}

TEST(CliErrors, WrongTypedInputs) {
  const std::string sig = "two_outputs(x: float32 matrix (?, ?), y: float32 matrix (?, ?))";
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=zeros(3)", "--input", "y=zeros(3, 3)"}),
                    {"input 'x' of two_outputs is a float32 matrix (?, ?), but was given a vector of shape (3,)", sig});
  // A float64 file for a float32 input would lose precision: refused, with the fix.
  ScratchDir dir;
  const std::string f64 = std::string(TGC_TEST_DATA_DIR) + "/blas/P.npy";  // float64 (8, 10)
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=" + f64, "--input", "y=zeros(8, 10)"}),
                    {"input 'x' of two_outputs is a float32 matrix (?, ?), but " + f64 + " holds float64",
                     "hint: save the array with .astype('float32')"});
  // An int32 file for a float32 input: float32 holds integers exactly only up to 2^24, so
  // 16777217 would become 16777216. Refused the same way; int16 converts exactly and is taken.
  const std::string i32 = dir.path() + "/i32.npy", i16 = dir.path() + "/i16.npy";
  write_npy(i32, Tensor::from_vector<int32_t>({16777217, 1}, {2, 1}));
  write_npy(i16, Tensor::from_vector<int16_t>({7, 1}, {2, 1}));
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=" + i32, "--input", "y=zeros(2, 1)"}),
                    {"but " + i32 + " holds int32", "hint: save the array with .astype('float32')"});
  const CliResult ok = run_tgc({"run", example("two_outputs.tg"), "--input", "x=" + i16, "--input", "y=zeros(2, 1)"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  // Shapes that only meet at run time: the executor's error, still a clean exit 2.
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=zeros(3, 4)", "--input", "y=zeros(4, 4)"}),
                    {"could not be broadcast together with shapes (3, 4) (4, 4)"});
}

TEST(CliErrors, BadNpyAndBadExpressionInputs) {
  ScratchDir dir;
  std::string bad = dir.write("bad.npy", "this is not a .npy file");
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=" + bad, "--input", "y=zeros(2, 2)"}),
                    {"cannot read .npy file '" + bad + "'", "hint: "});
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=" + dir.path() + "/none.npy",
                             "--input", "y=zeros(2, 2)"}),
                    {"none.npy", "hint: "});
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=randz(2, 2)", "--input", "y=zeros(2, 2)"}),
                    {"--input x:1:1: error: unknown function 'randz'", "hint: did you mean 'rand'?"});
  expect_user_error(run_tgc({"run", example("two_outputs.tg"), "--input", "x=zeros(2, 2", "--input", "y=zeros(2, 2)"}),
                    {"--input x:1:6: error: '(' was never closed"});
}

TEST(CliErrors, BadFlags) {
  expect_user_error(run_tgc({"run", example("check1.tg"), "--floatX", "flaot32"}),
                    {"bad value 'flaot32' for config key 'floatX' (from flag --floatX)", "did you mean 'float32'?"});
  expect_user_error(run_tgc({"--optimizer", "fast", "run", example("check1.tg")}),
                    {"for config key 'optimizer' (from flag --optimizer)"});
  expect_user_error(run_tgc({"run", example("check1.tg"), "--bogus"}), {"--bogus", "tgc run --help"});
  expect_user_error(run_tgc({"run", example("check1.tg"), "--iters", "0"}), {"--iters"});
  expect_user_error(run_tgc({"run", example("check1.tg"), "--iters", "many"}), {"--iters"});
  expect_user_error(run_tgc({"run"}), {"FILE is required"});
  expect_user_error(run_tgc({"frobnicate"}), {"frobnicate", "tgc --help"});
  expect_user_error(run_tgc({"show", example("check1.tg"), "--stage", "cooked"}), {"--stage"});
  if (!cuda_available())  // where CUDA works, device=cuda is no error
    expect_user_error(run_tgc({"run", example("check1.tg"), "--device", "cuda"}),
                      {"check1.tg:10:10: error: device 'cuda", "is not available"});
}

TEST(CliErrors, UnwritableOutputs) {
  ScratchDir dir;
  const std::string missing_dir = dir.path() + "/no/such/dir";
  expect_user_error(run_tgc({"run", example("sumsq.tg"), "--profile-trace", missing_dir + "/t.json"}),
                    {"cannot write the profile trace", "its directory does not exist"});
  std::string file = dir.write("file", "x");
  expect_user_error(run_tgc({"run", example("sumsq.tg"), "--out", file + "/sub"}),
                    {"cannot create the output directory", "hint: "});
}

TEST(CliErrors, HelpAndVersionExitWith0) {
  CliResult help = run_tgc({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* s : {"run", "show", "emit", "devices", "launch", "--floatX", "--profile-trace", "--no-gc"})
    EXPECT_NE(help.out.find(s), std::string::npos) << s;
  CliResult run_help = run_tgc({"run", "--help"});
  EXPECT_EQ(run_help.exit_code, 0);
  EXPECT_NE(run_help.out.find("--iters"), std::string::npos) << run_help.out;
  CliResult version = run_tgc({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(version.out.starts_with("tgc ")) << version.out;
}

}  // namespace
}  // namespace tgc::test
