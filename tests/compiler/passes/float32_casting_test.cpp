// float32_casting: float64 constants meeting float32 values are narrowed and the float64
// they spread goes with them (structure, and values within float32's precision); what is
// not representable, a user's cast to float64 and float64 inputs are kept; warn_float64
// names each float64 node and where float64 entered; the tutorial's float32 logistic
// regression compiles with its gradients to a graph without a float64 node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canon_test_util.h"
#include "compiler/passes/float32_casting.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using test::expect_same_results;
using test::op_names;

constexpr DType f32 = DType::Float32;
constexpr DType f64 = DType::Float64;

PassContext float32_ctx(bool warn = false) {
  PassContext ctx;
  ctx.config.floatX = f32;
  ctx.config.warn_float64 = warn;
  return ctx;
}

test::PassRun cast32(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                     const PassContext& ctx = float32_ctx()) {
  return test::run_pass(float32_casting, inputs, outputs, ctx);
}

// The dtypes of the nodes' first outputs in toposort order.
std::vector<DType> node_dtypes(const Graph& g) {
  std::vector<DType> out;
  for (Node* n : g.toposort()) out.push_back(n->output_raw(0)->type().dtype);
  return out;
}

TEST(Float32Casting, Float64ConstantsMeetingFloat32AreNarrowed) {
  Var x = vector("x", f32);
  Var half = constant(0.5, f64);
  Var y = x * half + 1;  // the literal 1 meets float64 and is float64 too
  ASSERT_EQ(y.dtype(), f64);
  auto r = cast32({x}, {y});
  EXPECT_TRUE(r.changed);
  // Computed in float32; the output keeps the dtype the function promises.
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{mul}", "Elemwise{add}", "Elemwise{Cast{float64}}"));
  EXPECT_THAT(node_dtypes(r.after), ElementsAre(f32, f32, f64));
  expect_same_results(r, 1e-7);
}

TEST(Float32Casting, NarrowingGoesThroughOtherOps) {
  Var x = matrix("x", f32);
  Var w = constant(Tensor::from_vector<double>({0.25, -1.5, 3}), "w");
  auto r = cast32({x}, {sum(dot(x, w) * constant(2.0, f64)), mean(x * constant(0.1, f64), {0})});
  EXPECT_THAT(op_names(r.after), ElementsAre("Dot", "Elemwise{mul}", "Sum", "Elemwise{Cast{float64}}",
                                             "Elemwise{mul}", "Mean{axis=[0]}", "Elemwise{Cast{float64}}"));
  EXPECT_THAT(node_dtypes(r.after), ElementsAre(f32, f32, f32, f64, f32, f32, f64));
  expect_same_results(r, 1e-6);
}

TEST(Float32Casting, AComparisonReadingANarrowedValueNarrowsItsConstantToo) {
  // Found by the optimizer's property test: maximum(x, c) narrowed to float32 but ge(c, .)
  // kept c in float64 compared float(0.1) widened with 0.1 and flipped every result.
  Var x = vector("x", f32);
  Var c = constant(0.1, f64);
  auto r = cast32({x}, {ge(c, maximum(x, c))});
  EXPECT_THAT(node_dtypes(r.after), ElementsAre(f32, DType::Bool));
  Tensor xv = Tensor::from_vector<float>({-1.f, 0.f});
  Tensor before = test::GraphEval({{Var(r.before.inputs()[0]), xv}})(Var(r.before.outputs()[0]));
  Tensor after = test::GraphEval({{Var(r.after.inputs()[0]), xv}})(Var(r.after.outputs()[0]));
  EXPECT_EQ(before.str(), "[ True  True]");
  EXPECT_EQ(after.str(), before.str());
}

