// PendingValue: the value of a Tensor that is not computed yet. Eager operations on tensors
// (frontend/api/eager/, docs/eager.md) record elementwise work instead of running it, so
// that a chain of them runs as one fused kernel when its value is first needed; the Tensor
// they return holds a PendingValue until then. runtime/ only knows this interface: what
// computes the value (the compiler) lives above it.
#pragma once

#include <string>

namespace tgc {

class Device;
class Tensor;

class PendingValue {
 public:
  virtual ~PendingValue() = default;
  // The computed value (a concrete tensor of the promised dtype and shape), computed on the
  // first call and returned by every later one. Thread-safe. Throws what the computation
  // threw, naming the operation, on every call until one succeeds.
  virtual const Tensor& value() = 0;
  // Whether value() has been computed already.
  virtual bool computed() const = 0;
  // The device the value will live on.
  virtual Device& device() const = 0;
  // The recorded work in words, e.g. "add(mul(a, 2), b)", for errors and printing.
  virtual std::string describe() const = 0;
};

}  // namespace tgc
