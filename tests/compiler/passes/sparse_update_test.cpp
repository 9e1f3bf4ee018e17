// sparse_update's rules: an update x -/+ c * inc_subtensor(zeros_like(x)[i], v) becomes an
// increment of x itself (structure: no zeros and no full-size arithmetic left), agrees with the
// graph as built for repeated and negative indices, basic and advanced indices, and leaves
// alone what it must not touch (set_subtensor, a base that is not zeros or not provably of x's
// shape, a scale that is not 0-d).
#include "compiler/passes/sparse_update.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "canon_test_util.h"
#include "ops/subtensor/inc_subtensor.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::op_names;

constexpr DType f64 = DType::Float64;
constexpr DType f32 = DType::Float32;

test::PassRun run(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(sparse_update, inputs, outputs);
}

// The increment node computing output o, or null.
const Node* increment(const test::PassRun& r, size_t o) {
  const Node* n = r.after.outputs()[o]->owner();
  return n && dynamic_cast<const IncSubtensor*>(&n->op()) ? n : nullptr;
}

TEST(SparseUpdate, SgdStepOnGatheredRowsIncrementsTheParameter) {
  // What grad() builds for take(): an increment of Fill(x, 0), as in an embedding table.
  Var x = matrix("x", f64), idx = vector("idx", DType::Int64);
  Var g = grad(sum(exp(take(x, idx, 0))), x);
  auto r = run({x, idx}, {x - 0.1 * g});
  ASSERT_TRUE(r.changed) << r.after.str();
  const Node* inc = increment(r, 0);
  ASSERT_NE(inc, nullptr) << r.after.str();
  EXPECT_EQ(inc->inputs()[0].get(), r.after.inputs()[0].get());  // x itself, not zeros
  EXPECT_EQ(inc->op().name(), "IncSubtensor{Inc;array}");
  // Nothing of x's size is computed besides the increment: no zeros of x, no subtraction.
  for (Node* n : r.after.toposort()) {
    EXPECT_NE(n->op().name(), "Elemwise{sub}") << r.after.str();
    if (n->op().name() == "Fill") {
      EXPECT_NE(n->inputs()[0].get(), r.after.inputs()[0].get()) << r.after.str();
    }
  }
  // Repeated (0 three times, 2 twice, -1 = 3) and negative indices.
  RandomState rng(3);
  const Tensor xv = rng.uniform(-1, 1, {4, 5});
  test::expect_same_on(r, {xv, Tensor::from_vector(std::vector<int64_t>{0, 2, -1, 0, 2, 0, -4})}, 1e-13);
  test::expect_same_on(r, {xv, Tensor::from_vector(std::vector<int64_t>{})}, 0);
}

TEST(SparseUpdate, EveryFormOfTheUpdate) {
  Var x = matrix("x", f64), v = matrix("v", f64), idx = vector("idx", DType::Int32), c = scalar("c", f64);
  Var z = zeros_like(x);
  auto r = run({x, v, idx, c},
               {x + inc_subtensor(z[idx], v), inc_subtensor(z[idx], v) + x, x - inc_subtensor(z[idx], v),
                x + inc_subtensor(z[idx], v) * 0.5, x - c * inc_subtensor(z[idx], v),
                // a basic index: rows 1..2 and a column
                x - 2 * inc_subtensor(z[{slice(1, 3), 1}], v[0][{slice(0, 2)}])});
  ASSERT_TRUE(r.changed);
  for (size_t o = 0; o < 6; ++o) {
    const Node* inc = increment(r, o);
    ASSERT_NE(inc, nullptr) << "output " << o << "\n" << r.after.str();
    EXPECT_EQ(inc->inputs()[0].get(), r.after.inputs()[0].get()) << "output " << o;
  }
  EXPECT_EQ(increment(r, 5)->op().name(), "IncSubtensor{Inc;1:3, 1}");
  // -c * v: the scale is negated, not the update.
  const Node* scaled = increment(r, 4)->inputs()[1]->owner();
  ASSERT_NE(scaled, nullptr);
  EXPECT_EQ(scaled->op().name(), "Elemwise{mul}");
  RandomState rng(5);
  test::expect_same_on(r,
              {rng.uniform(-1, 1, {4, 3}), rng.uniform(-1, 1, {5, 3}),
               Tensor::from_vector(std::vector<int32_t>{3, -1, 0, 0, 1}), Tensor::scalar<double>(0.25)},
              1e-13);
}

