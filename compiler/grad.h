// grad(): symbolic reverse-mode differentiation. Walks the graph from a scalar cost back to
// the variables asked for, calling each op's Op::grad rule, summing the contributions of
// every path; the result is an ordinary graph that functions compile like any other.
#pragma once

#include <utility>
#include <vector>

#include "ops/core/variable.h"
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

enum class DisconnectedInputs { Raise, Warn, Ignore };

struct GradOptions {
  // What to do when the cost does not depend on one of `wrt`: raise an InputError naming
  // it, warn on stderr, or silently return zeros (Theano's disconnected_inputs).
  DisconnectedInputs disconnected_inputs = DisconnectedInputs::Raise;
  // Gradients already known for some variables (Theano's known_grads): the walk starts
  // from these as well as from the cost (which may then be null).
  std::vector<std::pair<VarPtr, VarPtr>> known_grads{};
  // Variables treated as constants: no gradient flows through them.
  std::vector<VarPtr> consider_constant{};
  // Differentiate the stabilized form of the cost (the optimizer's stabilize rules applied
  // to a copy: log(1 - sigmoid(z)) -> -softplus(z), ...), so a cost that is finite only
  // after stabilization gets finite gradients too. Applies when every wrt is an input or a
  // shared variable and known_grads/consider_constant name only such variables; skipped
  // when the global config says optimizer=none or excludes "stabilize".
  bool stabilize = true;
};

// d cost / d w for each w in wrt. `cost` must be a 0-d float tensor. An op on the way
// without a gradient rule is a TypeError naming the op and the path from the cost.
std::vector<VarPtr> grad(const VarPtr& cost, const std::vector<VarPtr>& wrt,
                         const GradOptions& options = {});

TGC_API_END
}  // namespace tgc
