// Products on every backend: dot in each of its forms (vector·vector, matrix·vector,
// vector·matrix, matrix·matrix), transposed operands (symbolic and as column-major views),
// the Gemm/Gemv that the optimizer makes from scaled products with an addend (and, for a
// matrix of known size, the reductions a GPU makes of its products with vectors), outer,
// batched_dot and matmul; integer products; empty inner and outer dims.
#include "conformance/conformance.h"
#include "support/op_test_util.h"

namespace tgc::conformance {
namespace {

std::vector<Case> dot_cases() {
  RandomState rng(21);
  std::vector<Case> out;
  for (DType t : {DType::Float64, DType::Float32}) {
    const std::string name(dtype_name(t));
    Var a = matrix("a", t), b = matrix("b", t), c = matrix("c", t), u = vector("u", t), v = vector("v", t);
    auto values = [&](int64_t m, int64_t k, int64_t n) {
      return std::vector<Tensor>{random_values(rng, t, {m, k}), random_values(rng, t, {k, n}),
                                 random_values(rng, t, {m, n}), random_values(rng, t, {k}), random_values(rng, t, {n})};
    };
    std::vector<std::vector<Tensor>> arg_sets = layouts(values(9, 13, 7));
    arg_sets.push_back(values(1, 5, 1));
    arg_sets.push_back(values(4, 0, 3));  // empty inner dim: zeros
    arg_sets.push_back(values(0, 3, 2));  // empty outer dim
    out.push_back(
        {.name = "dot forms " + name,
         .inputs = {a, b, c, u, v},
         .outputs = {dot(a, b).as("matrix.matrix"), dot(a, u).as("matrix.vector"), dot(v, b.T()).as("vector.matrix^T"),
                     dot(u, u).as("vector.vector"), dot(a.T(), c).as("matrix^T.matrix"),
                     dot(b.T(), a.T()).as("matrix^T.matrix^T"), (dot(a, b) * 2.0 + c * 0.5).as("2 ab + c/2 (gemm)"),
                     (c - dot(a, b)).as("c - ab (gemm)"), (dot(a, u) * 3.0 + dot(c, v)).as("3 au + cv (gemv)"),
                     (dot(a, b) + v).as("ab + bias row")},
         .arg_sets = arg_sets,
         .tolerance = kSummation});
    // A matrix of known size: on a GPU, its products with vectors are reduction kernels
    // fused with what reads them (decompose_for_fusion's matvec_to_reduction), not BLAS.
    Var s = tensor("s", t, {9, 13}), s_row = vector("s_row", t), s_col = vector("s_col", t);
    out.push_back({.name = "matrix.vector of a known small matrix " + name,
                   .inputs = {s, s_row, s_col},
                   .outputs = {dot(s, s_row).as("s.row"), dot(s_col, s).as("col.s"),
                               (dot(s, s_row) * 3.0 + s_col).as("3 s.row + col (gemv)"),
                               (s_row - 0.5 * dot(s.T(), s_col)).as("row - s^T.col / 2 (gemv transA)"),
                               sigmoid(dot(s, s_row) + 1.0).as("sigmoid(s.row + 1)")},
                   .arg_sets = layouts({random_values(rng, t, {9, 13}), random_values(rng, t, {13}),
                                        random_values(rng, t, {9})}),
                   .tolerance = kSummation});
    Var x = tensor3("x", t), y = tensor3("y", t);
    out.push_back(
        {.name = "outer, batched_dot, matmul " + name,
         .inputs = {x, y, u, v, a},
         .outputs = {outer(u, v), batched_dot(x, y), matmul(x, y), matmul(x, a), matmul(a, y),
                     (outer(u, v) * 2.0 + 1.0).as("outer * 2 + 1")},
         .arg_sets = {{random_values(rng, t, {3, 4, 5}), random_values(rng, t, {3, 5, 2}), random_values(rng, t, {6}),
                       random_values(rng, t, {4}), random_values(rng, t, {5, 5})},
                      {test::fortran_layout(random_values(rng, t, {3, 4, 5})), random_values(rng, t, {3, 5, 0}),
                       random_values(rng, t, {0}), random_values(rng, t, {4}), random_values(rng, t, {5, 5})}},
         .tolerance = kSummation});
  }
  // Integer products do not go through BLAS: exact.
  Var i = matrix("i", DType::Int32), j = matrix("j", DType::Int32), w = vector("w", DType::Int64);
  out.push_back(
      {.name = "integer dot",
       .inputs = {i, j, w},
       .outputs = {dot(i, j), dot(i, w), dot(w, i.T()) + 1},
       .arg_sets = layouts({rng.randint(-9, 9, {6, 5}, DType::Int32), rng.randint(-9, 9, {5, 4}, DType::Int32),
                            rng.randint(-9, 9, {5}, DType::Int64)})});
  return out;
}

[[maybe_unused]] const bool kRegistered = register_family("dot", &dot_cases);

TEST_P(Conformance, DotInEachForm) { expect_all_conform(&dot_cases); }

}  // namespace
}  // namespace tgc::conformance