TEST(SparseUpdate, ZerosOfAStaticShapeAndTheFusableForm) {
  // zeros({4, 3}) (an Alloc after canonicalize) matches x of static shape (4, 3); so does the
  // where(true, 0, x) that specialize makes of Fill.
  Var x = tensor("x", f32, {4, 3}), v = vector("v", f32), idx = vector("idx", DType::Int64);
  Var alloc_zeros = alloc(constant(0.0, f32), {4, 3});
  Var where_zeros = where(constant(Tensor::scalar<bool>(true)), constant(0.0, f32), x);
  auto r = run({x, v, idx}, {x - 0.1 * inc_subtensor(alloc_zeros[idx], v), x + inc_subtensor(where_zeros[idx], v)});
  ASSERT_TRUE(r.changed);
  ASSERT_NE(increment(r, 0), nullptr) << r.after.str();
  ASSERT_NE(increment(r, 1), nullptr) << r.after.str();
  RandomState rng(7);
  test::expect_same_on(r, {rng.uniform(-1, 1, {4, 3}).astype(f32), rng.uniform(-1, 1, {3}).astype(f32),
                  Tensor::from_vector(std::vector<int64_t>{1, 1, -2})},
              1e-6);
}

TEST(SparseUpdate, LeavesAloneWhatIsNotAnUpdateOfZeros) {
  Var x = matrix("x", f64), y = matrix("y", f64), v = matrix("v", f64), idx = vector("idx", DType::Int64);
  Var w = vector("w", f64);
  auto r = run({x, y, v, idx, w},
               {// set_subtensor: x + set(zeros, v) is not set(x, v)
                x + set_subtensor(zeros_like(x)[idx], v),
                // the base is ones, not zeros
                x - 0.1 * inc_subtensor(ones_like(x)[idx], v),
                // zeros of another variable: y's shape is not provably x's (x may broadcast)
                x - 0.1 * inc_subtensor(zeros_like(y)[idx], v),
                // zeros of static shape (4, 3) against x of unknown shape
                x + inc_subtensor(alloc(constant(0.0, f64), {4, 3})[idx], v),
                // a scale that is not 0-d
                x - w * inc_subtensor(zeros_like(x)[idx], v),
                // inc(zeros) - x is not an update of x
                inc_subtensor(zeros_like(x)[idx], v) - x});
  EXPECT_FALSE(r.changed) << r.after.str();
}

TEST(SparseUpdate, ZerosOfAnotherVariableOfProvablyTheSameShape) {
  // exp(x) has x's shape in every run: its zeros are zeros of x's shape.
  Var x = matrix("x", f64), v = matrix("v", f64), idx = vector("idx", DType::Int64);
  auto r = run({x, v, idx}, {x - inc_subtensor(zeros_like(exp(x))[idx], v)});
  ASSERT_NE(increment(r, 0), nullptr) << r.after.str();
}

TEST(SparseUpdate, InTheCompiledPipeline) {
  // The bag-of-words step in small: a gathered embedding, its SGD update. fast_run leaves one
  // increment of the table and no zeros; the values agree with sparse_update left out.
  RandomState rng(11);
  const Tensor table = rng.uniform(-1, 1, {50, 8}).astype(f32);
  const Tensor tokens = Tensor::from_vector(std::vector<int32_t>{3, 7, 3, -1, 0, 49, 7, 3}).reshape({4, 2});
  std::vector<Tensor> values[2];
  for (int excluded = 0; excluded < 2; ++excluded) {
    Shared emb = shared(table, "emb");
    Var tok = tensor("tok", DType::Int32, {-1, -1});
    Var rows = take(emb, tok, 0);
    Var loss = sum(mean(rows, {1}) * mean(rows, {1}));
    Var gemb = grad(loss, Var(emb));
    FunctionOptions options;
    if (excluded) options.config["optimizer_excluding"] = "sparse_update";
    Function f = function({tok}, {loss}, {{emb, emb - 0.5 * gemb}}, options);
    if (!excluded) {
      for (const std::string& line : f.toposort()) {
        EXPECT_THAT(line, ::testing::Not(HasSubstr("where(True,0.0"))) << line;
        EXPECT_THAT(line, ::testing::Not(HasSubstr("Fill"))) << line;
      }
    }
    for (int call = 0; call < 3; ++call) f({tokens});
    values[excluded] = {emb.get_value()};
  }
  EXPECT_TRUE(test::same_values(values[0][0], values[1][0], 1e-6));
  // The rows never gathered are untouched; the gathered ones moved.
  EXPECT_EQ(values[0][0].at({1, 0}), table.at({1, 0}));
  EXPECT_NE(values[0][0].at({3, 0}), table.at({3, 0}));
}

}  // namespace
}  // namespace tgc
