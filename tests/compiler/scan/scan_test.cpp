// scan(): values and gradients against the same computation unrolled by hand, verify_grad
// through a loop, the Theano semantics of taps, until, n_steps and updates, truncated
// gradients, nested loops, and the errors a user meets (in the user's names, with a hint).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "nested_loops.h"

#include "backends/backend_registry.h"
#include "compiler/scan/scan_op.h"
#include "ops/core/graph.h"
#include "ops/core/node.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

Tensor values(RandomState& rng, const Shape& shape, double scale = 1.0) {
  Tensor t = rng.uniform(-scale, scale, shape);
  return t;
}

// The message of the E that fn throws.
template <typename E, typename Fn>
std::string message_of(Fn&& fn) {
  return test::catch_error<E>(std::forward<Fn>(fn)).what();
}

// The host backends this build has: the reference, and llvm where tgc is built with LLVM (the
// lent GPU machines build without it).
std::vector<std::string> host_backends() {
  std::vector<std::string> out;
  for (const std::string& b : built_backends())
    if (b == "reference" || b == "llvm") out.push_back(b);
  return out;
}

void expect_near(const Tensor& got, const Tensor& want, double tol = 1e-10) {
  ASSERT_EQ(got.shape(), want.shape());
  std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], tol) << "element " << i;
}


// h[t] = tanh(x[t] W + h[t-1] U); the loop against the same graph written step by step.
TEST(Scan, RnnMatchesTheUnrolledGraphWithGradients) {
  RandomState rng(5);
  const int64_t steps = 4;
  Var x = tensor3("x", DType::Float64), h0 = matrix("h0", DType::Float64);
  Var w = matrix("w", DType::Float64), u = matrix("u", DType::Float64);
  ScanResult r = scan([&](const std::vector<Var>& a) { return ScanStep{tanh(dot(a[0], w) + dot(a[1], u))}; }, {x},
                      {OutputInfo(h0)});
  Var loop_cost = (r[0] * r[0]).sum();
  std::vector<Var> hs;
  Var h = h0;
  for (int64_t t = 0; t < steps; ++t) {
    h = tanh(dot(x[t], w) + dot(h, u));
    hs.push_back(h);
  }
  Var unrolled_cost = (stack(hs, 0) * stack(hs, 0)).sum();
  std::vector<Var> gl = grad(loop_cost, {x, h0, w, u});
  std::vector<Var> gu = grad(unrolled_cost, {x, h0, w, u});
  std::vector<Tensor> args{values(rng, {steps, 2, 3}), values(rng, {2, 5}), values(rng, {3, 5}, 0.5),
                           values(rng, {5, 5}, 0.5)};
  for (const std::string& backend : host_backends()) {
    SCOPED_TRACE(backend);
    ForcedBackendForTests force(backend);
    Function fl = function({x, h0, w, u}, {r[0], loop_cost, gl[0], gl[1], gl[2], gl[3]});
    Function fu = function({x, h0, w, u}, {stack(hs, 0), unrolled_cost, gu[0], gu[1], gu[2], gu[3]});
    std::vector<Tensor> a = fl(args), b = fu(args);
    for (size_t i = 0; i < a.size(); ++i) expect_near(a[i], b[i], 1e-9);
  }
}

TEST(Scan, VerifyGradThroughALoopWithTwoTapsAndANonSequence) {
  RandomState rng(7);
  verify_grad(
      [](const std::vector<Var>& in) {
        ScanResult r = scan(
            [](const std::vector<Var>& a) {  // x[t], y[t-2], y[t-1], c
              return ScanStep{a[0] * a[3] + sin(a[1]) * 0.5 + a[2] * a[2] * 0.25};
            },
            {in[0]}, {OutputInfo(in[1], {-2, -1})}, {in[2]});
        return r[0];
      },
      {values(rng, {5, 3}), values(rng, {2, 3}), values(rng, {3})});
}

