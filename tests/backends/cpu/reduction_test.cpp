// Rendered reduction kernels against CAReduce/Mean: every reduce op, axes inner, outer and
// all, keepdims, prologue and epilogue, integer and bool dtypes, empty reductions; float
// sums accumulate in double like the reference, in an order fixed by the compiled code.
// Reductions to one point over large ranges run in chunks (the launcher's split) and keep
// the reference's max/min bits and every op's result across chunk boundaries.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

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

// Max/min fold vectorized, then refold in order where the bits depend on the order: these
// compare the compiled kernel's bytes with the reference's, since same_values treats -0 and
// +0, and any two NaNs, as equal.
void expect_same_bits_as_reference(const Var& in, const std::vector<Var>& outputs, const Tensor& value) {
  test::WholeGroup w = test::whole_group({in}, outputs);
  LoweredGroup lowered = lower_group(w.group);
  std::vector<Tensor> got = test::run_llvm(lowered.kernel, test::kernel_args(w, lowered, {value}));
  test::GraphEval eval({{Var(w.graph.inputs()[0]), value}});
  for (size_t j = 0; j < outputs.size(); ++j) {
    SCOPED_TRACE("output " + std::to_string(j));
    const Tensor want = eval(Var(w.graph.outputs()[j])).copy();
    ASSERT_EQ(got[j].shape(), want.shape());
    const Tensor g = got[j].copy();
    const size_t size = dtype_size(want.dtype());
    for (int64_t e = 0; e < want.numel(); ++e) {
      const char* gb = static_cast<const char*>(g.raw_data()) + e * size;
      const char* wb = static_cast<const char*>(want.raw_data()) + e * size;
      EXPECT_EQ(std::memcmp(gb, wb, size), 0) << "element " << e << " differs in its bits: " << g.to_vector<double>()[e]
                                              << " (signbit " << std::signbit(g.to_vector<double>()[e]) << "), expected "
                                              << want.to_vector<double>()[e] << " (signbit "
                                              << std::signbit(want.to_vector<double>()[e]) << ")";
    }
  }
}

