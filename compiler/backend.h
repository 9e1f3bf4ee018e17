// The interface a backend implements for the compiler: turning one scheduled node into a
// thunk. Backends render what the compiler decided; they never re-derive graph decisions.
#pragma once

#include <string>

#include "ops/core/node.h"
#include "runtime/program.h"

namespace tgc {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "reference", later "llvm", "cuda", "opencl"
  virtual DeviceKind device_kind() const = 0;
  // The function that runs `node` on each call. Called once per node inside function(),
  // never on a call: all compilation happens here.
  virtual ThunkFn make_thunk(const Node& node) const = 0;
};

}  // namespace tgc
