// The truth of a branch condition: a tensor of one element (any dtype, on any device) that
// is nonzero. Shared by the executor's guard tests and IfElse's evaluation.
#pragma once

#include "runtime/tensor.h"

namespace tgc {

// Copies a device scalar back to the host first, which waits for the device's work before it
// (docs/control-flow.md: where the condition lives). Raises ValueError when `cond` does not
// hold exactly one value.
bool condition_holds(const Tensor& cond);

// The ValueError condition_holds raises when `cond` does not hold exactly one value (a
// recording, which reads the condition on the device, checks the same rule first).
void check_condition_size(const Tensor& cond);

}  // namespace tgc
