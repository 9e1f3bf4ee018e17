// Tests of Config (every key, bad values, typo suggestions), TGC_FLAGS and rc-file parsing,
// the precedence defaults < rc file < flags, global_config(), and closest_match.
#include "runtime/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/catch_error.h"
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "runtime/error.h"
#include "runtime/suggest.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

using test::catch_error;

TEST(Config, Defaults) {
  Config c;
  EXPECT_EQ(c.get("device"), "cpu");
  EXPECT_EQ(c.get("floatX"), "float32");
  EXPECT_EQ(c.get("allow_gc"), "true");
  EXPECT_EQ(c.get("profile"), "false");
  EXPECT_EQ(c.get("profile_trace"), "");
  EXPECT_EQ(c.get("optimizer"), "fast_run");
  EXPECT_EQ(c.get("assert_no_cpu_op"), "ignore");
  EXPECT_EQ(c.get("warn_float64"), "false");
  EXPECT_EQ(c.get("fast_math"), "false");
  EXPECT_EQ(c.get("float32_math"), "float32");
  EXPECT_EQ(c.get("sync"), "false");
  EXPECT_EQ(c.get("cache_dir"), "~/.cache/tgc");
}

TEST(Config, CpuVectorWidthTakesAutoOrABitCount) {
  Config c;
  EXPECT_EQ(c.get("cpu_vector_width"), "auto");
  c.set("cpu_vector_width", "256");
  EXPECT_EQ(c.get("cpu_vector_width"), "256");
  c.set("cpu_vector_width", "AUTO");
  EXPECT_EQ(c.get("cpu_vector_width"), "auto");
  auto e = catch_error<ConfigError>([&] { c.set("cpu_vector_width", "1024", "TGC_FLAGS"); });
  EXPECT_NE(std::string(e.what()).find("auto, 128, 256 or 512"), std::string::npos) << e.what();
  EXPECT_EQ(c.get("cpu_vector_width"), "auto");
}

TEST(Config, KeysAreTheDesignedOnes) {
  EXPECT_EQ(Config::keys(),
            (std::vector<std::string>{"device", "floatX", "allow_gc", "profile", "profile_trace",
                                      "optimizer", "optimizer_excluding", "assert_no_cpu_op", "warn_float64", "fast_math",
                                      "float32_math", "cpu_vector_width", "sync", "cuda_tf32", "mixed_precision", "deterministic", "eager_fusion", "comm_overlap", "cuda_graphs", "cuda_graph_max_size", "log_compiles", "compile_threads", "comm_timeout", "cache_dir", "cache_max_size"}));
  Config c;
  for (const std::string& k : Config::keys()) EXPECT_NO_THROW(c.get(k)) << k;
}

TEST(Config, CudaGraphMaxSizeIsAPositiveSize) {
  Config c;
  EXPECT_EQ(c.get("cuda_graph_max_size"), "256MiB");
  c.set("cuda_graph_max_size", "4G");
  EXPECT_EQ(c.cuda_graph_max_size, uint64_t(4) << 30);
  for (const char* bad : {"0", "-1", "big", "", "1Q"})
    EXPECT_THROW(c.set("cuda_graph_max_size", bad), ConfigError) << bad;
  EXPECT_EQ(c.get("cuda_graph_max_size"), "4GiB");  // a rejected value changes nothing
}

TEST(Config, CompileThreadsIsAutoOrACount) {
  Config c;
  EXPECT_EQ(c.get("compile_threads"), "auto");
  c.set("compile_threads", "4");
  EXPECT_EQ(c.compile_threads, 4);
  c.set("compile_threads", "AUTO");
  EXPECT_EQ(c.compile_threads, 0);
  for (const char* bad : {"-1", "many", "1000", ""}) EXPECT_THROW(c.set("compile_threads", bad), ConfigError) << bad;
  EXPECT_EQ(c.get("compile_threads"), "auto");
}

