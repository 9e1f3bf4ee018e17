// run_kernel against the unfused graph's reference evaluation: elementwise kernels bit for
// bit (broadcasting, casts, integer wrap and errors), reductions with prologue and epilogue,
// empty and non-contiguous tensors, block boundaries, and the general path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

using test::expect_kernel_matches_graph;
using test::Path;
using test::random_tensor;
using ::testing::HasSubstr;

TEST(KernelInterpreter, MultiOutputElementwise) {
  Var x = matrix("x"), y = matrix("y");
  expect_kernel_matches_graph({x, y}, {x + y, x - y},
                              {random_tensor({4, 7}, DType::Float32, 1), random_tensor({4, 7}, DType::Float32, 2)});
}

TEST(KernelInterpreter, BroadcastsVectorsScalarsAndConstants) {
  Var v = vector("v"), m = matrix("m"), s = scalar("s");
  expect_kernel_matches_graph({v, m, s}, {exp(v + m) * s + 2.5, sigmoid(m - s)},
                              {random_tensor({5}, DType::Float32, 3), random_tensor({3, 5}, DType::Float32, 4),
                               random_tensor({}, DType::Float32, 5)});
  // A size-1 dim known only at run time broadcasts against a full one inside one op: the
  // loop space is still the shape of every computed value.
  expect_kernel_matches_graph({v, m}, {tanh(v * m)},
                              {random_tensor({5}, DType::Float32, 6), random_tensor({1, 5}, DType::Float32, 7)});
}

TEST(KernelInterpreter, MixedDtypesWithCasts) {
  Var i = matrix("i", DType::Int32), f = matrix("f"), d = vector("d", DType::Float64);
  Var c = matrix("c", DType::Bool), u = matrix("u", DType::UInt8);
  std::vector<Tensor> values{random_tensor({3, 4}, DType::Int32, 8), random_tensor({3, 4}, DType::Float32, 9),
                             random_tensor({4}, DType::Float64, 10), random_tensor({3, 4}, DType::Bool, 11),
                             random_tensor({3, 4}, DType::UInt8, 12)};
  expect_kernel_matches_graph({i, f, d, c, u},
                              {i + f, where(c, i, f), exp(i) * d, (i < f) | c, u + i, cast(f * 10, DType::Int8),
                               cast(i, DType::Float32) / 3, isnan(log(f)), floor(i) + u},
                              values);
}

TEST(KernelInterpreter, IntegerOpsWrapLikeTheUnfusedOps) {
  Var a = vector("a", DType::Int8), b = vector("b", DType::Int8), u = vector("u", DType::UInt8);
  Tensor ta = Tensor::from_vector(std::vector<int8_t>{100, -100, 127, -128, 7, -7});
  Tensor tb = Tensor::from_vector(std::vector<int8_t>{3, 5, 1, -1, -2, 2});
  Tensor tu = Tensor::from_vector(std::vector<uint8_t>{0, 1, 255, 200, 3, 9});
  expect_kernel_matches_graph({a, b, u}, {a * b + a, floor_div(a, b), a % b, -a, abs(a), u - u * u, square(b)},
                              {ta, tb, tu});
}

TEST(KernelInterpreter, IntegerDivisionByZeroRaises) {
  Var a = vector("a", DType::Int32), b = vector("b", DType::Int32);
  test::WholeGroup w = test::whole_group({a, b}, {floor_div(a, b) + 1});
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> args{Tensor::from_vector(std::vector<int32_t>{1, 2, 3}),
                           Tensor::from_vector(std::vector<int32_t>{1, 0, 1})};
  std::vector<Tensor> out(1);
  ValueError e = test::catch_error<ValueError>([&] { run_kernel(lowered.kernel, args, out); });
  EXPECT_THAT(e.what(), HasSubstr("integer division by zero"));
}

TEST(KernelInterpreter, ValuesOfConstantsOnlyAndScalarKernels) {
  // An op of two constants is computed once and read by every element.
  Var x = matrix("x"), s = scalar("s");
  Var seven = constant(3, DType::Int32) + constant(4, DType::Int32);
  expect_kernel_matches_graph({x}, {x * seven, x + sqrt(constant(2.0, DType::Float64))},
                              {random_tensor({3, 4}, DType::Float32, 40)});
  // Rank-0 kernels, with and without a reduction.
  expect_kernel_matches_graph({s}, {s * 2 + 1, exp(s)}, {Tensor::scalar(0.75f)});
  expect_kernel_matches_graph({s}, {sum(s * s) + 1}, {Tensor::scalar(0.75f)});
  // A constant integer division by zero raises like the unfused node, whatever the shapes.
  Var bad = floor_div(constant(1, DType::Int32), constant(0, DType::Int32));
  test::WholeGroup w = test::whole_group({x}, {x * bad});
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> out(1);
  EXPECT_THROW(run_kernel(lowered.kernel, {Tensor::zeros(DType::Float32, {0, 4})}, out), ValueError);
}

