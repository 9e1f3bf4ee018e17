// The row thunks (softmax, log_softmax, logsumexp, log_softmax's gradient) on each GPU API
// (PoCL's OpenCL in CI) against the ops' perform(): each axis of a strided tensor, SciPy's
// rows of infinities and NaN, huge values, empty rows and zero rows, a row longer than a
// block, strided gradients; softmax_cross_entropy's fused row (both forms, each axis, the
// extremes); and a whole softmax cross-entropy with its gradient kept on the device as one
// row kernel (a broadcast target as the separate ones). Lean on purpose: PoCL spends about a second of CPU on each entry a
// test launches first (these launch five).
#include "backends/gpu/row_thunks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "backends/gpu/row_rules.h"
#include "gpu_test_device.h"
#include "ops/core/apply.h"
#include "ops/core/graph.h"
#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/logsumexp.h"
#include "ops/nn/softmax.h"
#include "ops/nn/softmax_cross_entropy.h"
#include "rule_run.h"

namespace tgc {
namespace {

using device_test::on;

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor uniform(const Shape& shape, uint64_t seed, DType dtype = DType::Float32, double lo = -4, double hi = 4) {
  RandomState rng(seed);
  return rng.uniform(lo, hi, shape).astype(dtype);
}

Tensor dev(const Tensor& host) { return host.to(gpu_test::device()); }

// Runs `op` on `inputs` (device tensors, any layout) through the row rule and compares with
// the reference perform() on host copies: float32 within the float exp's few ulps, float64
// to rounding.
void expect_matches_reference(std::shared_ptr<const Op> op, const std::vector<Tensor>& inputs, Config config = {}) {
  const gpu_test::RuleRun r = gpu_test::run_through_rule(gpu::row_op_rules(), op, inputs, config);
  if (!r.rule) return;
  EXPECT_TRUE(r.rule->self_contained);
  ASSERT_EQ(r.got.dtype(), r.want.dtype());
  ASSERT_EQ(r.got.shape(), r.want.shape());
  const bool f32 = r.got.dtype() == DType::Float32;
  EXPECT_TRUE(tensors_allclose(r.got, r.want, f32 ? 1e-5 : 1e-13, f32 ? 1e-6 : 1e-14))
      << op->name() << "\n" << r.got.str() << "\nexpected\n" << r.want.str();
}

std::shared_ptr<const Op> softmax_op(int axis, bool log = false) {
  return std::make_shared<Softmax>(axis, log, DType::Float32);
}
std::shared_ptr<const Op> logsumexp_op(ReduceAxes axes, bool keepdims) {
  return std::make_shared<LogSumExp>(std::move(axes), keepdims, DType::Float32);
}

TEST(GpuRowThunks, EachAxisOfAStridedTensor) {
  TGC_REQUIRE_GPU();
  // (6, 5, 4) read through a transpose: no dim is dense, rows are strided along every axis.
  const Tensor x = dev(uniform({4, 5, 6}, 1)).transpose();
  for (int axis : {0, 1, 2}) {
    expect_matches_reference(softmax_op(axis), {x});
    expect_matches_reference(softmax_op(axis, true), {x});
  }
  // logsumexp over several axes (a row of two dims), with and without keepdims, and all of them.
  expect_matches_reference(logsumexp_op(std::vector<int>{0, 2}, true), {x});
  expect_matches_reference(logsumexp_op(std::vector<int>{1}, false), {x});
  expect_matches_reference(logsumexp_op(std::nullopt, false), {x});
  // A negative stride along the row.
  const Tensor m = dev(uniform({3, 7}, 2));
  expect_matches_reference(softmax_op(1, true), {m.view({3, 7}, {7, -1}, m.offset() + 6)});
}

TEST(GpuRowThunks, InfinitiesNaNAndHugeValuesFollowTheReference) {
  TGC_REQUIRE_GPU();
  const double nan = std::nan("");
  // Rows: ordinary, huge (the shift matters), all -inf, a +inf, a NaN, -inf with finite ones.
  const Tensor rows = Tensor::from_vector(std::vector<double>{1, 2, 3,     1000, -1000, 999, -kInf, -kInf, -kInf,
                                                              1, kInf, 2,  nan, 1, 2,        -kInf, 0, 1},
                                          {6, 3});
  for (DType t : {DType::Float32, DType::Float64}) {
    const Tensor x = dev(rows.astype(t));
    expect_matches_reference(softmax_op(1, true), {x});
    if (t == DType::Float64) continue;  // one float64 entry is enough (below)
    expect_matches_reference(softmax_op(1), {x});
    expect_matches_reference(logsumexp_op(std::vector<int>{1}, false), {x});
    // Along the other axis: each column mixes the cases.
    expect_matches_reference(softmax_op(0), {x});
  }
}

TEST(GpuRowThunks, EmptyRowsZeroRowsLongRowsAndScalars) {
  TGC_REQUIRE_GPU();
  // No rows, and rows of nothing: an empty result (nothing launched), logsumexp's -inf.
  expect_matches_reference(softmax_op(1), {dev(Tensor::zeros(DType::Float32, {0, 5}))});
  expect_matches_reference(softmax_op(1, true), {dev(Tensor::zeros(DType::Float32, {5, 0}))});
  expect_matches_reference(logsumexp_op(std::vector<int>{1}, true), {dev(Tensor::zeros(DType::Float32, {5, 0}))});
  expect_matches_reference(logsumexp_op(std::vector<int>{0}, false), {dev(Tensor::zeros(DType::Float32, {0, 3}))});
  // Rows longer than a block (256 lanes): each lane folds many elements.
  expect_matches_reference(softmax_op(1), {dev(uniform({3, 5000}, 3, DType::Float32, -20, 20))});
  expect_matches_reference(logsumexp_op(std::nullopt, false), {dev(uniform({70, 80}, 4))});
  // A 0-d input is its own row.
  expect_matches_reference(softmax_op(0, true), {dev(uniform({}, 5))});
}

TEST(GpuRowThunks, LogSoftmaxGradAlongEachAxisOfStridedOperands) {
  TGC_REQUIRE_GPU();
  const Tensor z = uniform({6, 9}, 6);
  std::vector<Tensor> y(1);
  Softmax(1, true, DType::Float32).perform({z}, y);
  const Tensor yd = dev(y[0]);
  expect_matches_reference(std::make_shared<LogSoftmaxGrad>(1), {dev(uniform({6, 9}, 7)), yd});
  // g transposed, y along the other axis.
  expect_matches_reference(std::make_shared<LogSoftmaxGrad>(0), {dev(uniform({9, 6}, 8)).transpose(), yd});
}

TEST(GpuRowThunks, IntegerInputsAndHighRanksAreDeclinedWithAReason) {
  const VarPtr i = Variable::input(Type(DType::Int32, {3, 4}), "i");
  const VarPtr s = apply1(softmax_op(1), {i});
  EXPECT_TRUE(gpu::is_row_op(*s->owner()));
  EXPECT_NE(gpu::row_op_declines(*s->owner()).find("another dtype"), std::string::npos);
  const VarPtr big = Variable::input(Type::unknown(DType::Float32, 9), "big");
  const VarPtr l = apply1(logsumexp_op(std::vector<int>{8}, false), {big});
  EXPECT_EQ(gpu::row_op_declines(*l->owner()), "a tensor of more than 8 dims");
  const VarPtr f = Variable::input(Type(DType::Float64, {3, 4}), "f");
  EXPECT_EQ(gpu::row_op_declines(*apply1(softmax_op(0), {f})->owner()), "");
}

TEST(GpuRowThunks, ASoftmaxCrossEntropyAndItsGradientRunAsRowKernels) {
  TGC_REQUIRE_GPU();
  // Static shapes (as a training step's shared variables have): the gradient of the mean is
  // y times the constant -1/8, which the fused row kernel takes as its scale.
  Var z = tensor("z", DType::Float32, {8, 10}), y = tensor("y", DType::Float32, {8, 10});
  Var loss = -mean(sum(y * log_softmax(z), 1));
  const std::vector<Var> outs{loss, grad(loss, z), softmax(z, 0), logsumexp(z, {1})};
  // assert_no_cpu_op=raise: compiling fails if any node stays on the host.
  const std::map<std::string, std::string> cfg{{"assert_no_cpu_op", "raise"}};
  const std::vector<Tensor> args{uniform({8, 10}, 10), uniform({8, 10}, 11, DType::Float32, 0, 1)};
  gpu_test::expect_matches_cpu({z, y}, outs, args, 1e-5, 1e-6, cfg);
  // The ops stay whole on the device: no row max or sum kernel of their own.
  Function f = function({z, y}, outs, {}, on(gpu_test::api(), cfg));
  std::set<std::string> row_ops;
  for (Node* n : f.graph().toposort()) {
    const std::string c = n->op().op_class();
    if (c == "Softmax" || c == "LogSoftmax" || c == "LogSumExp" || c == "LogSoftmaxGrad") {
      EXPECT_NE(n->placement(), DeviceKind::Host) << n->op().name();
      row_ops.insert(c);
    }
  }
  // log_softmax, the rows' sum of y * log_softmax and the gradient: one SoftmaxCrossEntropy.
  EXPECT_EQ(row_ops, (std::set<std::string>{"Softmax", "LogSumExp"}));
  int fused = 0;
  for (Node* n : f.graph().toposort())
    if (n->op().op_class() == "SoftmaxCrossEntropy") ++fused;
  EXPECT_EQ(fused, 1);
}

// SoftmaxCrossEntropy's thunk against its perform() (the composition it replaced), both
// outputs, in both forms: g given, and g = t * scale.
void expect_xent_matches_reference(int axis, std::optional<double> scale, const std::vector<Tensor>& inputs) {
  std::vector<VarPtr> vars;
  for (size_t i = 0; i < inputs.size(); ++i)
    vars.push_back(Variable::input(Type(inputs[i].dtype(), inputs[i].shape()), "in" + std::to_string(i)));
  const auto op = std::make_shared<SoftmaxCrossEntropy>(axis, scale);
  const std::vector<VarPtr> outs = tgc::apply(op, vars);
  std::string why;
  const gpu::DeviceOpRule* rule = gpu::find_rule(gpu::row_op_rules(), *outs[0]->owner(), &why);
  ASSERT_NE(rule, nullptr) << why;
  std::vector<Tensor> host_in, want(2), got(2);
  for (const Tensor& t : inputs) host_in.push_back(t.to_host());
  op->perform(host_in, want);
  rule->make(gpu_test::device(), *outs[0]->owner(), Config{})(inputs, got);
  for (int o = 0; o < 2; ++o) {
    const Tensor g = got[o].to_host();
    ASSERT_EQ(g.shape(), want[o].shape()) << "output " << o;
    const bool f32 = g.dtype() == DType::Float32;
    EXPECT_TRUE(tensors_allclose(g, want[o], f32 ? 1e-5 : 1e-13, f32 ? 1e-6 : 1e-14))
        << op->name() << " output " << o << "\n" << g.str() << "\nexpected\n" << want[o].str();
  }
}

TEST(GpuRowThunks, SoftmaxCrossEntropyBothFormsAlongEachAxisAndAtExtremes) {
  TGC_REQUIRE_GPU();
  const Tensor z = dev(uniform({6, 9}, 20)), t = dev(uniform({6, 9}, 21, DType::Float32, 0, 1));
  const Tensor g = dev(uniform({6, 9}, 22));
  expect_xent_matches_reference(1, std::nullopt, {z, t, g});
  expect_xent_matches_reference(1, -1.0 / 6, {z, t});
  // Along axis 0 of transposed (strided) operands.
  expect_xent_matches_reference(0, -1.0 / 9, {dev(uniform({9, 6}, 23)).transpose(), t});
  // Huge logits, a row of -inf with finite ones, and a NaN row: as the composition gives.
  const double nan = std::nan("");
  const Tensor zx = Tensor::from_vector(std::vector<double>{1000, -1000, 999, -kInf, 0, 1, nan, 1, 2}, {3, 3});
  const Tensor tx = Tensor::from_vector(std::vector<double>{0, 0, 1, 0, 1, 0, 1, 0, 0}, {3, 3});
  for (DType dt : {DType::Float32, DType::Float64})
    expect_xent_matches_reference(1, -1.0 / 3, {dev(zx.astype(dt)), dev(tx.astype(dt))});
  // Rows of nothing (r is 0, d empty) and a row longer than a block.
  expect_xent_matches_reference(1, -0.25, {dev(Tensor::zeros(DType::Float32, {4, 0})),
                                           dev(Tensor::zeros(DType::Float32, {4, 0}))});
  expect_xent_matches_reference(1, std::nullopt, {dev(uniform({2, 3000}, 24)),
                                                  dev(uniform({2, 3000}, 25, DType::Float32, 0, 1)),
                                                  dev(uniform({2, 3000}, 26))});
}

TEST(GpuRowThunks, ABroadcastTargetKeepsTheSeparateKernels) {
  TGC_REQUIRE_GPU();
  // t of shape (1, 10) broadcasts over z's rows: the fused op needs t of z's shape, so the
  // pass leaves log_softmax and its gradient as they are (and the results stay right).
  Var z = matrix("z", DType::Float32), t = tensor("t", DType::Float32, {1, -1});
  Var loss = -mean(sum(t * log_softmax(z), 1));
  const std::vector<Var> outs{loss, grad(loss, z)};
  const std::vector<Tensor> args{uniform({8, 10}, 27), uniform({1, 10}, 28, DType::Float32, 0, 1)};
  gpu_test::expect_matches_cpu({z, t}, outs, args, 1e-5, 1e-6, {{"assert_no_cpu_op", "raise"}});
  Function f = function({z, t}, outs, {}, on(gpu_test::api()));
  for (Node* n : f.graph().toposort()) EXPECT_NE(n->op().op_class(), "SoftmaxCrossEntropy");
}

}  // namespace
}  // namespace tgc