// Hessian-vector products through the RNN: the gradient loop (a reverse loop with
// accumulations) differentiated again, against the unrolled graph's.
TEST(Scan, SecondDerivativesMatchTheUnrolledGraph) {
  RandomState rng(6);
  const int64_t steps = 4;
  Var x = tensor3("x", DType::Float64), h0 = matrix("h0", DType::Float64);
  Var w = matrix("w", DType::Float64), u = matrix("u", DType::Float64), v = matrix("v", DType::Float64);
  ScanResult r = scan([&](const std::vector<Var>& a) { return ScanStep{tanh(dot(a[0], w) + dot(a[1], u))}; }, {x},
                      {OutputInfo(h0)});
  std::vector<Var> hs;
  Var h = h0;
  for (int64_t t = 0; t < steps; ++t) {
    h = tanh(dot(x[t], w) + dot(h, u));
    hs.push_back(h);
  }
  auto hessian_vector = [&](const Var& cost) {
    Var gw = grad(cost, w);
    return grad((gw * v).sum(), {x, h0, w, u});
  };
  std::vector<Var> hl = hessian_vector((r[0] * r[0]).sum());
  std::vector<Var> hu = hessian_vector((stack(hs, 0) * stack(hs, 0)).sum());
  std::vector<Tensor> args{values(rng, {steps, 2, 3}), values(rng, {2, 5}), values(rng, {3, 5}, 0.5),
                           values(rng, {5, 5}, 0.5), values(rng, {3, 5})};
  for (const std::string& backend : host_backends()) {
    SCOPED_TRACE(backend);
    ForcedBackendForTests force(backend);
    Function fl = function({x, h0, w, u, v}, hl);
    Function fu = function({x, h0, w, u, v}, hu);
    std::vector<Tensor> a = fl(args), b = fu(args);
    for (size_t i = 0; i < a.size(); ++i) expect_near(a[i], b[i], 1e-9);
  }
}

// Second and third derivatives through a loop with two taps, a sequence and a non-sequence,
// checked against finite differences.
TEST(Scan, VerifyGradOfGradientsThroughTwoTaps) {
  RandomState rng(8);
  auto loop_cost = [](const std::vector<Var>& in) {
    ScanResult r = scan(
        [](const std::vector<Var>& a) {  // x[t], y[t-2], y[t-1], c
          return ScanStep{a[0] * a[3] + sin(a[1]) * 0.5 + a[2] * a[2] * 0.25};
        },
        {in[0]}, {OutputInfo(in[1], {-2, -1})}, {in[2]});
    return (r[0] * r[0]).sum();
  };
  const std::vector<Tensor> args{values(rng, {4, 3}), values(rng, {2, 3}), values(rng, {3})};
  verify_grad([&](const std::vector<Var>& in) { return grad(loop_cost(in), in[2]); }, args);
  verify_grad([&](const std::vector<Var>& in) { return grad(loop_cost(in), in[0]); }, args);
  verify_grad(
      [&](const std::vector<Var>& in) {
        Var g = grad(loop_cost(in), in[2]);
        return grad((g * g).sum(), in[1]);
      },
      args);
}

