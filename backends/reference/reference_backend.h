// The reference backend: every node runs its op's reference perform() on the host. It is the
// oracle the conformance suite compares the compiling backends against.
#pragma once

#include "compiler/backend.h"

namespace tgc {

class ReferenceBackend final : public Backend {
 public:
  std::string name() const override { return "reference"; }
  DeviceKind device_kind() const override { return DeviceKind::Host; }
  ThunkFn make_thunk(const Node& node) const override;
};

}  // namespace tgc
