// The canonicalize rules and what they share (private to canonicalize*.cpp): how a rule
// recognises a constant "1" or "0" and checks that dropping it keeps the result's shape.
#pragma once

#include <optional>
#include <vector>

#include "compiler/passes/local_rewrite.h"
#include "ops/elemwise/elemwise.h"

namespace tgc::canon {

// Whether every element of v is `value`: a constant (of any shape) whose elements all
// equal it, or an Alloc, Fill or DimShuffle of such a constant (zeros({4000, 4000}) stays
// an Alloc after constant folding, and is still a "0").
bool is_filled_with(const Variable& v, double value);

// Whether broadcasting `other` against `x` leaves x's runtime shape as it is: `other` has
// no more axes than x, and each of its (right-aligned) dims is known to be 1 or known to
// equal x's known dim. x * ones({3, 4}) with a vector x is not x.
bool broadcasts_into(const Type& other, const Type& x);

// The Elemwise op of `n` when it is of `kind`, else null.
const Elemwise* elemwise(const Node& n, ScalarOpKind kind);
// The Elemwise op producing v when it is of `kind`, else null.
const Elemwise* produced_by(const Variable& v, ScalarOpKind kind);

// x converted to `dtype` (x itself when it has it): what keeps a rule's result in the dtype
// of the output it replaces (int32 x * 1.0 is a float, so it becomes cast(x, float32)).
VarPtr as_dtype(const VarPtr& x, DType dtype);
// An Elemwise node of `kind` over `inputs` whose floatX is `floatx` (the replaced op's, so
// integer inputs compute in the same float type as before).
VarPtr ew(ScalarOpKind kind, std::vector<VarPtr> inputs, DType floatx);
// A 0-d constant.
VarPtr scalar_constant(double value, DType dtype);

// Lazy ifelse rules (canonicalize_ifelse.cpp).
std::vector<VarPtr> ifelse_constant_condition(Node& n, const RewriteEnv& env);
std::vector<VarPtr> ifelse_same_branches(Node& n, const RewriteEnv& env);

// Arithmetic rules (canonicalize_arith.cpp).
std::vector<VarPtr> mul_by_one(Node& n, const RewriteEnv& env);
std::vector<VarPtr> add_zero(Node& n, const RewriteEnv& env);
std::vector<VarPtr> sub_zero(Node& n, const RewriteEnv& env);
std::vector<VarPtr> sub_self(Node& n, const RewriteEnv& env);
std::vector<VarPtr> neg_neg(Node& n, const RewriteEnv& env);
std::vector<VarPtr> div_by_one(Node& n, const RewriteEnv& env);
std::vector<VarPtr> pow_one(Node& n, const RewriteEnv& env);
std::vector<VarPtr> pow_two(Node& n, const RewriteEnv& env);
std::vector<VarPtr> pow_half(Node& n, const RewriteEnv& env);
std::vector<VarPtr> pow_minus_one(Node& n, const RewriteEnv& env);
std::vector<VarPtr> exp_log(Node& n, const RewriteEnv& env);
std::vector<VarPtr> log_exp(Node& n, const RewriteEnv& env);
std::vector<VarPtr> useless_cast(Node& n, const RewriteEnv& env);

// Constant rules (canonicalize_constants.cpp).
std::vector<VarPtr> fold_constants(Node& n, const RewriteEnv& env);
std::vector<VarPtr> scalar_constant_operand(Node& n, const RewriteEnv& env);
std::vector<VarPtr> constant_chain(Node& n, const RewriteEnv& env);
std::vector<VarPtr> where_constant_condition(Node& n, const RewriteEnv& env);

// Fill sinking (canonicalize_fill_sink.cpp).
std::vector<VarPtr> fill_sink(Node& n, const RewriteEnv& env);
std::vector<VarPtr> fill_fill(Node& n, const RewriteEnv& env);
std::vector<VarPtr> dimshuffle_fill_sink(Node& n, const RewriteEnv& env);
std::vector<VarPtr> sum_of_alloc(Node& n, const RewriteEnv& env);

// Shape rules (canonicalize_shape.cpp).
std::vector<VarPtr> useless_reshape(Node& n, const RewriteEnv& env);
std::vector<VarPtr> useless_flatten(Node& n, const RewriteEnv& env);
std::vector<VarPtr> identity_dimshuffle(Node& n, const RewriteEnv& env);
std::vector<VarPtr> dimshuffle_dimshuffle(Node& n, const RewriteEnv& env);
std::vector<VarPtr> useless_alloc(Node& n, const RewriteEnv& env);
std::vector<VarPtr> fill_to_alloc(Node& n, const RewriteEnv& env);
std::vector<VarPtr> static_reduce_count(Node& n, const RewriteEnv& env);
std::vector<VarPtr> static_shape_of(Node& n, const RewriteEnv& env);
std::vector<VarPtr> static_arange_like(Node& n, const RewriteEnv& env);
std::vector<VarPtr> static_reshape_like(Node& n, const RewriteEnv& env);
std::vector<VarPtr> static_split_like(Node& n, const RewriteEnv& env);
std::vector<VarPtr> useless_stop_gradient(Node& n, const RewriteEnv& env);

// Broadcast rules, proven with env.shapes (canonicalize_broadcast.cpp).
std::vector<VarPtr> useless_sum_to_like(Node& n, const RewriteEnv& env);
std::vector<VarPtr> sum_to_like_to_sum(Node& n, const RewriteEnv& env);
std::vector<VarPtr> useless_fill(Node& n, const RewriteEnv& env);
std::vector<VarPtr> fill_into_elemwise(Node& n, const RewriteEnv& env);

}  // namespace tgc::canon
