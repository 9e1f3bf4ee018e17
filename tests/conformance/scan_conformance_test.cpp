// Loops on every backend: scan with a recurrence, several sequences and taps, earlier steps'
// values (mit-sot), per-step outputs, going backwards, an until condition, a symbolic step
// count, an update of a shared variable carried through the steps, and gradients through the
// loop (the backward loop: reversed, with accumulations). Compared with the reference
// evaluation, which runs the step graph op by op.
#include "conformance/conformance.h"
#include "support/op_test_util.h"

namespace tgc::conformance {
namespace {

std::vector<Case> scan_cases() {
  RandomState rng(23);
  std::vector<Case> out;
  const DType f = DType::Float64;

  {  // cumulative sum and the per-step running maximum, float32 and float64
    for (DType dt : {DType::Float32, DType::Float64}) {
      Var x = vector("x", dt);
      ScanResult r = scan(
          [](const std::vector<Var>& a) {  // x[t], acc[t-1], mx[t-1]
            return ScanStep{{a[1] + a[0], maximum(a[2], a[0]), a[0] * 2.0}};
          },
          {x}, {OutputInfo(zeros_like(x[0])), OutputInfo(x[0]), OutputInfo::none()}, {},
          {.name = "cumsum"});
      out.push_back({.name = std::string("scan cumulative sum ") + std::string(dtype_name(dt)),
                     .inputs = {x},
                     .outputs = {r[0].as("acc"), r[1].as("mx"), r[2].as("twice")},
                     .arg_sets = {{random_values(rng, dt, {7})}, {random_values(rng, dt, {1})}},
                     .tolerance = kSummation});
    }
  }
  {  // an RNN step with its gradients (backpropagation through time)
    Var x = tensor3("x", f), h0 = matrix("h0", f), w = matrix("w", f), u = matrix("u", f), b = vector("b", f);
    ScanResult r = scan(
        [&](const std::vector<Var>& a) {  // x[t], h[t-1]
          Var h = tanh(dot(a[0], w) + dot(a[1], u) + b);
          return ScanStep{{h, h.sum(1)}};
        },
        {x}, {OutputInfo(h0), OutputInfo::none()}, {}, {.name = "rnn"});
    Var cost = (r[0] * r[0]).sum() + r[1].sum() * 0.5;
    std::vector<Var> g = grad(cost, {x, h0, w, u, b});
    out.push_back({.name = "scan rnn with gradients",
                   .inputs = {x, h0, w, u, b},
                   .outputs = {r[0].as("h"), cost.as("cost"), g[0].as("gx"), g[1].as("gh0"), g[2].as("gw"),
                               g[3].as("gu"), g[4].as("gb")},
                   .arg_sets = {{random_values(rng, f, {5, 3, 4}), random_values(rng, f, {3, 6}),
                                 random_values(rng, f, {4, 6}, -0.5, 0.5), random_values(rng, f, {6, 6}, -0.5, 0.5),
                                 random_values(rng, f, {6})}},
                   .tolerance = kSummation});
  }
  {  // taps: a sequence read at t-1, t, t+1; a result reading two earlier steps; backwards
    Var x = vector("x", f), init = vector("init", f);
    ScanResult r = scan(
        [](const std::vector<Var>& a) {  // x[t-1], x[t], x[t+1], y[t-2], y[t-1]
          return ScanStep{{a[0] - 2.0 * a[1] + a[2] + 0.5 * a[3] + 0.25 * a[4]}};
        },
        {Sequence(x, {-1, 0, 1})}, {OutputInfo(init, {-2, -1})}, {}, {.name = "taps"});
    ScanResult back = scan([](const std::vector<Var>& a) { return ScanStep{a[1] * 0.5 + a[0]}; }, {x},
                           {OutputInfo(zeros_like(x[0]))}, {}, {.go_backwards = true, .name = "backwards"});
    Var cost = (r[0] * r[0]).sum() + back[0].sum();
    std::vector<Var> g = grad(cost, {x, init});
    out.push_back({.name = "scan taps and going backwards",
                   .inputs = {x, init},
                   .outputs = {r[0].as("y"), back[0].as("back"), g[0].as("gx"), g[1].as("ginit")},
                   .arg_sets = {{random_values(rng, f, {9}), random_values(rng, f, {3})}},
                   .tolerance = kSummation});
  }
  {  // until and a symbolic number of steps; an update carried through the steps
    Var limit = scalar("limit", f), n = scalar("n", DType::Int64), x0 = scalar("x0", f);
    ScanResult doubling = scan(
        [&](const std::vector<Var>& a) {
          Var next = a[0] * 2.0;
          return ScanStep({next}, {}, next > limit);
        },
        {}, {OutputInfo(x0)}, {}, {.n_steps = 30, .name = "doubling"});
    Shared counter = shared(Tensor::scalar(0.0), "counter");
    ScanResult counted = scan(
        [&](const std::vector<Var>& a) {
          return ScanStep({a[0] + counter}, {{counter, counter + 1.0}});
        },
        {}, {OutputInfo(x0)}, {}, {.n_steps_var = n, .name = "counted"});
    out.push_back({.name = "scan until and symbolic steps",
                   .inputs = {limit, n, x0},
                   .outputs = {doubling[0].as("doubling"), counted[0].as("counted"),
                               counted.updates.at(0).second.as("counter after")},
                   .arg_sets = {{Tensor::scalar(100.0), Tensor::scalar(int64_t{4}), Tensor::scalar(1.5)},
                                {Tensor::scalar(-1.0), Tensor::scalar(int64_t{0}), Tensor::scalar(3.0)}},
                   .tolerance = kExact});
  }
  return out;
}

[[maybe_unused]] const bool kRegistered = register_family("scan", &scan_cases);

TEST_P(Conformance, ScanLoops) { expect_all_conform(&scan_cases); }

}  // namespace
}  // namespace tgc::conformance