TEST(Float32Casting, ACastToFloat32OfANarrowedValueReadsItDirectly) {
  Var x = vector("x", f32);
  auto r = cast32({x}, {cast(x * constant(0.5, f64), f32)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{mul}"));
  EXPECT_EQ(r.after.outputs()[0]->type().dtype, f32);
  expect_same_results(r, 1e-7);
}

TEST(Float32Casting, ValuesFloat32CannotHoldStayFloat64) {
  Var x = vector("x", f32);
  // 1e300 overflows float32; 1e-40 is below its normal range and would lose digits.
  auto r = cast32({x}, {x * constant(1e300, f64), x + constant(1e-40, f64)});
  EXPECT_FALSE(r.changed);
}

TEST(Float32Casting, InfinityAndExactSubnormalsNarrow) {
  Var x = vector("x", f32);
  double tiny = static_cast<double>(std::numeric_limits<float>::denorm_min());
  auto r = cast32({x}, {maximum(x, constant(-INFINITY, f64)), x + constant(tiny, f64)});
  EXPECT_THAT(node_dtypes(r.after), ElementsAre(f32, f64, f32, f64));
}

TEST(Float32Casting, AUsersCastToFloat64IsKept) {
  Var x = vector("x", f32);
  Var h = cast(x, f64);
  auto r = cast32({x}, {h * constant(0.5, f64), h});
  EXPECT_FALSE(r.changed);
  EXPECT_THAT(node_dtypes(r.after), ElementsAre(f64, f64));
}

TEST(Float32Casting, OtherCastsOfANarrowedValueReadItDirectly) {
  Var x = vector("x", f32);
  auto r = cast32({x}, {cast(x * constant(0.5, f64), DType::Int32)});
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{mul}", "Elemwise{Cast{int32}}"));
  EXPECT_THAT(node_dtypes(r.after), ElementsAre(f32, DType::Int32));
  expect_same_results(r);
}

TEST(Float32Casting, Float64InputsAndAFloat64FloatXAreLeftAlone) {
  Var x = vector("x", f64);
  Var x32 = vector("x32", f32);
  EXPECT_FALSE(cast32({x}, {x * constant(0.5, f64)}).changed);
  PassContext ctx64;
  ctx64.config.floatX = f64;
  EXPECT_FALSE(cast32({x32}, {x32 * constant(0.5, f64)}, ctx64).changed);
}

TEST(Float32Casting, IntegersMixedWithFloat32ComputeInFloat32) {
  // Already the frontend's promotion (int32 + float32 -> float32; mean of int -> floatX):
  // nothing is left for the pass, and nothing is float64.
  Var i = vector("i", DType::Int32);
  Var x = vector("x", f32);
  auto r = cast32({i, x}, {i * x, mean(i), i / 2, x * 0.1});
  EXPECT_FALSE(r.changed);
  for (DType t : node_dtypes(r.after)) EXPECT_EQ(t, f32);
}

// ---- warn_float64

std::vector<std::string> warnings_of(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                     PassContext ctx = float32_ctx(true)) {
  std::vector<std::string> warnings;
  ctx.warnings = &warnings;
  cast32(inputs, outputs, ctx);
  return warnings;
}

TEST(Float32Casting, WarnFloat64NamesEachNodeAndWhereFloat64Entered) {
  Var x = vector("x", f32);
  Var h = cast(x, f64).as("h");
  Var y = (h * 2).as("y");
  std::vector<std::string> w = warnings_of({x}, {y});
  ASSERT_EQ(w.size(), 2u);
  EXPECT_THAT(w[0], HasSubstr("h = cast(x) outputs float64"));
  EXPECT_THAT(w[0], HasSubstr("enters at 'h = cast(x)'"));
  EXPECT_THAT(w[1], HasSubstr("y = mul(h, "));
  EXPECT_THAT(w[1], HasSubstr("enters at 'h = cast(x)'"));
}

TEST(Float32Casting, WarnFloat64NamesTheConstant) {
  Var x = vector("x", f32);
  Var huge = constant(Tensor::scalar<double>(1e300), "huge");
  std::vector<std::string> w = warnings_of({x}, {(x * huge).as("y")});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_THAT(w[0], HasSubstr("y = mul(x, huge) outputs float64"));
  EXPECT_THAT(w[0], HasSubstr("the float64 constant 'huge'"));
}

TEST(Float32Casting, WarnFloat64ReportsANarrowedOutputsCastWithItsConstant) {
  Var x = vector("x", f32);
  Var half = constant(Tensor::scalar<double>(0.5), "half");
  std::vector<std::string> w = warnings_of({x}, {(x * half).as("y")});
  // y is float64 because the user's expression is; it is computed in float32 and cast.
  ASSERT_EQ(w.size(), 1u);
  EXPECT_THAT(w[0], HasSubstr("the float64 constant 'half'"));
}

TEST(Float32Casting, NoWarningsForFloat64GraphsOrWithoutTheFlag) {
  Var x = vector("x", f64);
  Var x32 = vector("x32", f32);
  EXPECT_THAT(warnings_of({x}, {exp(x)}), IsEmpty());
  EXPECT_THAT(warnings_of({x32}, {cast(x32, f64)}, float32_ctx(false)), IsEmpty());
}

// ---- the tutorial's logistic regression in float32

TEST(Float32Casting, Float32LogRegWithItsGradientsHasNoFloat64Node) {
  Var x = matrix("x", f32);
  Var y = vector("y", f32);
  Shared w = shared(RandomState(22).randn({5}).astype(f32), "w");
  Shared b = shared(Tensor::full(f32, {}, 0.0), "b");
  Var p_1 = 1 / (1 + exp(-dot(x, w) - b));
  Var xent = -y * log(p_1) - (1 - y) * log(1 - p_1);
  Var cost = mean(xent) + 0.01 * sum(pow(w, 2));
  std::vector<Var> g = grad(cost, {w, b});
  Function train = function({x, y}, {p_1 > 0.5, xent}, {{w, w - 0.01 * g[0]}, {b, b - 0.01 * g[1]}},
                            {.config = {{"warn_float64", "true"}}});
  for (Node* n : train.graph().toposort())
    for (int k = 0; k < n->num_outputs(); ++k)
      EXPECT_NE(n->output_raw(k)->type().dtype, f64) << n->describe();
  EXPECT_THAT(train.optimizer_warnings(), IsEmpty());
}

TEST(Float32Casting, AFloat64RegularizerConstantIsNarrowedInTheCompiledGraph) {
  Var x = matrix("x", f32);
  Shared w = shared(RandomState(22).randn({5}).astype(f32), "w");
  Var cost = mean(dot(x, w)) + constant(0.01, f64) * sum(pow(w, 2));
  ASSERT_EQ(cost.dtype(), f64);
  Var gw = grad(cost, w);
  Function f = function({x}, {gw}, {}, {.config = {{"warn_float64", "true"}}});
  int raw_float64 = 0;
  for (Node* n : f.raw_graph().toposort()) raw_float64 += n->output_raw(0)->type().dtype == f64;
  EXPECT_GT(raw_float64, 0);
  for (Node* n : f.graph().toposort()) EXPECT_NE(n->output_raw(0)->type().dtype, f64) << n->describe();
  EXPECT_THAT(f.optimizer_warnings(), IsEmpty());
}

}  // namespace
}  // namespace tgc
