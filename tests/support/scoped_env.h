// Sets (or, with nullptr, unsets) an environment variable for one scope, restoring the old value
// after: the library loaders' overrides (TGC_NCCL_LIBRARY, TGC_CUDNN_LIBRARY) in their tests.
#pragma once

#include <cstdlib>
#include <string>

namespace tgc::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old) old_ = old;
    had_ = old != nullptr;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace tgc::testing
