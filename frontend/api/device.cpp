// gpu_from_host(): the user's transfer marker, a HostToDevice node.
#include <tgc/device.h>

#include "ops/core/apply.h"
#include "ops/transfer/transfer.h"

namespace tgc {

Var gpu_from_host(const Var& x) { return Var(apply1(std::make_shared<HostToDevice>(), {checked_ptr(x)})); }

}  // namespace tgc