TEST(Config, CommTimeoutIsPositiveSeconds) {
  Config c;
  EXPECT_EQ(c.get("comm_timeout"), "300");
  c.set("comm_timeout", "0.5");
  EXPECT_EQ(c.comm_timeout, 0.5);
  EXPECT_EQ(c.get("comm_timeout"), "0.5");
  c.set("comm_timeout", " 2 ");
  EXPECT_EQ(c.comm_timeout, 2.0);
  for (const char* bad : {"0", "-1", "nan", "inf", "5s", "", "1e7"}) {
    auto e = catch_error<ConfigError>([&] { c.set("comm_timeout", bad, "TGC_FLAGS"); });
    EXPECT_NE(std::string(e.what()).find("comm_timeout"), std::string::npos) << bad << ": " << e.what();
  }
  EXPECT_EQ(c.comm_timeout, 2.0);
}

TEST(Config, LogCompilesTakesBooleansOrPasses) {
  Config c;
  EXPECT_EQ(c.get("log_compiles"), "false");
  c.set("log_compiles", "on");
  EXPECT_EQ(c.get("log_compiles"), "true");
  c.set("log_compiles", "PASSES");
  EXPECT_EQ(c.get("log_compiles"), "passes");
  c.set("log_compiles", "0");
  EXPECT_EQ(c.get("log_compiles"), "false");
  auto e = catch_error<ConfigError>([&] { c.set("log_compiles", "pases", "TGC_FLAGS"); });
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'passes'"));
  EXPECT_EQ(c.get("log_compiles"), "false");
}

TEST(Config, Float32MathTakesFloat32OrDouble) {
  Config c;
  c.set("float32_math", "DOUBLE");
  EXPECT_EQ(c.get("float32_math"), "double");
  c.set("float32_math", "float32");
  EXPECT_EQ(c.get("float32_math"), "float32");
  auto e = catch_error<ConfigError>([&] { c.set("float32_math", "duoble", "TGC_FLAGS"); });
  EXPECT_NE(e.hint().find("did you mean 'double'"), std::string::npos) << e.hint();
  EXPECT_EQ(c.get("float32_math"), "float32");
}

TEST(Config, BooleanSpellings) {
  for (const char* key : {"allow_gc", "profile", "warn_float64", "fast_math", "sync", "cuda_tf32", "deterministic"}) {
    for (const char* yes : {"true", "1", "yes", "on", "TRUE", "Yes", "On"}) {
      Config c;
      c.set(key, "false");
      c.set(key, yes);
      EXPECT_EQ(c.get(key), "true") << key << "=" << yes;
    }
    for (const char* no : {"false", "0", "no", "off", "False", "NO", "oFF"}) {
      Config c;
      c.set(key, "true");
      c.set(key, no);
      EXPECT_EQ(c.get(key), "false") << key << "=" << no;
    }
  }
  Config c;
  c.set("allow_gc", "off");
  EXPECT_FALSE(c.allow_gc);
  c.set("sync", "1");
  EXPECT_TRUE(c.sync);
}

TEST(Config, BadBoolean) {
  Config c;
  auto e = catch_error<ConfigError>([&] { c.set("allow_gc", "maybe", "TGC_FLAGS"); });
  EXPECT_THAT(e.what(), HasSubstr("bad value 'maybe' for config key 'allow_gc' (from TGC_FLAGS)"));
  EXPECT_THAT(e.hint(), HasSubstr("true/false, 1/0, yes/no or on/off"));
  EXPECT_TRUE(c.allow_gc);  // unchanged
  EXPECT_THROW(c.set("profile", "2"), ConfigError);
  EXPECT_THROW(c.set("sync", ""), ConfigError);
}