float nan_with_payload(uint32_t payload) {
  const uint32_t bits = 0x7fc00000u | payload;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(CpuReductions, MaxMinKeepTheReferencesBitsForZerosAndNans) {
  Var v = vector("v");
  const int n = 1001;  // long enough for the vector loop
  for (float first : {-0.0f, 0.0f}) {
    std::vector<float> values(n, -1.0f);
    values[100] = first;
    values[700] = -first;
    std::vector<float> mins(values);
    for (float& x : mins) x = x == -1.0f ? 1.0f : x;
    SCOPED_TRACE(std::signbit(first) ? "-0 first" : "+0 first");
    expect_same_bits_as_reference(v, {max(v)}, Tensor::from_vector(values));
    expect_same_bits_as_reference(v, {min(v)}, Tensor::from_vector(mins));
  }
  std::vector<float> with_nans = test::random_tensor({n}, DType::Float32, 9).to_vector<float>();
  with_nans[10] = nan_with_payload(1);
  with_nans[900] = -nan_with_payload(2);  // the last NaN is the result, sign and payload
  expect_same_bits_as_reference(v, {max(v), min(v)}, Tensor::from_vector(with_nans));
  Var m = matrix("m", DType::Float64);
  Tensor rows = test::random_tensor({37, 129}, DType::Float64, 10);
  double* r = rows.data<double>();
  r[5 * 129 + 17] = std::nan("");
  r[8 * 129 + 3] = -0.0;
  for (int j = 0; j < 129; ++j) r[11 * 129 + j] = j % 3 ? 0.0 : -0.0;  // zeros only: order decides
  expect_same_bits_as_reference(m, {max(m, 1), min(m, 1)}, rows);
  expect_same_bits_as_reference(m, {max(m, 0)}, rows);
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

// Large enough that the launcher splits the reduction into chunks of 2^18 elements (and
// not a multiple of them): NaNs, zeros and extremes sit in different chunks, and the
// chunks' results fold in order to the reference's bits.
TEST(CpuReductions, SplitReductionsOverChunksKeepTheReferencesResults) {
  const int n = 3 * (1 << 18) + 12345;
  Var v = vector("v");
  std::vector<float> values = random_tensor({n}, DType::Float32, 21).to_vector<float>();
  expect_llvm_matches_graph({v}, {sum(v * v), mean(v), prod(v * 0.001 + 1)}, {Tensor::from_vector(values)}, 1e-12);
  values[1000] = nan_with_payload(3);             // chunk 0
  values[(1 << 18) + 7] = -nan_with_payload(4);   // chunk 1
  values[2 * (1 << 18) + 99] = nan_with_payload(5);  // chunk 2: the last NaN, the result
  expect_same_bits_as_reference(v, {max(v), min(v)}, Tensor::from_vector(values));
  // Zeros only: the first zero of chunk 1 (-0) decides max and min.
  std::vector<float> zeros(n, 0.0f);
  zeros[(1 << 18) + 5] = -0.0f;
  for (int i = 0; i < (1 << 18); ++i) zeros[i] = -1.0f;
  expect_same_bits_as_reference(v, {max(v)}, Tensor::from_vector(zeros));
  Var i = vector("i", DType::Int32), c = vector("c", DType::Bool);
  expect_llvm_matches_graph({i}, {sum(i), max(i), min(i)}, {random_tensor({n}, DType::Int32, 22)});
  std::vector<Tensor> flags{random_tensor({n}, DType::Bool, 23)};
  expect_llvm_matches_graph({c}, {all(c), any(c)}, flags);
  // A reduction over both dims of a matrix splits its rows; its count divides the mean.
  Var m = matrix("m");
  expect_llvm_matches_graph({m}, {mean(m), sum(m)}, {random_tensor({3000, 700}, DType::Float32, 24)}, 1e-12);
}

// A reduction whose innermost kept dim is contiguous folds rows into rows of accumulators
// (column mode, kernel_codegen.cpp), each point in the reduced dims' order in double: the
// reference's order, so float sums and means equal it exactly. Tiles of 1024 points (2500
// columns: two full tiles and a partial one), a kept dim before the reduced one, an epilogue
// reading an output-space input (the bias update of an MLP), inputs broadcast along the kept
// dim by their static shape, and non-float accumulators.
TEST(CpuReductions, ColumnSumsOverContiguousRowsEqualTheReference) {
  Var m = matrix("m"), b = vector("b");
  const Tensor rows = random_tensor({37, 2500}, DType::Float32, 31), bias = random_tensor({2500}, DType::Float32, 32);
  expect_llvm_matches_graph({m}, {sum(m, 0), mean(m * m, 0)}, {rows});
  expect_llvm_matches_graph({m, b}, {b - 0.1 * sum(m, 0)}, {rows, bias});
  expect_llvm_matches_graph({m}, {sum(m, 0, /*keepdims=*/true) * 2.0}, {rows});
  // Broadcast along the kept dim: a (37, 1) column scales each row.
  Var col = tensor("col", DType::Float32, {-1, 1});
  expect_llvm_matches_graph({m, col}, {sum(m * col, 0)}, {rows, random_tensor({37, 1}, DType::Float32, 33)});
  // A kept dim before the reduced one: axis 1 of (4, 9, 1100).
  Var x = tensor3("x", DType::Float64);
  const Tensor xv = random_tensor({4, 9, 1100}, DType::Float64, 34);
  expect_llvm_matches_graph({x}, {sum(exp(x), std::vector<int>{1})}, {xv}, 1e-14);  // libmvec exp: ulps
  expect_llvm_matches_graph({x}, {prod(x * 0.01 + 1.0, std::vector<int>{0, 1})}, {xv}, 1e-14);
  // Integer and bool accumulators.
  Var i = matrix("i", DType::Int32), f = matrix("f", DType::Bool);
  expect_llvm_matches_graph({i}, {sum(i, 0), max(i, 0)}, {random_tensor({19, 1500}, DType::Int32, 35)});
  expect_llvm_matches_graph({f}, {all(f, 0)}, {random_tensor({19, 1500}, DType::Bool, 36)});
  expect_llvm_matches_graph({f}, {any(f, 0)}, {random_tensor({19, 1500}, DType::Bool, 36)});
  // The same values column-major take the point-by-point path: equal within rounding.
  expect_llvm_matches_graph({m}, {sum(m, 0)}, {rows.transpose().copy().transpose()}, 1e-6);
}

}  // namespace
}  // namespace tgc
