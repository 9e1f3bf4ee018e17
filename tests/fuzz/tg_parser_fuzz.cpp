// libFuzzer target over the .tg language: lexer, parser, evaluator, the graph builder's
// type and shape checks, and function compilation (the optimizer and the backend's
// linking). Every input must load or fail with a user error (tgc::Error); an internal error,
// any other exception, a crash, a hang or a sanitizer report is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <unistd.h>

#include "frontend/lang/tg_program.h"

namespace {

// Inputs that load must stay cheap: small generated values, no file reads.
tgc::lang::LoadLimits fuzz_limits() {
  tgc::lang::LoadLimits limits;
  limits.max_elements = int64_t{1} << 20;
  limits.allow_load = false;
  limits.max_function_nodes = 2000;
  return limits;
}

// Functions compile with the full optimizer for every third input (by size, so an input
// always takes the same path) and with fast_compile, which fuses nothing and so JIT-compiles
// nothing, for the others; kernels are cached in a folder of this process only.
// TGC_FUZZ_CONFIG="key=value,..." overrides config keys (e.g. optimizer=none to fuzz the
// language alone while a pass is known to be broken).
tgc::FunctionOptions fuzz_options(size_t size) {
  static const std::string cache = "/tmp/tgc-fuzz-cache-" + std::to_string(getpid());
  static const std::map<std::string, std::string> overrides = [] {
    std::map<std::string, std::string> out;
    std::string_view rest = std::getenv("TGC_FUZZ_CONFIG") ? std::getenv("TGC_FUZZ_CONFIG") : "";
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      if (const size_t eq = item.find('='); eq != std::string_view::npos)
        out[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    }
    return out;
  }();
  tgc::FunctionOptions options;
  options.config = {{"optimizer", size % 3 == 0 ? "fast_run" : "fast_compile"}, {"cache_dir", cache}};
  for (const auto& [key, value] : overrides) options.config[key] = value;
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  try {
    tgc::lang::load_source(source, "fuzz.tg", fuzz_options(size), fuzz_limits());
  } catch (const tgc::InternalError& e) {
    std::fprintf(stderr, "internal error escaped:\n%s\n", e.what());
    std::abort();
  } catch (const tgc::Error&) {
    // A user error, reported as it should be.
  }
  return 0;
}
