// The fast path of the operations <tgc/eager.h> defines itself (eager_ops.cpp): an operation
// that runs at once (a non-elementwise one, or any with eager_fusion=off) on concrete operands
// is looked up by a signature -- the operation and its parameters, as the caller writes them,
// and each operand's dtype, rank and size-1 dims, and the device -- which names its compiled
// call directly, so the graph is built and keyed only on the signature's first use. Any other
// case (operands pending, aliased or on two devices, a test's forced backend) takes eager().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <tgc/eager.h>

namespace tgc::eager_impl {

// `op`: the operation and its parameters, distinct for every distinct graph f builds (e.g.
// "add", "mul" + the literal's bytes, "sum" + the axes). `elementwise`: whether eager() would
// record it rather than run it.
Tensor eager_known(const std::string& op, bool elementwise, const std::function<Var(const std::vector<Var>&)>& f,
                   const std::vector<Tensor>& args);

// Appends the bytes of a value to a signature.
template <typename T>
void append_bytes(std::string& s, const T& v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof(v));
}

}  // namespace tgc::eager_impl
