// Golden tests: every example of examples/*.tg run through the built tgc binary, its outputs
// saved with --out and compared with values computed independently (NumPy-generated files
// in tests/data/cli/, or tgc's NumPy-compatible RandomState and the C library's exp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>

#include <tgc/tgc.h>

#include "backends/opencl/opencl_backend.h"
#include "cli/cli_runner.h"
#include "support/op_test_util.h"

namespace tgc::test {
namespace {

std::string data(const std::string& name) { return std::string(TGC_TEST_DATA_DIR) + "/cli/" + name + ".npy"; }

// Runs `args` plus --out into a scratch folder; expects success and returns the outputs.
struct Run {
  ScratchDir dir;
  CliResult result;
  Tensor output(const std::string& fn, int i) const {
    return read_npy(dir.path() + "/" + fn + "_" + std::to_string(i) + ".npy");
  }
};

std::unique_ptr<Run> run_ok(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
  auto run = std::make_unique<Run>();
  args.insert(args.end(), {"--out", run->dir.path()});
  run->result = run_tgc(args, env);
  EXPECT_EQ(run->result.exit_code, 0) << run->result.err;
  return run;
}

// The tutorial's values: exp of RandomState(22).rand(230400) as float32.
Tensor check1_expected() {
  RandomState rng(22);
  std::vector<float> x = rng.rand({230400}).astype(DType::Float32).to_vector<float>();
  for (float& v : x) v = std::exp(v);
  return Tensor::from_vector(x);
}

const char* kTutorialResult =
    "Result is [1.23178029 1.61879337 1.52278066 ... 2.20771813 2.29967761 1.62323284]\n";
// The tutorial's bits come from exp in double rounded once; the default float32_math=float32
// (float libmvec exp) is within an ulp of them, which expect_same checks on the default run.
const std::vector<std::string> kReferenceBits{"TGC_FLAGS=float32_math=double"};

TEST(CliExamples, Check1PrintsTheTutorialsResult) {
  auto run = run_ok({"run", example("check1.tg")});
  EXPECT_TRUE(std::regex_search(run->result.out, std::regex(R"(^Calling check1 once took \d+\.\d{6} seconds\n)")))
      << run->result.out;
  EXPECT_NE(run->result.out.find("out0 = exp(x): float32 (230400,)\n"), std::string::npos) << run->result.out;
  expect_same(run->output("check1", 0), check1_expected(), 2e-7);
  auto exact = run_ok({"run", example("check1.tg")}, kReferenceBits);
  EXPECT_NE(exact->result.out.find(kTutorialResult), std::string::npos) << exact->result.out;
}

TEST(CliExamples, Check1LoopPrintsTheLoopTime) {
  CliResult r = run_tgc({"run", example("check1.tg"), "--iters", "3"}, kReferenceBits);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(^Looping 3 times took \d+\.\d{6} seconds \(\d+\.\d{6} seconds per call\)\n)")))
      << r.out;
  EXPECT_NE(r.out.find(kTutorialResult), std::string::npos) << r.out;
}

TEST(CliExamples, Check2KeepsTheResultOnTheDeviceAndRunsAsCheck1OnCpu) {
  auto run = run_ok({"run", example("check2.tg")}, kReferenceBits);
  EXPECT_NE(run->result.out.find(kTutorialResult), std::string::npos) << run->result.out;
  expect_same(run->output("check2", 0), check1_expected(), 2e-7);
}

TEST(CliExamples, SumOfSquaresOfOnes) {
  auto run = run_ok({"run", example("sumsq.tg")});
  expect_same(run->output("sum_of_squares", 0), Tensor::full(DType::Float32, {}, 16000000.0));
  EXPECT_NE(run->result.out.find("Result is 16000000.0\n"), std::string::npos) << run->result.out;
}

TEST(CliExamples, TwoOutputsFromNpyFiles) {
  auto run = run_ok({"run", example("two_outputs.tg"), "--input", "x=" + data("two_x"), "--input",
                     "y=" + data("two_y")});
  expect_same(run->output("two_outputs", 0), read_npy(data("two_sum")));
  expect_same(run->output("two_outputs", 1), read_npy(data("two_diff")));
  EXPECT_NE(run->result.out.find("out0 = x + y: float32 (4, 5)\n"), std::string::npos) << run->result.out;
  EXPECT_NE(run->result.out.find("out1 = x - y: float32 (4, 5)\n"), std::string::npos) << run->result.out;
}

TEST(CliExamples, TwoOutputsFromGeneratorExpressions) {
  // rand(4, 5, seed=1) draws NumPy's values (float64), converted to the input's float32.
  auto run = run_ok({"run", example("two_outputs.tg"), "--input", "y=rand(4, 5, seed=2)", "--input",
                     "x=rand(4, 5, seed=1)"});
  expect_same(run->output("two_outputs", 0), read_npy(data("two_sum")));
  expect_same(run->output("two_outputs", 1), read_npy(data("two_diff")));
}

TEST(CliExamples, Matmul) {
  auto run = run_ok({"run", example("matmul.tg"), "--input", "x=" + data("mm_x"), "--input", "y=" + data("mm_y")});
  expect_same(run->output("matmul", 0), read_npy(data("mm_xy")), 1e-6, 1e-6);
}

TEST(CliExamples, LogisticRegressionTrainsWithUpdatesAcrossCalls) {
  // 20 steps: the outputs of the last call depend on the 19 updates before it.
  auto run = run_ok({"run", example("logreg.tg"), "--fn", "train", "--iters", "20"});
  EXPECT_TRUE(std::regex_search(run->result.out, std::regex(R"(^Looping 20 times took )"))) << run->result.out;
  expect_same(run->output("train", 0), read_npy(data("logreg_prediction")));
  expect_same(run->output("train", 1), read_npy(data("logreg_xent")), 1e-3, 1e-6);
}

TEST(CliExamples, MlpTrainingStepLowersTheLoss) {
  // One step against thirty from the same start: SGD on the MLP lowers the loss and learns.
  auto one = run_ok({"run", example("mlp.tg"), "--fn", "train", "--iters", "1"});
  auto thirty = run_ok({"run", example("mlp.tg"), "--fn", "train", "--iters", "30"});
  const double loss1 = one->output("train", 0).at({}), loss30 = thirty->output("train", 0).at({});
  EXPECT_GT(loss1, 2.0);  // about log(10) for random weights
  EXPECT_LT(loss30, 0.8 * loss1);
  EXPECT_GT(thirty->output("train", 1).at({}), one->output("train", 1).at({}));
}

TEST(CliExamples, LeNetLearnsTheGeneratedDigits) {
  // 40 steps of LeNet-5 (examples/lenet.tg): the loss falls by half, and the accuracy on a
  // second batch of the same digits rises well above chance (0.1).
  auto one = run_ok({"run", example("lenet.tg"), "--iters", "1"});
  auto forty = run_ok({"run", example("lenet.tg"), "--iters", "40"});
  const double loss1 = one->output("train", 0).at({}), loss40 = forty->output("train", 0).at({});
  EXPECT_GT(loss1, 2.0);  // about log(10)
  EXPECT_LT(loss40, 0.6 * loss1);
  EXPECT_GT(forty->output("train", 1).at({}), 0.4);
}

TEST(CliExamples, ResNet18InTheLanguageLearns) {
  // examples/resnet18.tg, its layers made by lambdas and its 62 parameters' momentum updates
  // by comprehensions: 6 steps take the loss below half of the first step's, and the accuracy
  // on the batch rises above the first step's.
  auto one = run_ok({"run", example("resnet18.tg"), "--iters", "1"});
  auto six = run_ok({"run", example("resnet18.tg"), "--iters", "6"});
  const double loss1 = one->output("train", 0).at({}), loss6 = six->output("train", 0).at({});
  EXPECT_GT(loss1, 1.5);  // near log(10) for random weights
  EXPECT_LT(loss6, 0.5 * loss1);
  EXPECT_GT(six->output("train", 1).at({}), one->output("train", 1).at({}));
}

TEST(CliExamples, LeNetTrainsOnAnOpenCLDeviceAsOnTheCpu) {
  // The same LeNet-5 on OpenCL (PoCL in CI) with every node on the device
  // (assert_no_cpu_op=raise: the conv and pool ops through tgc's direct kernels): after 5
  // steps its loss and accuracy are the cpu's. PoCL keeps its compiled kernels in the
  // user's cache, not the run's scratch home, so a second run of the suite builds none.
  if (!opencl_available()) GTEST_SKIP() << "no OpenCL device in this build or machine";
  std::vector<std::string> env = {"TGC_FLAGS=assert_no_cpu_op=raise"};
  if (const char* home = std::getenv("HOME"); home && !std::getenv("POCL_CACHE_DIR"))
    env.push_back(std::string("POCL_CACHE_DIR=") + home + "/.cache/pocl/kcache");
  auto cpu = run_ok({"run", example("lenet.tg"), "--iters", "5"}, env);
  auto ocl = run_ok({"run", example("lenet.tg"), "--device", "opencl", "--iters", "5"}, env);
  const double loss_cpu = cpu->output("train", 0).at({}), loss_ocl = ocl->output("train", 0).at({});
  EXPECT_LT(loss_cpu, 2.25);  // from about log(10): it trained
  EXPECT_NEAR(loss_ocl, loss_cpu, 1e-4 * loss_cpu);
  // The accuracy over the 64 test digits: at most one borderline digit apart.
  EXPECT_NEAR(ocl->output("train", 1).at({}), cpu->output("train", 1).at({}), 1.0 / 64 + 1e-9);
}

TEST(CliExamples, PrintOutputsShowsEveryCall) {
  CliResult r = run_tgc({"run", example("sumsq.tg"), "--iters", "2", "--print-outputs"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Call 1:\nout0 = sum(a ** 2): float32 ()\nResult is 16000000.0\nCall 2:\n"),
            std::string::npos)
      << r.out;
}

TEST(CliExamples, ProfilePrintsTheReportAfterTheRun) {
  ScratchDir dir;
  const std::string trace = dir.path() + "/trace.json";
  CliResult r = run_tgc({"--profile", "run", example("check1.tg"), "--iters", "2", "--profile-trace", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Function profiling\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Time in 2 calls to Function.__call__"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("in cpu ops"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(trace));
}

// logreg.tg has train and predict; only train runs, and predict (destroyed after it) used to
// overwrite the trace with its 0 events. The file keeps train's runs.
TEST(CliExamples, TheTraceOfAFileWithSeveralFunctionsKeepsTheOneThatRan) {
  ScratchDir dir;
  const std::string trace = dir.path() + "/trace.json";
  CliResult r = run_tgc({"run", example("logreg.tg"), "--fn", "train", "--iters", "3", "--profile-trace", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(trace);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"function\":\"train\""), std::string::npos) << text.substr(0, 400);
  EXPECT_NE(text.find("\"ph\":\"X\""), std::string::npos) << "no node run in the trace";
  EXPECT_NE(text.find("\"train: cpu ops\""), std::string::npos);
}

// A number for a float64 input is read as a double, not widened from floatX's float32 (0.1
// would arrive as 0.10000000149011612); lists too. A float32 input still gets float32(0.1).
TEST(CliExamples, ANumberForAFloat64InputIsExact) {
  ScratchDir dir;
  const std::string program = dir.path() + "/exact.tg";
  {
    std::ofstream f(program);
    f << "s = scalar('s', 'float64')\nv = vector('v', 'float64')\nh = scalar('h', 'float32')\n"
         "f = function([s, v, h], [s * 1, v * 1, h * 1])\n";
  }
  auto run = run_ok({"run", program, "--input", "s=0.1", "--input", "v=[0.1, 0.7]", "--input", "h=0.1"});
  EXPECT_EQ(run->output("f", 0).item<double>(), 0.1);
  EXPECT_EQ(run->output("f", 1).to_vector<double>(), (std::vector<double>{0.1, 0.7}));
  EXPECT_EQ(run->output("f", 2).item<float>(), 0.1f);
}

TEST(CliExamples, FlagsFromTgcFlagsAndTheCommandLine) {
  // TGC_FLAGS applies; a command-line flag overrides it.
  CliResult from_env = run_tgc({"run", example("sumsq.tg")}, {"TGC_FLAGS=profile=true"});
  EXPECT_EQ(from_env.exit_code, 0) << from_env.err;
  EXPECT_NE(from_env.err.find("Function profiling"), std::string::npos) << from_env.err;
  // floatX=float64 makes the untyped constructors float64.
  CliResult f64 = run_tgc({"run", example("two_outputs.tg"), "--floatX", "float64", "--input",
                           "x=zeros(2)", "--input", "y=ones(2)"});
  EXPECT_EQ(f64.exit_code, 2) << f64.err;  // matrix inputs given vectors
  EXPECT_NE(f64.err.find("float64 matrix"), std::string::npos) << f64.err;
  CliResult bad_env = run_tgc({"run", example("sumsq.tg")}, {"TGC_FLAGS=optimizr=none"});
  EXPECT_EQ(bad_env.exit_code, 2);
  EXPECT_NE(bad_env.err.find("did you mean 'optimizer'"), std::string::npos) << bad_env.err;
}

}  // namespace
}  // namespace tgc::test
