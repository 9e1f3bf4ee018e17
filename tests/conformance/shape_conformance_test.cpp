// Shape, join and creation ops on every backend, each with elementwise work around it so that
// kernels read and write the views they make: reshape, flatten, dimshuffle, transpose,
// squeeze, expand_dims; concatenate, stack, split; alloc, zeros/ones(_like), fill, arange, eye.
#include "conformance/conformance.h"
#include "support/op_test_util.h"

namespace tgc::conformance {
namespace {

std::vector<Case> shape_op_cases() {
  RandomState rng(31);
  std::vector<Case> out;
  for (DType t : {DType::Float64, DType::Int32}) {
    Var x = tensor3("x", t), m = matrix("m", t), v = vector("v", t);
    auto values = [&](int64_t a, int64_t b, int64_t c) {
      return std::vector<Tensor>{random_values(rng, t, {a, b, c}), random_values(rng, t, {b, c}),
                                 random_values(rng, t, {c})};
    };
    std::vector<std::vector<Tensor>> arg_sets = layouts(values(2, 3, 4));
    arg_sets.push_back(values(1, 5, 1));
    arg_sets.push_back(values(2, 0, 3));
    out.push_back(
        {.name = "shape ops " + std::string(dtype_name(t)),
         .inputs = {x, m, v},
         .outputs = {(reshape(x, {-1}) * 2).as("reshape(x, -1) * 2"),
                     (x.reshape({-1, 1}) + 1).as("reshape(x, (-1, 1)) + 1"),
                     (flatten(x, 2) - 1).as("flatten(x, 2) - 1"),
                     (x.dimshuffle({2, 0, 1}) * 3).as("dimshuffle(x, 2,0,1) * 3"),
                     (m.T() + v.dimshuffle({0, -1})).as("m.T + v[:, newaxis]"),
                     (transpose(x, {1, 0, 2}) + m.dimshuffle({0, -1, 1})).as("transpose(x, 1,0,2) + m[:, newaxis]"),
                     (expand_dims(m, 0) * x).as("expand_dims(m, 0) * x"),
                     (squeeze(expand_dims(v, 1), 1) - v).as("squeeze(expand_dims(v)) - v"), (x.T() * 2).as("x.T * 2")},
         .arg_sets = arg_sets});
  }
  return out;
}

std::vector<Case> join_cases() {
  RandomState rng(32);
  std::vector<Case> out;
  for (DType t : {DType::Float64, DType::Int8}) {
    Var a = matrix("a", t), b = matrix("b", t);
    std::vector<Var> pieces = split(a * 2, {1, 2, 0}, 1);
    out.push_back(
        {.name = "join ops " + std::string(dtype_name(t)),
         .inputs = {a, b},
         .outputs = {(concatenate({a, b}, 0) + 1).as("concatenate axis 0 + 1"),
                     concatenate({a * 2, b, a}, 1).as("concatenate axis 1"), (stack({a, b}) * 2).as("stack axis 0 * 2"),
                     stack({a + b, a - b}, 2).as("stack axis 2"), (pieces[0] + 1).as("split piece 0 + 1"),
                     pieces[1].as("split piece 1"), pieces[2].as("split piece 2 (empty)")},
         .arg_sets = layouts({random_values(rng, t, {4, 3}), random_values(rng, t, {4, 3})})});
  }
  // Pieces of sizes that do not match the axis: both raise.
  Var a = matrix("a", DType::Float64);
  out.push_back(
      {.name = "split with wrong sizes",
       .inputs = {a},
       .outputs = {split(a, {1, 1}, 0)[0] + 1},
       .arg_sets = {{random_values(rng, DType::Float64, {2, 3})}, {random_values(rng, DType::Float64, {3, 3})}}});
  return out;
}

// Creation ops whose results depend on an input, so that they run when the function is
// called rather than in constant folding.
std::vector<Case> creation_cases() {
  RandomState rng(33);
  Var s = scalar("s", DType::Float64), n = scalar("n", DType::Int32), x = matrix("x", DType::Float64),
      v = vector("v", DType::Float64);
  auto args = [&](double sv, int32_t nv, const Tensor& xv, const Tensor& vv) {
    return std::vector<Tensor>{Tensor::scalar(sv), Tensor::scalar(nv), xv, vv};
  };
  return {
      {.name = "creation ops",
       .inputs = {s, n, x, v},
       .outputs = {(alloc(s, {3, 4}) + x).as("alloc(s, (3,4)) + x"), (alloc(v, {2, 4}) * 2.0).as("alloc(v, (2,4)) * 2"),
                   (zeros_like(x) + s).as("zeros_like(x) + s"), (ones_like(x) * v).as("ones_like(x) * v"),
                   (fill(x, s) - x).as("fill(x, s) - x"), (zeros({2, 3}) + s).as("zeros + s"),
                   (ones({4}, DType::Int32) * n).as("ones(int32) * n"),
                   (arange(0, 10, 1.5) * s).as("arange(0, 10, 1.5) * s"), (arange(5) + n).as("arange(5) + n"),
                   (arange(7, 1, -2, DType::Int64) * n).as("arange(7, 1, -2) * n"),
                   (eye(3, 4, 1) + x[{slice(0, 3)}]).as("eye(3, 4, k=1) + x[:3]"),
                   (eye(4, std::nullopt, -1, DType::Int32) * n).as("eye(4, k=-1) * n")},
       .arg_sets = {args(2.5, 3, random_values(rng, DType::Float64, {3, 4}), random_values(rng, DType::Float64, {4})),
                    args(-1.0, -2, test::fortran_layout(random_values(rng, DType::Float64, {3, 4})),
                         test::reversed_layout(random_values(rng, DType::Float64, {4}), 0))}}};
}

// An output that constant folding turns into a constant is returned on every call.
std::vector<Case> constant_output_cases() {
  Var x = vector("x", DType::Float64);
  const Tensor vx = Tensor::from_vector(std::vector<double>{1, 2});
  return {{.name = "a constant output",
           .inputs = {x},
           .outputs = {(zeros({2}) + 1.0).as("zeros + 1"), (x * 2.0).as("x * 2")},
           .arg_sets = {{vx}, {vx}}}};
}

[[maybe_unused]] const bool kRegistered =
    register_family("shape ops", &shape_op_cases) && register_family("join ops", &join_cases) &&
    register_family("creation ops", &creation_cases) && register_family("constant outputs", &constant_output_cases);

TEST_P(Conformance, ShapeOps) { expect_all_conform(&shape_op_cases); }
TEST_P(Conformance, JoinOps) { expect_all_conform(&join_cases); }
TEST_P(Conformance, CreationOps) { expect_all_conform(&creation_cases); }
TEST_P(Conformance, ConstantOutputsOnEveryCall) { expect_all_conform(&constant_output_cases); }

}  // namespace
}  // namespace tgc::conformance
