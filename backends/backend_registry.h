// The backends this build has, by name, and the test hook that makes function() use one of
// them: the conformance suite (tests/conformance/) runs every graph on each built backend.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/backend.h"
#include "runtime/config.h"

namespace tgc {

// The names of the backends this build can run, the reference first: "reference" always,
// "llvm" when tgc is built with LLVM, "cuda" / "opencl" when that backend is built and a
// device is present. Forcing "cuda" or "opencl" (below) compiles functions as device=cuda /
// device=opencl would: device nodes on the device, host nodes on the default CPU backend.
std::vector<std::string> built_backends();

// A new backend by name, one of built_backends(); ConfigError for any other name.
std::unique_ptr<Backend> make_named_backend(const std::string& name, const Config& config);

// Test hook, not a user setting: while one lives, function() makes the named backend whatever
// the device key says, so a test can run an optimized graph on the reference backend (its
// fused kernels in the Kernel IR interpreter) in a build with LLVM. Hooks nest (the previous
// one is restored). Not thread-safe: no other thread may compile functions meanwhile.
class ForcedBackendForTests {
 public:
  explicit ForcedBackendForTests(const std::string& name);  // ConfigError if not built
  ~ForcedBackendForTests();
  ForcedBackendForTests(const ForcedBackendForTests&) = delete;
  ForcedBackendForTests& operator=(const ForcedBackendForTests&) = delete;

 private:
  std::optional<std::string> previous_;
};

// The backend a live ForcedBackendForTests names, or nullopt (function()'s normal choice).
std::optional<std::string> forced_backend_for_tests();

}  // namespace tgc