TEST(Config, FloatX) {
  Config c;
  c.set("floatX", "float64");
  EXPECT_EQ(c.floatX, DType::Float64);
  EXPECT_EQ(c.get("floatX"), "float64");
  c.set("floatX", "Float32");
  EXPECT_EQ(c.floatX, DType::Float32);
  auto e = catch_error<ConfigError>([&] { c.set("floatX", "float8", "x.rc:2"); });
  EXPECT_THAT(e.what(), HasSubstr("bad value 'float8' for config key 'floatX' (from x.rc:2)"));
  EXPECT_THAT(e.hint(), HasSubstr("float32, float64, float16 or bfloat16"));
  c.set("floatX", "bfloat16");
  EXPECT_EQ(c.floatX, DType::BFloat16);
  c.set("floatX", "float32");
  auto m = catch_error<ConfigError>([&] { c.set("mixed_precision", "half", "x.rc:3"); });
  EXPECT_THAT(m.what(), HasSubstr("bad value 'half' for config key 'mixed_precision' (from x.rc:3)"));
  EXPECT_THAT(m.hint(), HasSubstr("none, bfloat16 or float16"));
  EXPECT_EQ(c.mixed_precision, "none");
  EXPECT_THROW(c.set("floatX", "int32"), ConfigError);
  EXPECT_EQ(c.floatX, DType::Float32);
}

TEST(Config, DeviceSyntax) {
  Config c;
  for (auto [in, out] : std::vector<std::pair<const char*, const char*>>{
           {"cpu", "cpu"}, {"cuda", "cuda"}, {"cuda:0", "cuda:0"}, {"cuda:12", "cuda:12"},
           {"opencl", "opencl"}, {"opencl:0:1", "opencl:0:1"}, {"CUDA:1", "cuda:1"}}) {
    c.set("device", in);
    EXPECT_EQ(c.device, out) << in;
  }
  for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:0:1", "opencl:0", "opencl:a:1",
                          "opencl:0:", "opencl::1", "tpu", ""}) {
    Config d;
    auto e = catch_error<ConfigError>([&] { d.set("device", bad, "TGC_FLAGS"); });
    EXPECT_THAT(e.what(), HasSubstr("bad value '" + std::string(bad) + "' for config key 'device'"));
    EXPECT_THAT(e.hint(), HasSubstr("cpu, cuda, cuda:N, opencl or opencl:P:D")) << bad;
    EXPECT_EQ(d.device, "cpu");
  }
}

TEST(Config, TheanoDeviceSpellingsGetAHint) {
  Config c;
  for (const char* theano : {"gpu", "gpu0", "cuda0"}) {
    auto e = catch_error<ConfigError>([&] { c.set("device", theano); });
    EXPECT_THAT(e.hint(), HasSubstr("write cuda:0")) << theano;
  }
}

TEST(Config, Optimizer) {
  Config c;
  for (const char* v : {"fast_compile", "none", "fast_run"}) {
    c.set("optimizer", v);
    EXPECT_EQ(c.optimizer, v);
  }
  c.set("optimizer", "None");  // Theano's spelling
  EXPECT_EQ(c.optimizer, "none");
  auto e = catch_error<ConfigError>([&] { c.set("optimizer", "fastrun", "TGC_FLAGS"); });
  EXPECT_THAT(e.what(), HasSubstr("bad value 'fastrun' for config key 'optimizer'"));
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'fast_run'?"));
  EXPECT_THAT(e.hint(), HasSubstr("fast_run, fast_compile or none"));
  EXPECT_THROW(c.set("optimizer", "o2"), ConfigError);
  EXPECT_EQ(c.optimizer, "none");
}

TEST(Config, AssertNoCpuOp) {
  Config c;
  for (const char* v : {"warn", "raise", "ignore"}) {
    c.set("assert_no_cpu_op", v);
    EXPECT_EQ(c.get("assert_no_cpu_op"), v);
  }
  auto e = catch_error<ConfigError>([&] { c.set("assert_no_cpu_op", "rais"); });
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'raise'?"));
  EXPECT_THAT(e.hint(), HasSubstr("ignore, warn or raise"));
  EXPECT_THROW(c.set("assert_no_cpu_op", "true"), ConfigError);
}

TEST(Config, Paths) {
  Config c;
  c.set("cache_dir", "/tmp/some dir/tgc cache");
  EXPECT_EQ(c.get("cache_dir"), "/tmp/some dir/tgc cache");
  c.set("profile_trace", "out/trace.json");
  EXPECT_EQ(c.profile_trace, "out/trace.json");
  c.set("profile_trace", "");  // back to "no trace"
  EXPECT_EQ(c.profile_trace, "");
  auto e = catch_error<ConfigError>([&] { c.set("cache_dir", ""); });
  EXPECT_THAT(e.what(), HasSubstr("bad value '' for config key 'cache_dir'"));
  EXPECT_EQ(c.cache_dir, "/tmp/some dir/tgc cache");
}

