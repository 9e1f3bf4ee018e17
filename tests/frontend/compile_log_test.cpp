// log_compiles through function() on the LLVM CPU backend: the lines name the function and
// its phases; a cold cache reports each kernel's miss as a new key and real codegen time (in
// the log, compile_phases() and the profile); a warm cache (a copied directory: a new
// process's view) loads and misses nothing; a damaged entry is named and recompiled; a
// changed config value of the key is named; kernels compiled at once are logged once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tgc/tgc.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "backends/cpu/cpu_backend.h"
#include "runtime/compile_log.h"

namespace tgc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag)
      : path(fs::temp_directory_path() / ("tgc_compile_log_" + std::to_string(::getpid()) + "_" + tag + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// Compiles a function with one fused kernel under `config`; returns what it printed on stderr.
std::string compile_logged(const std::string& name, std::map<std::string, std::string> config,
                           CompilePhases* phases = nullptr, std::string* profile = nullptr) {
  Var x = vector("x");
  testing::internal::CaptureStderr();
  std::string err;
  {
    Function f = function({x}, {exp(x) * 2.0 + 1.0}, {}, {.name = name, .config = std::move(config)});
    if (phases) *phases = f.compile_phases();
    if (profile) *profile = f.profile_report();
    err = testing::internal::GetCapturedStderr();
  }
  return err;
}

// The milliseconds the head line gives a phase.
double phase_ms(const std::string& log, const std::string& phase) {
  std::smatch m;
  if (!std::regex_search(log, m, std::regex(phase + " ([0-9.]+) ms"))) return -1;
  return std::stod(m[1]);
}

TEST(CompileLogFunction, ColdCompileReportsPhasesCodegenAndNewKeys) {
  if (!llvm_backend_available()) GTEST_SKIP() << "built without LLVM: no kernel is compiled";
  TempDir cache("cold");
  CompilePhases phases;
  std::string profile;
  const std::string err = compile_logged(
      "cold_fn", {{"log_compiles", "true"}, {"cache_dir", cache.path.string()}, {"profile", "true"}}, &phases, &profile);
  EXPECT_THAT(err, HasSubstr("tgc: compile 'cold_fn': ")) << err;
  EXPECT_THAT(err, HasSubstr("tgc: compile 'cold_fn':   codegen llvm: 1 kernel compiled, ")) << err;
  EXPECT_THAT(err, HasSubstr("tgc: compile 'cold_fn':   cache miss llvm tgc_kernel_")) << err;
  EXPECT_THAT(err, HasSubstr("new key: no entry for this kernel in " + cache.path.string())) << err;
  EXPECT_THAT(err, Not(HasSubstr("pass merge"))) << "passes only with log_compiles=passes";
  // Plausible times: compiling a kernel with LLVM's O3 pipeline takes real time, and the
  // phases add up to the head line's total (each printed to 0.1 ms).
  EXPECT_GT(phases.codegen_s, 0.0);
  EXPECT_GT(phases.optimize_s, 0.0);
  EXPECT_GE(phases.link_s, 0.0);
  EXPECT_GT(phase_ms(err, "codegen"), 0.0) << err;
  const double total = phases.setup_s + phases.optimize_s + phases.codegen_s + phases.link_s + phases.load_s;
  EXPECT_NEAR(phase_ms(err, "'cold_fn':"), total * 1e3, 0.3) << err;
  // The profile's codegen time is the compile's, no longer 0.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(profile, m, std::regex("Codegen time: ([0-9.e+-]+)s"))) << profile;
  EXPECT_NEAR(std::stod(m[1]), phases.codegen_s, 1e-6 * phases.codegen_s);  // printed with 7 digits
}

TEST(CompileLogFunction, PassesAreListedWhenAskedFor) {
  TempDir cache("passes");
  const std::string err = compile_logged("passes_fn", {{"log_compiles", "passes"}, {"cache_dir", cache.path.string()}});
  EXPECT_THAT(err, HasSubstr("tgc: compile 'passes_fn':   pass merge: ")) << err;
  EXPECT_THAT(err, HasSubstr("tgc: compile 'passes_fn':   pass fuse_elemwise: ")) << err;
}

TEST(CompileLogFunction, WarmStartLoadsAndMissesNothing) {
  if (!llvm_backend_available()) GTEST_SKIP() << "built without LLVM: no kernel is compiled";
  TempDir cold("cold"), warm("warm");
  compile_logged("fill", {{"cache_dir", cold.path.string()}});
  // A copy of the directory has a cache object and a compiler of its own in this process:
  // what a new process sees.
  fs::copy(cold.path, warm.path);
  CompilePhases phases;
  const std::string err = compile_logged("warm_fn", {{"log_compiles", "true"}, {"cache_dir", warm.path.string()}}, &phases);
  EXPECT_THAT(err, HasSubstr("tgc: compile 'warm_fn':   load llvm: 1 kernel loaded, ")) << err;
  EXPECT_THAT(err, Not(HasSubstr("cache miss"))) << err;
  EXPECT_THAT(err, Not(HasSubstr("codegen llvm"))) << err;
  EXPECT_EQ(phases.codegen_s, 0.0);
  EXPECT_GT(phases.load_s, 0.0);
}

// A damaged disk entry is a log line and a compile, never a crash or a wrong result.
TEST(CompileLogFunction, ACorruptEntryIsReportedAndRecompiled) {
  if (!llvm_backend_available()) GTEST_SKIP() << "built without LLVM: no kernel is compiled";
  TempDir cold("cold"), damaged("damaged");
  compile_logged("fill", {{"cache_dir", cold.path.string()}});
  fs::copy(cold.path, damaged.path);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(damaged.path)) {
    if (e.path().extension() != ".tgck") continue;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(e.file_size() / 2));
    const char c = static_cast<char>(f.get());
    f.seekp(static_cast<std::streamoff>(e.file_size() / 2));
    f.put(static_cast<char>(c ^ 0x5a));  // one byte in the middle: the checksum no longer matches
    ++entries;
  }
  ASSERT_EQ(entries, 2);  // the kernel, and the optimized program (the program cache's entry)
  Var x = vector("x");
  testing::internal::CaptureStderr();
  Function f = function({x}, {exp(x) * 2.0 + 1.0}, {},
                        {.name = "damaged_fn", .config = {{"log_compiles", "true"}, {"cache_dir", damaged.path.string()}}});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("tgc: compile 'damaged_fn':   cache miss llvm ")) << err;
  EXPECT_THAT(err, HasSubstr("corrupted entry (checksum mismatch), removed")) << err;
  EXPECT_THAT(err, HasSubstr("codegen llvm: 1 kernel compiled")) << err;
  const std::vector<float> got = f({Tensor::from_vector(std::vector<float>{0.0f, 1.0f})})[0].to_vector<float>();
  EXPECT_FLOAT_EQ(got[0], 3.0f);
  EXPECT_FLOAT_EQ(got[1], static_cast<float>(std::exp(1.0) * 2 + 1));
}

