// lower_group: fusion roles, casts only where a signature converts, folded constants, the
// reduction's dtype rules, output-space inputs, and InternalError for groups the Kernel IR
// cannot express.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using Kind = KernelValue::Kind;

LoweredGroup lower(const std::vector<Var>& in, const std::vector<Var>& out) {
  return lower_group(test::whole_group(in, out).group);
}

int count(const Kernel& k, Kind kind, std::optional<ScalarOpKind> op = std::nullopt) {
  int n = 0;
  for (const KernelValue& v : k.values) n += v.kind == kind && (!op || v.op == *op);
  return n;
}

TEST(FusionRole, ElemwiseAndReductionsFuseOthersDoNot) {
  Var x = matrix("x"), y = matrix("y");
  auto role = [](const Var& v) { return fusion_role(*v.ptr()->owner()); };
  EXPECT_EQ(role(x + y), FusionRole::Elementwise);
  EXPECT_EQ(role(cast(x, DType::Int32)), FusionRole::Elementwise);
  EXPECT_EQ(role(sum(x, 1)), FusionRole::Reduction);
  EXPECT_EQ(role(max(x)), FusionRole::Reduction);
  EXPECT_EQ(role(all(x)), FusionRole::Reduction);
  EXPECT_EQ(role(mean(x, 0)), FusionRole::Reduction);
  EXPECT_EQ(role(dot(x, y)), FusionRole::None);
  EXPECT_EQ(role(x.T()), FusionRole::None);
  EXPECT_EQ(role(argmax(x, 1)), FusionRole::None);
  EXPECT_EQ(role(logsumexp(x, 1)), FusionRole::None);
}

TEST(LowerGroup, CastsOnlyWhereTheSignatureConverts) {
  Var i = matrix("i", DType::Int32), f = matrix("f"), d = matrix("d", DType::Float64);
  LoweredGroup g = lower({i, f, d}, {i + f, i * f, f * d, i + i});
  const Kernel& k = g.kernel;
  // One cast of i to float32 (shared by + and *), one of f to float64; i + i stays int32.
  EXPECT_EQ(count(k, Kind::Op, ScalarOpKind::Cast), 2) << k.str();
  EXPECT_EQ(k.outputs[3].dtype, DType::Int32);
  EXPECT_EQ(k.outputs[2].dtype, DType::Float64);
  EXPECT_EQ(k.ndim, 2);
  ASSERT_EQ(g.inputs.size(), 3u);
  EXPECT_EQ(k.inputs[0].dtype, DType::Int32);
  EXPECT_EQ(k.inputs[0].static_shape, (std::vector<int64_t>{-1, -1}));
}

TEST(LowerGroup, FoldsScalarConstantsAndLoadsTheRest) {
  Var x = matrix("x"), i = vector("i", DType::Int32);
  Var row = constant(Tensor::from_vector(std::vector<float>{1, 2, 3}), "row");
  LoweredGroup g = lower({x, i}, {x * 2 + row, i + 1.5});
  const Kernel& k = g.kernel;
  // x, row and i are read; the literals are Constant values (1.5 already converted: the
  // integer vector plus a fractional literal computes in floatX).
  ASSERT_EQ(g.inputs.size(), 3u);
  EXPECT_EQ(g.inputs[1]->kind(), Variable::Kind::Constant);
  EXPECT_EQ(count(k, Kind::Constant), 2) << k.str();
  EXPECT_EQ(count(k, Kind::Load), 3);
  for (const KernelValue& v : k.values)
    if (v.kind == Kind::Constant) {
      EXPECT_EQ(v.dtype, DType::Float32);
    }
}

TEST(LowerGroup, ReductionDtypes) {
  Var i = matrix("i", DType::Int32), x = matrix("x"), b = matrix("b", DType::Bool);
  auto reduce_value = [](const Kernel& k) {
    for (const KernelValue& v : k.values)
      if (v.kind == Kind::Reduce) return v;
    return KernelValue{};
  };
  auto arg_of = [](const Kernel& k, const KernelValue& r) { return k.values[r.args[0]]; };
  // sum of int32 accumulates int64, mean of int32 floatX, all of float32 bool, max keeps it.
  struct Case {
    Var out;
    KernelReduceOp op;
    DType dtype;
    bool cast;
  };
  const std::vector<Case> cases{{sum(i, 1), KernelReduceOp::Sum, DType::Int64, true},
                                {prod(b, 1), KernelReduceOp::Prod, DType::Int64, true},
                                {mean(i, 1), KernelReduceOp::Mean, DType::Float32, true},
                                {all(x, 1), KernelReduceOp::All, DType::Bool, true},
                                {any(b, 1), KernelReduceOp::Any, DType::Bool, false},
                                {max(i, 1), KernelReduceOp::Max, DType::Int32, false},
                                {min(x, 1), KernelReduceOp::Min, DType::Float32, false},
                                {mean(x, 1), KernelReduceOp::Mean, DType::Float32, false}};
  for (const Case& c : cases) {
    LoweredGroup g = lower({i, x, b}, {c.out});
    const KernelValue r = reduce_value(g.kernel);
    EXPECT_EQ(r.reduce_op, c.op) << g.kernel.str();
    EXPECT_EQ(r.dtype, c.dtype) << g.kernel.str();
    EXPECT_EQ(arg_of(g.kernel, r).kind == Kind::Op && arg_of(g.kernel, r).op == ScalarOpKind::Cast, c.cast)
        << g.kernel.str();
    EXPECT_EQ(g.kernel.reduce_axes, std::vector<int>{1});
    EXPECT_EQ(g.inputs.size(), 1u);
  }
}