TEST(Config, CacheMaxSizeTakesBinaryUnits) {
  Config c;
  EXPECT_EQ(c.cache_max_size, uint64_t(2) << 30);
  EXPECT_EQ(c.get("cache_max_size"), "2GiB");
  c.set("cache_max_size", "500M");
  EXPECT_EQ(c.cache_max_size, uint64_t(500) << 20);
  EXPECT_EQ(c.get("cache_max_size"), "500MiB");
  c.set("cache_max_size", "3gib");
  EXPECT_EQ(c.cache_max_size, uint64_t(3) << 30);
  c.set("cache_max_size", "1000");
  EXPECT_EQ(c.get("cache_max_size"), "1000");
  c.set("cache_max_size", "0");  // no cap
  EXPECT_EQ(c.cache_max_size, 0u);
  for (const char* bad : {"", "G", "2X", "-1", "1.5G", "99999999999999999999", "5000000000T"}) {
    auto e = catch_error<ConfigError>([&] { c.set("cache_max_size", bad); });
    EXPECT_THAT(e.hint(), HasSubstr("optional unit K, M, G or T")) << bad;
  }
  EXPECT_EQ(c.cache_max_size, 0u) << "a rejected value leaves the old one";
}

TEST(Config, UnknownKeySuggestsTheClosest) {
  Config c;
  auto e = catch_error<ConfigError>([&] { c.set("alow_gc", "true", "TGC_FLAGS"); });
  EXPECT_EQ(e.what_part(), "unknown config key 'alow_gc' (from TGC_FLAGS)");
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'allow_gc'? valid keys: device, floatX, allow_gc,"));
  EXPECT_THAT(e.hint(), HasSubstr("cache_dir"));

  auto lower = catch_error<ConfigError>([&] { c.set("floatx", "float64"); });
  EXPECT_EQ(lower.what_part(), "unknown config key 'floatx'");  // no source: no "(from ...)"
  EXPECT_THAT(lower.hint(), HasSubstr("did you mean 'floatX'?"));

  auto far = catch_error<ConfigError>([&] { c.set("mode", "FAST_RUN"); });
  EXPECT_THAT(far.hint(), ::testing::Not(HasSubstr("did you mean")));
  EXPECT_THAT(far.hint(), HasSubstr("valid keys: device"));

  EXPECT_THROW(c.get("alow_gc"), ConfigError);
}

TEST(ApplyFlags, ItemsBlanksAndEmptyItems) {
  Config c;
  apply_flags(c, " device = cuda:1 ,, floatX=float64,profile=true,", "TGC_FLAGS");
  EXPECT_EQ(c.device, "cuda:1");
  EXPECT_EQ(c.floatX, DType::Float64);
  EXPECT_TRUE(c.profile);
  apply_flags(c, "", "TGC_FLAGS");
  apply_flags(c, " , ,", "TGC_FLAGS");
  EXPECT_EQ(c.device, "cuda:1");
  apply_flags(c, "profile_trace=", "TGC_FLAGS");  // an empty value is a value
  EXPECT_EQ(c.profile_trace, "");
}

TEST(ApplyFlags, ItemWithoutEqualsIsAnError) {
  Config c;
  auto e = catch_error<ConfigError>([&] { apply_flags(c, "device=cpu,profile", "TGC_FLAGS"); });
  EXPECT_THAT(e.what(), HasSubstr("malformed config item 'profile' (from TGC_FLAGS)"));
  EXPECT_THAT(e.hint(), HasSubstr("key=value"));
  EXPECT_THROW(apply_flags(c, "=cpu", "TGC_FLAGS"), ConfigError);
}