TEST(CompileLogFunction, AChangedConfigValueOfTheKeyIsTheReason) {
  if (!llvm_backend_available()) GTEST_SKIP() << "built without LLVM: no kernel is compiled";
  TempDir cache("config");
  compile_logged("exact", {{"cache_dir", cache.path.string()}, {"fast_math", "false"}});
  const std::string err =
      compile_logged("fast", {{"log_compiles", "true"}, {"cache_dir", cache.path.string()}, {"fast_math", "true"}});
  EXPECT_THAT(err, HasSubstr("tgc: compile 'fast':   cache miss llvm ")) << err;
  EXPECT_THAT(err, HasSubstr("flags changed: fast_math=0 -> fast_math=1")) << err;
  EXPECT_THAT(err, Not(HasSubstr("new key"))) << err;
}

// Kernels compiled ahead on two threads (compile_threads) log their wall time once and each
// miss once; the function computes what one-by-one compiled kernels compute.
TEST(CompileLogFunction, KernelsCompiledAtOnceAreLoggedOnce) {
  if (!llvm_backend_available()) GTEST_SKIP() << "built without LLVM: no kernel is compiled";
  TempDir parallel("parallel"), serial("serial");
  Var x = vector("x"), y = matrix("y");
  const std::vector<Var> outs = {exp(x) + 1.0, tanh(y) * 2.0, sum(y * y, {1}) - x};
  const Tensor xv = Tensor::from_vector(std::vector<float>{0.5f, -1.0f}),
               yv = Tensor::from_vector(std::vector<float>{1, 2, 3, 4}).reshape({2, 2});
  auto compile = [&](const TempDir& dir, const std::string& threads, std::string& err) {
    testing::internal::CaptureStderr();
    Function f = function({x, y}, outs, {},
                          {.name = "three", .config = {{"log_compiles", "true"}, {"compile_threads", threads},
                                                       {"cache_dir", dir.path.string()}}});
    err = testing::internal::GetCapturedStderr();
    return f({xv, yv});
  };
  std::string err_parallel, err_serial;
  const std::vector<Tensor> got = compile(parallel, "2", err_parallel);
  const std::vector<Tensor> want = compile(serial, "1", err_serial);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(err_parallel, m, std::regex("codegen llvm: ([0-9]+) kernels compiled, [0-9.]+ ms \\(2 threads\\)")))
      << err_parallel;
  const int kernels = std::stoi(m[1]);
  EXPECT_GE(kernels, 2) << err_parallel;
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(err_parallel, "cache miss llvm"), kernels) << err_parallel;
  EXPECT_EQ(count(err_serial, "cache miss llvm"), kernels) << err_serial;
  EXPECT_THAT(err_serial, Not(HasSubstr("threads)"))) << err_serial;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].str(), want[i].str()) << i;
}

TEST(CompileLogFunction, SilentByDefault) {
  TempDir cache("off");
  CompilePhases phases;
  const std::string err = compile_logged("quiet_fn", {{"cache_dir", cache.path.string()}}, &phases);
  EXPECT_THAT(err, Not(HasSubstr("tgc: compile"))) << err;
  EXPECT_GT(phases.optimize_s, 0.0) << "the phases are measured whether or not they are printed";
}

}  // namespace
}  // namespace tgc
