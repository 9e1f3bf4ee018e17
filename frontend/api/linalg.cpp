// Frontend API: dot, batched_dot, matmul, outer.
#include <tgc/linalg.h>

#include <memory>

#include "ops/blas/batched_dot.h"
#include "ops/blas/dot.h"
#include "ops/blas/outer.h"
#include "ops/core/apply.h"

namespace tgc {

Var dot(const Var& x, const Var& y) { return Var(apply1(std::make_shared<Dot>("dot"), to_ptrs({x, y}))); }

Var batched_dot(const Var& x, const Var& y) {
  return Var(apply1(std::make_shared<BatchedDot>("batched_dot"), to_ptrs({x, y})));
}

Var matmul(const Var& x, const Var& y) {
  std::vector<VarPtr> in = to_ptrs({x, y});
  if (in[0]->type().ndim() <= 2 && in[1]->type().ndim() <= 2) {
    // NumPy's matmul rejects scalars, which Dot does too, with a hint to use *.
    return Var(apply1(std::make_shared<Dot>("matmul"), std::move(in)));
  }
  return Var(apply1(std::make_shared<BatchedDot>("matmul"), std::move(in)));
}

Var outer(const Var& x, const Var& y) { return Var(apply1(std::make_shared<Outer>(), to_ptrs({x, y}))); }

}  // namespace tgc