TEST(ApplyFlags, ErrorsNameTheSource) {
  Config c;
  auto e = catch_error<ConfigError>([&] { apply_flags(c, "alow_gc=false", "--flags"); });
  EXPECT_EQ(e.what_part(), "unknown config key 'alow_gc' (from --flags)");
  auto v = catch_error<ConfigError>([&] { apply_flags(c, "allow_gc=nope", "TGC_FLAGS"); });
  EXPECT_THAT(v.what(), HasSubstr("bad value 'nope' for config key 'allow_gc' (from TGC_FLAGS)"));
}

// A fresh directory per test for rc files, removed afterwards.
class RcFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("tgc_config_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(RcFile, GlobalSectionCommentsAndKeysBeforeAnySection) {
  std::string path = write("tgcrc",
                           "# a comment\n"
                           "; another comment\n"
                           "device = opencl:0:1\n"
                           "\n"
                           "[global]\n"
                           "floatX = float64   # inline comment\n"
                           "  allow_gc=off ; inline too\n"
                           "cache_dir = /data/tgc#cache\n"
                           "[ global ]\n"
                           "optimizer = fast_compile\n");
  Config c;
  apply_rc_file(c, path);
  EXPECT_EQ(c.device, "opencl:0:1");
  EXPECT_EQ(c.floatX, DType::Float64);
  EXPECT_FALSE(c.allow_gc);
  EXPECT_EQ(c.cache_dir, "/data/tgc#cache");  // '#' without a blank before it is no comment
  EXPECT_EQ(c.optimizer, "fast_compile");
}

TEST_F(RcFile, MissingFileIsFine) {
  Config c;
  apply_rc_file(c, (dir_ / "does_not_exist").string());
  EXPECT_EQ(c.device, "cpu");
}

TEST_F(RcFile, OtherSectionIsAnErrorWithFileAndLine) {
  std::string path = write("tgcrc", "[global]\nprofile=true\n\n[cuda]\nroot=/usr/local/cuda\n");
  Config c;
  auto e = catch_error<ConfigError>([&] { apply_rc_file(c, path); });
  EXPECT_THAT(e.what(), HasSubstr("unknown config section [cuda] at " + path + ":4"));
  EXPECT_THAT(e.hint(), HasSubstr("[global]"));
}

TEST_F(RcFile, MalformedLineIsAnErrorWithFileAndLine) {
  std::string path = write("tgcrc", "[global]\n# ok\nprofile\n");
  Config c;
  auto e = catch_error<IOError>([&] { apply_rc_file(c, path); });
  EXPECT_THAT(e.what(), HasSubstr("malformed line 'profile' at " + path + ":3"));
  EXPECT_THAT(e.hint(), HasSubstr("key = value"));

  std::string header = write("tgcrc2", "device=cpu\n[global\n");
  auto h = catch_error<IOError>([&] { apply_rc_file(c, header); });
  EXPECT_THAT(h.what(), HasSubstr("malformed section header '[global' at " + header + ":2"));
}

TEST_F(RcFile, UnknownKeyAndBadValueNameFileAndLine) {
  std::string path = write("tgcrc", "[global]\nalow_gc = false\n");
  Config c;
  auto e = catch_error<ConfigError>([&] { apply_rc_file(c, path); });
  EXPECT_EQ(e.what_part(), "unknown config key 'alow_gc' (from " + path + ":2)");
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'allow_gc'?"));

  std::string bad = write("tgcrc2", "\n\nfloatX = float8\n");
  auto v = catch_error<ConfigError>([&] { apply_rc_file(c, bad); });
  EXPECT_THAT(v.what(), HasSubstr("bad value 'float8' for config key 'floatX' (from " + bad + ":3)"));
}

TEST_F(RcFile, DirectoryIsAnIOError) {
  Config c;
  EXPECT_THROW(apply_rc_file(c, dir_.string()), IOError);
}