TEST(Scan, GoBackwardsAndUntilAndSymbolicStepCount) {
  Var x = vector("x", DType::Float64);
  ScanResult back = scan([](const std::vector<Var>& a) { return ScanStep{a[0] + a[1]}; }, {x},
                         {OutputInfo(zeros_like(x[0]))}, {}, {.go_backwards = true});
  Function f = function({x}, {back[0]});
  EXPECT_EQ(f(Tensor::from_vector(std::vector<double>{1, 2, 3}))[0].to_vector<double>(), (std::vector<double>{3, 5, 6}));

  Var x0 = scalar("x0", DType::Float64);
  ScanResult until = scan(
      [](const std::vector<Var>& a) {
        Var next = a[0] * 2.0;
        return ScanStep({next}, {}, next > 20.0);
      },
      {}, {OutputInfo(x0)}, {}, {.n_steps = 100});
  Function g = function({x0}, {until[0]});
  EXPECT_EQ(g(Tensor::scalar(1.0))[0].to_vector<double>(), (std::vector<double>{2, 4, 8, 16, 32}));

  Var n = scalar("n", DType::Int64);
  ScanResult counted = scan([](const std::vector<Var>& a) { return ScanStep{a[0] + 1.0}; }, {}, {OutputInfo(x0)}, {},
                            {.n_steps_var = n});
  Function h = function({n, x0}, {counted[0]});
  EXPECT_EQ(h(Tensor::scalar(int64_t{3}), Tensor::scalar(0.0))[0].to_vector<double>(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(h(Tensor::scalar(int64_t{0}), Tensor::scalar(0.0))[0].shape(), (Shape{0}));
  EXPECT_THAT(message_of<ValueError>([&] { h(Tensor::scalar(int64_t{-1}), Tensor::scalar(0.0)); }),
              HasSubstr("n_steps is -1"));
}

TEST(Scan, UpdatesAreCarriedFromStepToStepAndReturned) {
  Shared count = shared(Tensor::scalar(10.0), "count");
  Var x = vector("x", DType::Float64);
  ScanResult r = scan([&](const std::vector<Var>& a) { return ScanStep({a[0] * count}, {{count, count + 1.0}}); }, {x});
  ASSERT_EQ(r.updates.size(), 1u);
  Function f = function({x}, {r[0]}, r.updates);
  EXPECT_EQ(f(Tensor::from_vector(std::vector<double>{1, 1, 1}))[0].to_vector<double>(),
            (std::vector<double>{10, 11, 12}));
  EXPECT_EQ(count.get_value().item<double>(), 13.0);
  EXPECT_EQ(f(Tensor::from_vector(std::vector<double>{2}))[0].to_vector<double>(), (std::vector<double>{26}));
}

// With truncate_gradient=1 only the last step's own dependence on w is differentiated.
TEST(Scan, TruncatedGradientStopsAfterItsSteps) {
  Var x = vector("x", DType::Float64), w = scalar("w", DType::Float64);
  ScanResult r = scan([&](const std::vector<Var>& a) { return ScanStep{a[1] * w + a[0]}; }, {x},
                      {OutputInfo(zeros_like(w))}, {}, {.truncate_gradient = 1});
  Var last = r[0][-1];
  Function f = function({x, w}, {grad(last, w), r[0]});
  std::vector<Tensor> out = f(Tensor::from_vector(std::vector<double>{1, 2, 3}), Tensor::scalar(2.0));
  // h = [1, 4, 11]: d h2 / d w through the last step alone is h1 = 4 (untruncated: 4 + 2*1 = 6).
  EXPECT_EQ(out[0].item<double>(), 4.0);
  // A second derivative through the truncated gradient loop is refused, saying what to do.
  const std::string m = message_of<TypeError>([&] { grad(grad(last, w), w); });
  EXPECT_THAT(m, HasSubstr("scan scan_grad: a derivative through a truncated gradient loop (truncate_gradient)"));
  EXPECT_THAT(m, HasSubstr("truncate_gradient=-1"));
}

TEST(Scan, LoopInvariantWorkAndOuterVariablesAreLiftedOutOfTheStep) {
  Var x = vector("x", DType::Float64), s = scalar("s", DType::Float64);
  Var scale = exp(s) * 2.0;  // built outside, read inside: computed once
  ScanResult r = scan([&](const std::vector<Var>& a) { return ScanStep{a[0] * scale + a[1]}; }, {x},
                      {OutputInfo(zeros_like(s))});
  const Node* loop = nullptr;
  std::vector<const Variable*> stack{r[0].ptr().get()};
  while (!stack.empty() && !loop) {
    const Variable* v = stack.back();
    stack.pop_back();
    if (!v->owner()) continue;
    if (dynamic_cast<const ScanOp*>(&v->owner()->op())) loop = v->owner();
    for (const VarPtr& in : v->owner()->inputs()) stack.push_back(in.get());
  }
  ASSERT_NE(loop, nullptr);
  const auto& op = static_cast<const ScanOp&>(loop->op());
  EXPECT_EQ(op.spec().num_non_sequences, 1);  // `scale`, as one value
  Function f = function({x, s}, {r[0]});
  EXPECT_EQ(f(Tensor::from_vector(std::vector<double>{1, 1}), Tensor::scalar(0.0))[0].to_vector<double>(),
            (std::vector<double>{2, 4}));
}

TEST(Scan, NestedLoops) {
  Var m = matrix("m", DType::Float64);
  ScanResult outer = test::nested_row_sums(m);
  for (const std::string& backend : host_backends()) {
    ForcedBackendForTests force(backend);
    Function f = function({m}, {outer[0]});
    EXPECT_EQ(f(Tensor::from_vector(std::vector<double>{1, 2, 3, 4}, {2, 2}))[0].to_vector<double>(),
              (std::vector<double>{3, 10}))
        << backend;
  }
}

std::vector<const ScanOp*> loops_of(const Function& f) {
  std::vector<const ScanOp*> out;
  for (Node* n : f.graph().toposort())
    if (auto* op = dynamic_cast<const ScanOp*>(&n->op())) out.push_back(op);
  return out;
}

TEST(Scan, OptimizerPrunesUnusedResultsKeepsOnlyLastRowsAndVectorizesIndependentSteps) {
  Var x = tensor3("x", DType::Float64), h0 = matrix("h0", DType::Float64), w = matrix("w", DType::Float64);
  ScanResult r = scan([&](const std::vector<Var>& a) { return ScanStep{tanh(dot(a[0], w) + a[1])}; }, {x}, {OutputInfo(h0)});
  // Only the weights' gradient: the backward loop drops the gradient of x.
  Function gw = function({x, h0, w}, {grad(r[0].sum(), w)});
  std::vector<const ScanOp*> loops = loops_of(gw);
  ASSERT_EQ(loops.size(), 2u);
  for (const ScanOp* op : loops) EXPECT_TRUE(op->spec().accumulations.empty()) << op->name();
  // The weight's gradient, a sum over the steps, is one product after the loop: the gradient
  // loop carries only the state's gradient.
  for (const ScanOp* op : loops)
    if (op->spec().reverse) EXPECT_EQ(op->spec().states.size(), 1u) << op->name();
  // Its carry keeps its last row only: built with its history (which a second derivative
  // reads), it loses it to the save-memory rewrite when nothing else reads it.
  for (const ScanOp* op : loops)
    for (const ScanState& st : op->spec().states)
      if (op->spec().reverse) EXPECT_FALSE(st.keep_history) << op->name();
  // Only the last state: the loop keeps one row, not every step's.
  Function last = function({x, h0, w}, {r[0][-1]});
  loops = loops_of(last);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_FALSE(loops[0]->spec().states[0].keep_history);
  RandomState rng(3);
  Tensor xv = values(rng, {4, 2, 3}), hv = values(rng, {2, 3}), wv = values(rng, {3, 3});
  Function all = function({x, h0, w}, {r[0]});
  Tensor full = all(xv, hv, wv)[0].copy();
  expect_near(last(xv, hv, wv)[0], full.view({2, 3}, {3, 1}, 18));
  // Independent elementwise steps: no loop left.
  Var v = matrix("v", DType::Float64), c = vector("c", DType::Float64);
  ScanResult ew = scan([](const std::vector<Var>& a) { return ScanStep{exp(a[0]) * a[1] + 1.0}; }, {v}, {}, {c});
  Function vec = function({v, c}, {ew[0]});
  EXPECT_TRUE(loops_of(vec).empty());
  Tensor vv = values(rng, {5, 3}), cv = values(rng, {3});
  ForcedBackendForTests ref("reference");
  Function as_loop = function({v, c}, {ew[0]}, {}, {.config = {{"optimizer", "none"}}});
  expect_near(vec(vv, cv)[0], as_loop(vv, cv)[0], 1e-12);
}

TEST(Scan, ErrorsNameTheLoopAndSayWhatToDo) {
  Var x = vector("x", DType::Float32);
  Var h0 = scalar("h0", DType::Float64);
  std::string e = message_of<TypeError>([&] {
    scan([](const std::vector<Var>& a) { return ScanStep{a[0] + a[1].astype(DType::Float32)}; }, {x}, {OutputInfo(h0)},
         {}, {.name = "acc"});
  });
  EXPECT_THAT(e, HasSubstr("scan acc"));
  EXPECT_THAT(e, HasSubstr("initial value"));
  EXPECT_THAT(e, HasSubstr("astype(float64)"));
  EXPECT_THAT(message_of<InputError>([&] { scan([](const std::vector<Var>& a) { return ScanStep{a[0]}; }, {}, {OutputInfo(h0)}); }),
              HasSubstr("give n_steps"));
  EXPECT_THAT(message_of<InputError>([&] {
                scan([](const std::vector<Var>& a) { return ScanStep{{a[0], a[0]}}; }, {x}, {OutputInfo::none()});
              }),
              HasSubstr("the step returns 2 results but outputs_info has 1 entry"));
  EXPECT_THAT(message_of<ValueError>([&] {
                scan([](const std::vector<Var>& a) { return ScanStep{a[0]}; }, {x}, {OutputInfo(x[0], {1})});
              }),
              HasSubstr("can only read earlier steps"));

  // At run time: a sequence too short for n_steps, a step whose result changes shape, and an
  // error inside a step, named with the step.
  Var y = vector("y", DType::Float64);
  ScanResult fixed = scan([](const std::vector<Var>& a) { return ScanStep{a[0] * 2.0}; }, {y}, {}, {},
                          {.n_steps = 5, .name = "fixed"});
  Function f = function({y}, {fixed[0]});
  EXPECT_THAT(message_of<ValueError>([&] { f(Tensor::from_vector(std::vector<double>{1, 2})); }),
              HasSubstr("sequence y has 2 rows; 5 steps need 5"));
  // A fed-back result that grows: named with its step, at run time.
  Var grow0 = vector("grow0", DType::Float64);
  ScanResult grow = scan([](const std::vector<Var>& a) { return ScanStep{concatenate({a[0], a[0]})}; }, {},
                         {OutputInfo(grow0)}, {}, {.n_steps = 2, .name = "grow"});
  Function gf = function({grow0}, {grow[0]});
  EXPECT_THAT(message_of<ValueError>([&] { gf(Tensor::from_vector(std::vector<double>{1})); }),
              HasSubstr("scan grow: step 0 of scan grow gives state 0 of shape (2,) where (1,) is expected"));
  Var v = vector("v", DType::Float64), idx = vector("idx", DType::Int64);
  ScanResult gather = scan([&](const std::vector<Var>& a) { return ScanStep{v[a[0]]}; }, {idx}, {}, {},
                           {.name = "gather"});
  Function g = function({v, idx}, {gather[0]});
  EXPECT_THAT(message_of<Error>([&] {
                g(Tensor::from_vector(std::vector<double>{1, 2}), Tensor::from_vector(std::vector<int64_t>{0, 7}));
              }),
              HasSubstr("step 1 of scan gather"));
}

}  // namespace
}  // namespace tgc
