// The unfused op that computes one value of a kernel (Elemwise for Op values, CAReduce or
// Mean for Reduce values): the Kernel IR's meaning, reused by type and shape inference and
// by the interpreter's general path so that they agree with the unfused graph by construction.
#pragma once

#include <memory>

#include "compiler/kernel/kernel_ir.h"
#include "ops/core/op.h"

namespace tgc {

// Null for Load and Constant values. The value's arguments must be its op's operands as
// the kernel holds them (already converted), which validate() guarantees.
std::shared_ptr<const Op> reference_op(const Kernel& kernel, int value);

}  // namespace tgc