TEST_F(RcFile, AByteOrderMarkIsSkippedAndControlBytesAreEscapedInErrors) {
  std::string bom = write("tgcrc", "\xEF\xBB\xBF" "floatX = float64\n");
  Config c;
  apply_rc_file(c, bom);
  EXPECT_EQ(c.floatX, DType::Float64);

  std::string ctl = write("tgcrc2", "flo\x01" "atX = float64\n");
  auto e = catch_error<ConfigError>([&] { apply_rc_file(c, ctl); });
  EXPECT_THAT(e.what(), HasSubstr("unknown config key 'flo\\x01atX'"));
  std::string long_line = write("tgcrc3", std::string(5000, 'k') + "\n");
  auto l = catch_error<IOError>([&] { apply_rc_file(c, long_line); });
  EXPECT_LT(std::string(l.what()).size(), 400u) << "the 5000-byte line is cut in the message";
  EXPECT_THAT(l.what(), HasSubstr("more bytes)"));
}

TEST_F(RcFile, AFifoADeviceOrAHugeFileIsAnErrorNotAHang) {
  Config c;
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto f = catch_error<IOError>([&] { apply_rc_file(c, fifo); });  // would block forever if opened
  EXPECT_THAT(f.what(), HasSubstr("is not a regular file"));
  auto d = catch_error<IOError>([&] { apply_rc_file(c, "/dev/zero"); });
  EXPECT_THAT(d.what(), HasSubstr("is not a regular file"));
  const std::string huge = (dir_ / "huge").string();
  fs::resize_file(write("huge", ""), 2 << 20);  // sparse: 2 MiB of zeros
  auto h = catch_error<IOError>([&] { apply_rc_file(c, huge); });
  EXPECT_THAT(h.what(), HasSubstr("more than the 1 MiB"));
  apply_rc_file(c, "/dev/null");  // TGCRC=/dev/null: no configuration, on purpose
  EXPECT_EQ(c.device, "cpu");
}

TEST_F(RcFile, PrecedenceDefaultsThenRcThenFlags) {
  std::string path = write("tgcrc", "[global]\ndevice = cuda:0\nfloatX = float64\nprofile = true\n");
  Config c = load_config(path, "floatX=float32,sync=yes");
  EXPECT_EQ(c.device, "cuda:0");         // from the rc file
  EXPECT_EQ(c.floatX, DType::Float32);   // the flags win over the rc file
  EXPECT_TRUE(c.profile);                // from the rc file
  EXPECT_TRUE(c.sync);                   // from the flags
  EXPECT_TRUE(c.allow_gc);               // default
  EXPECT_EQ(c.optimizer, "fast_run");    // default

  Config no_rc = load_config("", "profile=on");
  EXPECT_EQ(no_rc.device, "cpu");
  EXPECT_TRUE(no_rc.profile);

  auto e = catch_error<ConfigError>([&] { load_config(path, "sync=maybe"); });
  EXPECT_THAT(e.what(), HasSubstr("(from TGC_FLAGS)"));
}

