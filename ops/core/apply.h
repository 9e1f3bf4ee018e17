// apply(): the one way graphs grow — infers output types and builds the Node, attaching the
// user's variable names to any type or shape error the op's rule raises.
#pragma once

#include <memory>
#include <vector>

#include "ops/core/node.h"

namespace tgc {

std::vector<VarPtr> apply(std::shared_ptr<const Op> op, std::vector<VarPtr> inputs);
// For single-output ops.
VarPtr apply1(std::shared_ptr<const Op> op, std::vector<VarPtr> inputs);

// The call as the user wrote it, from the op's user_name-free display: "Elemwise{exp}(x)".
std::string describe_call(const Op& op, const std::vector<VarPtr>& inputs);

}  // namespace tgc