TEST(KernelInterpreter, ReductionsOfAPrologue) {
  Var x = matrix("x"), y = matrix("y");
  Tensor tx = random_tensor({6, 9}, DType::Float32, 13), ty = random_tensor({6, 9}, DType::Float32, 14);
  expect_kernel_matches_graph({x}, {sum(x * x)}, {tx});
  expect_kernel_matches_graph({x, y}, {sum(x * y, 1)}, {tx, ty});
  expect_kernel_matches_graph({x, y}, {sum(x * y, 1, true)}, {tx, ty});
  expect_kernel_matches_graph({x}, {sum(exp(x), 0, true)}, {tx});
  // Several reductions over the same axes, sharing the prologue.
  expect_kernel_matches_graph({x}, {sum(x, 0), sum(x * x, 0), max(x, 0)}, {tx});
}

TEST(KernelInterpreter, EveryReduceOp) {
  Var x = tensor("x", DType::Float64, {-1, -1, -1}), i = tensor3("i", DType::Int16);
  Tensor tx = random_tensor({3, 4, 5}, DType::Float64, 15), ti = random_tensor({3, 4, 5}, DType::Int16, 16);
  expect_kernel_matches_graph({x}, {prod(x, {0, 2}), max(x, {0, 2}), min(x, {0, 2}), mean(x, {0, 2})}, {tx});
  expect_kernel_matches_graph({x}, {all(x > 0, 1), any(x > 2, 1)}, {tx});
  expect_kernel_matches_graph({i}, {sum(i, 2), prod(i, 2), max(i, 2), min(i, 2), all(i, 2), any(i, 2)}, {ti});
  // Integer means accumulate in floatX (exact here: small integers).
  expect_kernel_matches_graph({i}, {mean(i, {1, 2}), sum(i * i, {1, 2})}, {ti});
  expect_kernel_matches_graph({i}, {mean(i * i, {1, 2}, true)}, {ti});
  // Bool sums count in int64.
  expect_kernel_matches_graph({x}, {sum(x > 0, 0)}, {tx});
}

TEST(KernelInterpreter, NanWinsMaxAndMin) {
  Var x = matrix("x", DType::Float64);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor t = Tensor::from_vector(std::vector<double>{1, nan, 3, 4, 5, 6}, {2, 3});
  expect_kernel_matches_graph({x}, {max(x, 1), min(x, 1), any(x, 1)}, {t});
  expect_kernel_matches_graph({x}, {sum(x, 0), prod(x, 0)}, {t});
}

TEST(KernelInterpreter, Epilogue) {
  Var x = matrix("x"), b = vector("b"), n = scalar("n");
  Tensor tx = random_tensor({5, 8}, DType::Float32, 17), tb = random_tensor({5}, DType::Float32, 18);
  expect_kernel_matches_graph({x, b}, {sum(x, 1) / 8 + b}, {tx, tb});
  expect_kernel_matches_graph({x, b, n}, {sqrt(sum(x * x, 1) / n) + b, max(x, 1) - b},
                              {tx, tb, Tensor::scalar(8.0f)});
  // keepdims: the epilogue reads a column.
  Var c = tensor("c", DType::Float32, {-1, 1});
  expect_kernel_matches_graph({x, c}, {mean(x, 1, true) * c}, {tx, random_tensor({5, 1}, DType::Float32, 19)});
}

TEST(KernelInterpreter, EmptyTensors) {
  Var x = matrix("x"), y = matrix("y");
  Tensor e = Tensor::zeros(DType::Float32, {0, 4});
  expect_kernel_matches_graph({x, y}, {x + y, x * 2}, {e, e});
  expect_kernel_matches_graph({x}, {sum(x, 0), prod(x, 0), mean(x, 0)}, {e});
  expect_kernel_matches_graph({x}, {sum(x, 1), max(x, 1)}, {e});
  // Max of nothing has no identity: ValueError, as CAReduce raises.
  test::WholeGroup w = test::whole_group({x}, {max(x, 0)});
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> out(1);
  ValueError err = test::catch_error<ValueError>([&] { run_kernel(lowered.kernel, {e}, out); });
  EXPECT_THAT(err.what(), HasSubstr("zero-size array"));
}

