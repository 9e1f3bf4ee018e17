// tgc compile and running a saved file: `tgc run OUT.tgf` in a new process gives the same
// bits as `tgc run PROGRAM.tg` (the saved shared values are the program's starting values, its
// kernels are shipped), for training steps with updates, random draws, scans and lazy
// branches; and the errors of a bad file, a missing function and a foreign file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli/cli_runner.h"

namespace tgc::test {
namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Case {
  const char* example;
  const char* fn;
  std::vector<std::string> inputs;
  int outputs;
  std::vector<std::string> compile_flags{};  // more arguments of tgc compile
};

// Runs the example and its saved copy with the same arguments and compares every output's
// .npy bytes.
void expect_saved_runs_alike(const Case& c) {
  ScratchDir dir;
  const std::string saved = dir.path() + "/saved.tgf";
  std::vector<std::string> compile = {"compile", example(c.example), "--fn", c.fn, "-o", saved};
  compile.insert(compile.end(), c.compile_flags.begin(), c.compile_flags.end());
  CliResult r = run_tgc(compile);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Saved 1 function (" + std::string(c.fn) + ") to " + saved), std::string::npos) << r.out;

  auto run = [&](const std::string& file, const std::string& out, const std::vector<std::string>& env) {
    std::vector<std::string> args = {"run", file, "--fn", c.fn, "--iters", "3", "--out", dir.path() + "/" + out};
    for (const std::string& in : c.inputs) args.insert(args.end(), {"--input", in});
    CliResult res = run_tgc(args, env);
    EXPECT_EQ(res.exit_code, 0) << res.err;
  };
  run(example(c.example), "from_program", {});
  // A cache of its own: the saved file's kernels are all the run has.
  run(saved, "from_saved", {"TGC_FLAGS=cache_dir=" + dir.path() + "/empty_cache"});
  for (int i = 0; i < c.outputs; ++i) {
    const std::string name = std::string(c.fn) + "_" + std::to_string(i) + ".npy";
    const std::string a = read_bytes(dir.path() + "/from_program/" + name);
    const std::string b = read_bytes(dir.path() + "/from_saved/" + name);
    ASSERT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, b) << c.example << ": output " << i << " differs";
  }
}

TEST(CliCompile, SavedTrainingStepRunsBitForBitAsTheProgram) {
  expect_saved_runs_alike({"logreg.tg", "train", {}, 2});
}

TEST(CliCompile, SavedRandomDrawsContinueTheSavedStream) {
  expect_saved_runs_alike({"dropout_mlp.tg", "train", {}, 1});
}

TEST(CliCompile, SavedScanAndIfElse) {
  expect_saved_runs_alike({"scan_cumsum.tg", "cumsum", {"v=arange(1, 6, dtype='float32')"}, 1});
  expect_saved_runs_alike({"ifelse.tg", "choose", {"x=rand(8, 8, seed=1)", "limit=100"}, 2});
  expect_saved_runs_alike({"ifelse.tg", "choose", {"x=rand(8, 8, seed=1)", "limit=1"}, 2});
}

TEST(CliCompile, AWarmUpCallPutsTheSharedValuesBack) {
  // The training step runs once before the save; the file still holds the program's start.
  expect_saved_runs_alike({"logreg.tg", "train", {}, 2, {"--warm-up"}});
  expect_saved_runs_alike({"dropout_mlp.tg", "train", {}, 1, {"--warm-up"}});
  expect_saved_runs_alike(
      {"ifelse.tg", "choose", {"x=rand(8, 8, seed=1)", "limit=1"}, 2, {"--warm-up", "--input", "x=ones(8, 8)", "--input", "limit=1"}});
  CliResult r = run_tgc({"compile", example("ifelse.tg"), "--input", "limit=1", "-o", "/tmp/unused.tgf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("add --warm-up"), std::string::npos) << r.err;
  r = run_tgc({"compile", example("ifelse.tg"), "--warm-up", "-o", "/tmp/unused.tgf"});
  EXPECT_EQ(r.exit_code, 2);  // the warm-up call's inputs are missing: named
  EXPECT_NE(r.err.find("x"), std::string::npos) << r.err;
}

TEST(CliCompile, EveryFunctionByDefaultAndShowReadsTheSavedFile) {
  ScratchDir dir;
  const std::string saved = dir.path() + "/logreg.tgf";
  CliResult r = run_tgc({"compile", example("logreg.tg"), "-o", saved});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Saved 2 functions (train, predict)"), std::string::npos) << r.out;
  r = run_tgc({"show", saved, "--fn", "predict"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Composite"), std::string::npos) << r.out;
  r = run_tgc({"run", saved, "--fn", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no function 'nope'"), std::string::npos) << r.err;
}

TEST(CliCompile, DamagedAndForeignFilesAreClearErrors) {
  ScratchDir dir;
  const std::string saved = dir.path() + "/f.tgf";
  ASSERT_EQ(run_tgc({"compile", example("two_outputs.tg"), "-o", saved}).exit_code, 0);
  std::string bytes = read_bytes(saved);
  bytes[bytes.size() / 2] ^= 0x20;
  const std::string damaged = dir.write("damaged.tgf", bytes);
  CliResult r = run_tgc({"run", damaged, "--input", "x=[1]", "--input", "y=[2]"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("checksum does not match"), std::string::npos) << r.err;
  const std::string truncated = dir.write("truncated.tgf", bytes.substr(0, 40));
  r = run_tgc({"run", truncated});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(truncated), std::string::npos) << r.err;
  r = run_tgc({"compile", example("two_outputs.tg"), "-o", dir.path() + "/no/such/dir/f.tgf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tgc::test