TEST(LowerGroup, EpilogueInputsLiveInTheOutputSpace) {
  Var x = matrix("x"), b = vector("b"), n = scalar("n");
  LoweredGroup g = lower({x, b, n}, {sum(x * x, 1, false) / n + b, max(x, 1)});
  const Kernel& k = g.kernel;
  EXPECT_EQ(k.reduce_axes, std::vector<int>{1});
  EXPECT_FALSE(k.keepdims);
  EXPECT_EQ(k.output_ndim(), 1);
  ASSERT_EQ(k.inputs.size(), 3u);
  EXPECT_FALSE(k.inputs[0].in_output_space);
  EXPECT_TRUE(k.inputs[1].in_output_space);
  EXPECT_TRUE(k.inputs[2].in_output_space);
  EXPECT_EQ(count(k, Kind::Reduce), 2);
  // sum over every axis of a 0-d input: a rank-0 loop without axes.
  Var s = scalar("s");
  LoweredGroup r = lower({s}, {sum(s * 2)});
  EXPECT_EQ(r.kernel.ndim, 0);
  EXPECT_TRUE(r.kernel.reduce_axes.empty());
  EXPECT_TRUE(r.kernel.is_reduction());
}

// Nodes no merge has joined (each exp(x) and x * y written twice, two constants 2 that are
// distinct variables) lower to one value each: the kernel repeats no subexpression, and the
// outputs that computed the same thing read the same value.
TEST(LowerGroup, EqualNodesAndConstantsShareOneValue) {
  Var x = matrix("x"), y = matrix("y");
  Var two_a = constant(2.0, DType::Float32), two_b = constant(2.0, DType::Float32);
  Var first = exp(x) * y + two_a, second = exp(x) * y + two_b;
  LoweredGroup g = lower({x, y}, {first, second});
  const Kernel& k = g.kernel;
  EXPECT_EQ(count(k, Kind::Op, ScalarOpKind::Exp), 1) << k.str();
  EXPECT_EQ(count(k, Kind::Op, ScalarOpKind::Mul), 1) << k.str();
  EXPECT_EQ(count(k, Kind::Op, ScalarOpKind::Add), 1) << k.str();
  EXPECT_EQ(count(k, Kind::Constant), 1) << k.str();
  ASSERT_EQ(k.outputs.size(), 2u);
  EXPECT_EQ(k.outputs[0].value, k.outputs[1].value);
  for (size_t i = 0; i < k.values.size(); ++i)
    for (size_t j = 0; j < i; ++j) EXPECT_FALSE(k.values[i] == k.values[j]) << "v" << i << " repeats v" << j << "\n" << k.str();
  // A reduction's prologue and the reduction itself, written twice.
  LoweredGroup r = lower({x}, {sum(exp(x), 1) * two_a, sum(exp(x), 1) * two_b});
  EXPECT_EQ(count(r.kernel, Kind::Op, ScalarOpKind::Exp), 1) << r.kernel.str();
  EXPECT_EQ(count(r.kernel, Kind::Reduce), 1) << r.kernel.str();
  EXPECT_EQ(count(r.kernel, Kind::Op, ScalarOpKind::Mul), 1) << r.kernel.str();
  test::expect_kernel_matches_graph({x, y}, {first, second}, {test::random_tensor({3, 4}, DType::Float32, 1),
                                                                test::random_tensor({3, 4}, DType::Float32, 2)});
  // 0.0 and -0.0 are different constants (their products differ in sign).
  Var z = matrix("z");
  LoweredGroup signs = lower({z}, {z * constant(0.0, DType::Float32), z * constant(-0.0, DType::Float32)});
  EXPECT_EQ(count(signs.kernel, Kind::Constant), 2) << signs.kernel.str();
}

TEST(LowerGroup, RejectsGroupsTheKernelIrCannotExpress) {
  Var x = matrix("x"), y = matrix("y");
  auto error = [&](const std::vector<Var>& in, const std::vector<Var>& out) {
    InternalError e = test::catch_error<InternalError>([&] { lower(in, out); });
    return std::string(e.what());
  };
  EXPECT_THAT(error({x}, {sum(x, 0), sum(x, 1)}), HasSubstr("fold different axes"));
  EXPECT_THAT(error({x}, {sum(x, 1), sum(x, 1, true)}), HasSubstr("fold different axes"));
  Var sq = x * x;
  EXPECT_THAT(error({x}, {sq, sum(sq, 1)}), HasSubstr("computed before the reduction"));
  EXPECT_THAT(error({x}, {sum(x, 1, true) + x}), HasSubstr("read both before and after the reduction"));
  EXPECT_THAT(error({x}, {sum(exp(x), 1) + exp(x).sum(0)}), HasSubstr("fold different axes"));

  // A node that fusion should not have grouped.
  test::WholeGroup w = test::whole_group({x, y}, {exp(dot(x, y))});
  EXPECT_THAT(test::catch_error<InternalError>([&] { lower_group(w.group); }).what(), HasSubstr("cannot be fused"));
  // An input fusion forgot to list.
  w = test::whole_group({x, y}, {x + y});
  w.group.inputs.pop_back();
  EXPECT_THAT(test::catch_error<InternalError>([&] { lower_group(w.group); }).what(),
              HasSubstr("neither among its inputs nor computed in it"));
}

}  // namespace
}  // namespace tgc