TEST(KernelInterpreter, NonContiguousInputs) {
  Var x = matrix("x"), y = matrix("y"), v = vector("v");
  Tensor base = random_tensor({6, 7}, DType::Float32, 20);
  Tensor transposed = random_tensor({7, 6}, DType::Float32, 21).transpose();
  Tensor reversed = test::reversed_layout(base, 1);
  Tensor strided = test::slice_view(random_tensor({14}, DType::Float32, 22), 0, 13, -1, -2);
  expect_kernel_matches_graph({x, y, v}, {x * y + v, x - v}, {transposed, reversed, strided});
  expect_kernel_matches_graph({x, y}, {sum(x * y, 0)}, {transposed, test::fortran_layout(base)});
  expect_kernel_matches_graph({x, y}, {sum(x * y, 1)}, {transposed, test::fortran_layout(base)});
  // A stride-0 broadcast view as an input.
  Tensor broadcast = random_tensor({7}, DType::Float32, 23).broadcast_to({6, 7});
  expect_kernel_matches_graph({x, y}, {exp(x) + y}, {broadcast, reversed});
  expect_kernel_matches_graph({x, y}, {sum(x + y, 1)}, {broadcast, reversed});
}

TEST(KernelInterpreter, BlocksSpanRowsAndRowsSpanBlocks) {
  Var x = matrix("x"), y = matrix("y"), v = vector("v");
  // Rows of 3 (many segments per block) and rows of 1300 (several blocks per row).
  for (Shape shape : {Shape{700, 3}, Shape{3, 1300}}) {
    Tensor tx = random_tensor(shape, DType::Float32, 24), ty = random_tensor(shape, DType::Float32, 25);
    Tensor tv = random_tensor({shape[1]}, DType::Float32, 26);
    expect_kernel_matches_graph({x, y, v}, {x * y + v}, {tx, ty.transpose().copy().transpose(), tv});
    expect_kernel_matches_graph({x, y}, {sum(x * y, 0), sum(x - y, 0)}, {tx, ty});
    expect_kernel_matches_graph({x, y}, {sum(x * y, 1)}, {tx, ty});
    expect_kernel_matches_graph({x}, {mean(x)}, {tx});
  }
}

TEST(KernelInterpreter, RuntimeBroadcastOfAnOutputUsesTheGeneralPath) {
  // exp(a) is an output of shape (1, 5) while the group's loop space is (3, 5): one pass
  // over the loop space cannot write it at its own shape.
  Var a = matrix("a"), b = matrix("b");
  expect_kernel_matches_graph({a, b}, {exp(a) + b, exp(a)},
                              {random_tensor({1, 5}, DType::Float32, 27), random_tensor({3, 5}, DType::Float32, 28)},
                              Path::General);
  // A reduction of a value that broadcasts at run time: the element count is its own.
  Var c = matrix("c");
  expect_kernel_matches_graph({a, c}, {sum(exp(a), 1), sum(c, 1)},
                              {random_tensor({1, 5}, DType::Float32, 29), random_tensor({3, 5}, DType::Float32, 30)},
                              Path::General);
  // An empty loop space beside a nonempty value: the unfused graph computes (and could
  // raise in) that value, so the general path runs.
  Var i = matrix("i", DType::Int32), j = matrix("j", DType::Int32);
  test::WholeGroup w = test::whole_group({i, j}, {floor_div(i, i) + j});
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> out(1);
  EXPECT_THROW(run_kernel(lowered.kernel, {Tensor::zeros(DType::Int32, {1, 3}), Tensor::zeros(DType::Int32, {0, 3})}, out),
               ValueError);
}

TEST(KernelInterpreter, ShapeErrorsReadLikeTheUnfusedOps) {
  Var x = matrix("x"), y = matrix("y");
  test::WholeGroup w = test::whole_group({x, y}, {x + y});
  LoweredGroup lowered = lower_group(w.group);
  ShapeError e = test::catch_error<ShapeError>([&] { kernel_output_shapes(lowered.kernel, {{3, 4}, {5, 4}}); });
  EXPECT_THAT(e.what(), HasSubstr("add: operands could not be broadcast together with shapes (3, 4) (5, 4)"));
}

TEST(KernelInterpreter, ReusesLastCallsOutputs) {
  Var x = matrix("x"), y = matrix("y");
  test::WholeGroup w = test::whole_group({x, y}, {x + y, x * y});
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> args{random_tensor({2, 3}, DType::Float32, 31), random_tensor({2, 3}, DType::Float32, 32)};
  std::vector<Tensor> out(2);
  run_kernel(lowered.kernel, args, out);
  const void* first = out[0].raw_data();
  args[0] = random_tensor({2, 3}, DType::Float32, 33);
  run_kernel(lowered.kernel, args, out);
  EXPECT_EQ(out[0].raw_data(), first);
  test::expect_same(out[0], test::eval(x + y, {{x, args[0]}, {y, args[1]}}));
}

}  // namespace
}  // namespace tgc
