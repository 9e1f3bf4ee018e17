// Rendered reduction kernels against CAReduce/Mean: every reduce op, axes inner, outer and
// all, keepdims, prologue and epilogue, integer and bool dtypes, empty reductions; float
// sums accumulate in double like the reference, in an order fixed by the compiled code.
#include <gtest/gtest.h>

#include "cpu_test_util.h"

namespace tgc {
namespace {

using test::expect_llvm_matches_graph;
using test::random_tensor;

TEST(CpuReductions, EveryReduceOpOverEachAxisSet) {
  Var m = matrix("m");
  Tensor value = random_tensor({13, 21}, DType::Float32, 1);
  for (Axes axes : {Axes(0), Axes(1), Axes()}) {
    SCOPED_TRACE(axes.axes ? "axis " + std::to_string((*axes.axes)[0]) : "all axes");
    expect_llvm_matches_graph({m}, {sum(exp(m) * 2.0, axes)}, {value}, 1e-6);
    expect_llvm_matches_graph({m}, {prod(m, axes)}, {value}, 1e-6);
    expect_llvm_matches_graph({m}, {max(m * m, axes)}, {value});
    expect_llvm_matches_graph({m}, {min(m + 1.0, axes)}, {value});
    expect_llvm_matches_graph({m}, {mean(m, axes) * 3.0}, {value}, 1e-6);
    expect_llvm_matches_graph({m}, {all(m > 0.0, axes)}, {value});
    expect_llvm_matches_graph({m}, {any(m > 2.5, axes)}, {value});
  }
}

TEST(CpuReductions, KeepdimsEpilogueAndOutputSpaceInputs) {
  Var x = tensor3("x", DType::Float64), bias = matrix("bias", DType::Float64);
  Tensor xv = random_tensor({4, 5, 6}, DType::Float64, 2), bv = random_tensor({4, 6}, DType::Float64, 3);
  expect_llvm_matches_graph({x}, {sum(x * x, std::vector<int>{1}, /*keepdims=*/true) + 1.0}, {xv}, 1e-12);
  expect_llvm_matches_graph({x, bias}, {log(sum(exp(x), std::vector<int>{1})) + bias}, {xv, bv}, 1e-12);
  expect_llvm_matches_graph({x}, {max(x, std::vector<int>{0, 2})}, {xv});
}

TEST(CpuReductions, IntegerAndBoolDtypes) {
  Var i = matrix("i", DType::Int32), u = matrix("u", DType::UInt8), c = matrix("c", DType::Bool);
  std::vector<Tensor> values{random_tensor({6, 7}, DType::Int32, 4), random_tensor({6, 7}, DType::UInt8, 5),
                             random_tensor({6, 7}, DType::Bool, 6)};
  // One kernel folds one set of axes: one graph per reduction.
  expect_llvm_matches_graph({i, u, c}, {sum(i * u, 1)}, values);
  expect_llvm_matches_graph({i, u, c}, {max(u, 0)}, values);
  expect_llvm_matches_graph({i, u, c}, {min(i, 1)}, values);
  expect_llvm_matches_graph({i, u, c}, {prod(i, 0)}, values);
  expect_llvm_matches_graph({i, u, c}, {sum(c, 0)}, values);
  expect_llvm_matches_graph({c}, {all(c, 1)}, {values[2]});
  expect_llvm_matches_graph({c}, {any(c, 0)}, {values[2]});
  expect_llvm_matches_graph({c}, {max(c, 1)}, {values[2]});
}

TEST(CpuReductions, NanWinsMaxAndMin) {
  Var v = vector("v");
  Tensor value = Tensor::from_vector(std::vector<float>{1, std::nanf(""), 3, -2});
  expect_llvm_matches_graph({v}, {max(v), min(v)}, {value});
}

TEST(CpuReductions, EmptyReducedAxes) {
  Var m = matrix("m");
  expect_llvm_matches_graph({m}, {sum(m, std::vector<int>{1}), prod(m, std::vector<int>{1}), mean(m, std::vector<int>{1})},
                            {random_tensor({3, 0}, DType::Float32, 8)});
}

TEST(CpuReductions, LargeSumIsTheSameOnEveryRun) {
  Var m = matrix("m");
  test::WholeGroup w = test::whole_group({m}, {sum(m * m, std::vector<int>{1})});
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> args{random_tensor({64, 4099}, DType::Float32, 9)};
  Tensor first = test::run_llvm(lowered.kernel, args)[0];
  for (int run = 0; run < 3; ++run) EXPECT_TRUE(test::same_values(test::run_llvm(lowered.kernel, args)[0], first));
}

}  // namespace
}  // namespace tgc
