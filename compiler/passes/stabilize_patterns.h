// What the stabilize rules match and build: elementwise shapes such as 1 + x, 1 - x, 1 / d,
// constants holding one value, and a builder of Elemwise nodes that negates without piling
// up neg(neg(x)) (the rules also run inside grad(), where no canonicalize pass cleans up).
#pragma once

#include <optional>
#include <vector>

#include "ops/core/node.h"
#include "ops/elemwise/elemwise.h"

namespace tgc::stabilize_patterns {

// The Elemwise op of v's producer when it is of `kind`; null otherwise.
const Elemwise* elemwise_of(const Variable* v, ScalarOpKind kind);
// The input `i` of v's producer (v must be a Result).
const VarPtr& arg(const Variable* v, int i);
// The value of a constant with exactly one element (any rank), or nullopt.
std::optional<double> single_value(const Variable* v);
bool is_value(const Variable* v, double value);

// x when v is 1 + x or x + 1.
VarPtr one_plus(const Variable* v);
// x when v is 1 - x, 1 + (-x) or (-x) + 1.
VarPtr one_minus(const Variable* v);
// x when v is x - 1, x + (-1) or (-1) + x.
VarPtr minus_one(const Variable* v);
// d when `node` computes 1 / d or d ** -1.
VarPtr reciprocal_of(const Node& node);

// Builds Elemwise nodes with one floatX (the rewritten node's, so the replacement's ops have
// the same identity the user's would have had).
class Builder {
 public:
  explicit Builder(DType floatx) : floatx_(floatx) {}
  VarPtr ew(ScalarOpKind kind, std::vector<VarPtr> inputs) const;
  // x converted to `dtype` (x itself when it has it).
  VarPtr cast(const VarPtr& x, DType dtype) const;
  // -x, simplified where it is exact: -(-a) = a, -(a - b) = b - a, -(-a - b) = a + b,
  // -(a + -b) = b - a, -(c) = a constant -c.
  VarPtr negate(const VarPtr& x) const;

 private:
  DType floatx_;
};

// The floatX of a node's Elemwise op (or the global one for other ops).
DType floatx_of(const Node& node);

// {replacement} when it may stand where `node`'s single output is read (interchangeable
// types); {} otherwise, so a rule that would change a type simply does not apply. Gives the
// replacement the output's name when it is a fresh, unnamed result (p_1 stays p_1).
std::vector<VarPtr> replace_with(const Node& node, VarPtr replacement);

}  // namespace tgc::stabilize_patterns