// global_config() reads the environment once per process, so each case runs in a child
// process of its own ("threadsafe" death tests re-run only this test there).
class GlobalConfig : public RcFile {
 protected:
  void SetUp() override {
    RcFile::SetUp();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
  // Ends the child process; its TearDown never runs, so it removes its directory here.
  [[noreturn]] void finish(int code) {
    fs::remove_all(dir_);
    std::exit(code);
  }
};

TEST_F(GlobalConfig, ReadsTgcrcThenTgcFlags) {
  std::string path = write("tgcrc", "[global]\ndevice = cuda:1\nfloatX = float64\n");
  EXPECT_EXIT(
      {
        ::setenv("TGCRC", path.c_str(), 1);
        ::setenv("TGC_FLAGS", "floatX=float32,profile=true", 1);
        Config& c = global_config();
        bool ok = c.device == "cuda:1" && c.floatX == DType::Float32 && c.profile;
        // Read once: a later change of the environment is not seen, and every caller (on
        // any thread) gets the same object.
        ::setenv("TGC_FLAGS", "profile=false", 1);
        Config* other = nullptr;
        std::thread([&] { other = &global_config(); }).join();
        ok = ok && other == &c && global_config().profile;
        finish(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(GlobalConfig, ReadsHomeTgcrc) {
  write(".tgcrc", "optimizer = none\n");
  std::string home = dir_.string();
  EXPECT_EXIT(
      {
        ::unsetenv("TGCRC");
        ::unsetenv("TGC_FLAGS");
        ::setenv("HOME", home.c_str(), 1);
        finish(global_config().optimizer == "none" ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(GlobalConfig, BadFlagsAreReported) {
  EXPECT_EXIT(
      {
        ::unsetenv("TGCRC");
        ::setenv("HOME", "/nonexistent-home-for-tgc-tests", 1);
        ::setenv("TGC_FLAGS", "alow_gc=false", 1);
        try {
          global_config();
        } catch (const ConfigError& e) {
          std::fputs(e.what(), stderr);
          finish(3);
        }
        finish(0);
      },
      ::testing::ExitedWithCode(3), "unknown config key 'alow_gc' \\(from TGC_FLAGS\\)");
}

TEST_F(GlobalConfig, TgcrcNamingAMissingFileIsAnError) {
  std::string missing = (dir_ / "nope").string();
  EXPECT_EXIT(
      {
        ::setenv("TGCRC", missing.c_str(), 1);
        ::unsetenv("TGC_FLAGS");
        try {
          global_config();
        } catch (const IOError& e) {
          std::fputs(e.what(), stderr);
          finish(3);
        }
        finish(0);
      },
      ::testing::ExitedWithCode(3), "named by \\$TGCRC does not exist");
}

TEST(EditDistance, CountsEditsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0);
  EXPECT_EQ(edit_distance("abc", ""), 3);
  EXPECT_EQ(edit_distance("", "ab"), 2);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
  EXPECT_EQ(edit_distance("exq", "exp"), 1);        // substitution
  EXPECT_EQ(edit_distance("alow_gc", "allow_gc"), 1);  // insertion
  EXPECT_EQ(edit_distance("flaotX", "floatX"), 1);  // adjacent swap
  EXPECT_EQ(edit_distance("ca", "abc"), 3);         // optimal string alignment, not full Damerau
}

TEST(ClosestMatch, FindsTyposOnly) {
  std::vector<std::string> fns = {"exp", "exp2", "expm1", "log", "sum", "mean", "max"};
  EXPECT_EQ(closest_match("exq", fns), "exp");
  EXPECT_EQ(closest_match("eXp", fns), "exp");
  EXPECT_EQ(closest_match("mena", fns), "mean");
  EXPECT_EQ(closest_match("epxm1", fns), "expm1");
  EXPECT_EQ(closest_match("logsumexp", fns), "");
  EXPECT_EQ(closest_match("x", {"y", "z"}), "");  // one-letter names never "match"
  EXPECT_EQ(closest_match("anything", {}), "");
  EXPECT_EQ(closest_match("floatx", {"floatx2", "floatX"}), "floatX");
  // Ties go to the candidate that also matches the case, then to the earlier one.
  EXPECT_EQ(closest_match("Mix", {"max", "Mux"}), "Mux");
  EXPECT_EQ(closest_match("mux", {"max", "min", "mix"}), "max");
}

TEST(ClosestMatch, GiantNamesGetNoSuggestionAndTakeNoTime) {
  // A 100k-character name against 100 candidates of similar length would be 10^12 table cells:
  // names past 256 characters are not suggested for at all, so this returns at once.
  std::vector<std::string> near(100, std::string(100'000, 'a'));
  EXPECT_EQ(closest_match(std::string(100'000, 'a') + "b", near), "");
  // Within the bound, candidates too different in length are skipped, not compared.
  EXPECT_EQ(closest_match(std::string(200, 'q'), {std::string(199, 'q'), "q"}), std::string(199, 'q'));
}

TEST(Config, DeterministicIsOnByDefault) {
  Config c;
  EXPECT_TRUE(c.deterministic);
  EXPECT_EQ(c.get("deterministic"), "true");
  c.set("deterministic", "off");
  EXPECT_FALSE(c.deterministic);
  EXPECT_THROW(c.set("deterministic", "sometimes", "TGC_FLAGS"), ConfigError);
}

}  // namespace
}  // namespace tgc
