// The ops issue 19 moves onto the GPU, on every backend: softmax, log_softmax and logsumexp
// along each axis (decomposed into device kernels there), argmax/argmin (ties, NaN), take
// and x[idx] along any axis with negative and repeated indices, set/inc_subtensor (basic and
// advanced; repeated indices accumulate), concatenate/stack/split, alloc/fill/arange/eye,
// outer and batched_dot — with broadcasting, empty slices, zero-size tensors and
// non-contiguous inputs. float32 (the GPU's type) and int32 only, few distinct kernels: each
// one costs PoCL about a second of CPU on the OpenCL instance (docs/opencl.md).
#include <limits>

#include "conformance/conformance.h"
#include "support/op_test_util.h"

namespace tgc::conformance {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const DType f32 = DType::Float32;

// Along each axis of a 3-d tensor, with rows of huge, infinite and NaN values, a
// column-major layout and zero-size tensors (an empty row: empty results, logsumexp -inf).
std::vector<Case> softmax_on_device_cases() {
  RandomState rng(91);
  Var x = tensor3("x", f32);
  Tensor vx = random_values(rng, f32, {3, 4, 5}, -5, 5);
  std::vector<double> odd = vx.to_vector<double>();
  odd[0] = 1000;     // row (0, 0, :) of axis 2: the shift matters
  odd[5] = -kInf;    // row (0, 1, :): one -inf
  for (int k = 10; k < 15; ++k) odd[k] = -kInf;  // row (0, 2, :): all -inf
  odd[21] = kInf;    // row (1, 0, :): a +inf
  odd[27] = std::nan("");  // row (1, 1, :): a NaN
  std::vector<Var> outputs{softmax(x, 0), softmax(x, 1), softmax(x, 2), log_softmax(x, 0), log_softmax(x, 1),
                           log_softmax(x, 2), logsumexp(x, {0}), logsumexp(x, {1, 2}, true), logsumexp(x)};
  return {{.name = "softmax on the device",
           .inputs = {x},
           .outputs = outputs,
           .arg_sets = {{vx},
                        {Tensor::from_vector(odd, {3, 4, 5}).astype(f32)},
                        {test::fortran_layout(vx)},
                        {Tensor::zeros(f32, {3, 0, 5})},
                        {Tensor::zeros(f32, {0, 4, 5})}},
           .tolerance = kRewritten}};
}

std::vector<Case> index_op_cases() {
  RandomState rng(92);
  std::vector<Case> out;
  {
    Var x = tensor3("x", f32), k = matrix("k", DType::Int32);
    Tensor vx = random_values(rng, f32, {3, 4, 5});
    std::vector<double> ties = vx.to_vector<double>();
    ties[1] = ties[2] = 9;  // a tie along axis 2: the first wins
    ties[30] = std::nan("");
    out.push_back({.name = "argmax/argmin along each axis",
                   .inputs = {x, k},
                   .outputs = {argmax(x, 0), argmin(x, 1), argmax(x, -1, true), argmin(x), argmax(k, 0), argmin(k, 1)},
                   .arg_sets = {{Tensor::from_vector(ties, {3, 4, 5}).astype(f32), rng.randint(0, 3, {4, 6}, DType::Int32)},
                                {test::fortran_layout(vx), test::reversed_layout(rng.randint(-2, 2, {5, 3}, DType::Int32), 0)},
                                {Tensor::zeros(f32, {3, 4, 1}), Tensor::zeros(DType::Int32, {1, 3})}}});
  }
  {
    Var x = tensor3("x", f32), idx = vector("idx", DType::Int64);
    Tensor vx = random_values(rng, f32, {4, 5, 6});
    Tensor vidx = Tensor::from_vector(std::vector<int64_t>{0, -1, 2, 2, -4});
    out.push_back({.name = "take and x[idx] along any axis",
                   .inputs = {x, idx},
                   .outputs = {take(x, idx, 0), take(x, idx, 1), take(x, idx, -1), take(x, idx),
                               (x[idx] * 2.0).as("x[idx] * 2"), (x[{colon, idx}] + 1.0).as("x[:, idx] + 1")},
                   .arg_sets = {{vx, vidx},
                                {test::fortran_layout(vx), test::reversed_layout(vidx, 0)},
                                {vx, Tensor::zeros(DType::Int64, {0})}}});  // no index: zero-size results
  }
  {
    Var x = matrix("x", f32), idx = vector("idx", DType::Int64), v = vector("v", f32), w = matrix("w", f32);
    Tensor vx = random_values(rng, f32, {6, 5});
    Tensor vidx = Tensor::from_vector(std::vector<int64_t>{1, -1, 1, 3, 1});
    out.push_back({.name = "set_subtensor and inc_subtensor",
                   .inputs = {x, idx, v, w},
                   .outputs = {set_subtensor(x[{slice(1, 3)}], v).as("set_subtensor(x[1:3], v)"),
                               inc_subtensor(x[{colon, 2}], 1.5).as("inc_subtensor(x[:, 2], 1.5)"),
                               inc_subtensor(x[idx], w).as("inc_subtensor(x[idx], w): repeats add"),
                               set_subtensor(x[{colon, idx}], 0.0).as("set_subtensor(x[:, idx], 0)"),
                               inc_subtensor(x[{slice(3, 3)}], 2.0).as("inc_subtensor(x[3:3], 2): empty")},
                   .arg_sets = {{vx, vidx, random_values(rng, f32, {5}), random_values(rng, f32, {5, 5})},
                                {test::fortran_layout(vx), test::reversed_layout(vidx, 0), random_values(rng, f32, {5}),
                                 test::fortran_layout(random_values(rng, f32, {5, 5}))}}});
  }
  {
    Var a = matrix("a", f32), b = matrix("b", f32), c = matrix("c", f32);
    std::vector<Var> parts = split(a, {1, 0, 2}, 1);
    out.push_back({.name = "concatenate, stack and split",
                   .inputs = {a, b, c},
                   .outputs = {concatenate({a, b}, 0), concatenate({a, c, a}, -1), stack({a, c}, 1), stack({a, c}),
                               parts[0], parts[1], (parts[2] * 2.0).as("split(a)[2] * 2")},
                   .arg_sets = {{random_values(rng, f32, {2, 3}), random_values(rng, f32, {4, 3}),
                                 random_values(rng, f32, {2, 3})},
                                {test::fortran_layout(random_values(rng, f32, {2, 3})), random_values(rng, f32, {0, 3}),
                                 test::reversed_layout(random_values(rng, f32, {2, 3}), 0)}}});
  }
  {
    Var s = scalar("s", f32), x = matrix("x", f32);
    out.push_back({.name = "alloc, fill, arange and eye",
                   .inputs = {s, x},
                   .outputs = {alloc(s, {2, 3}), fill(x, s), (arange(0, 2.5, 0.5, f32) + s).as("arange(0, 2.5, .5) + s"),
                               (eye(3, 4, 1, f32) * s).as("eye(3, 4, k=1) * s"), alloc(s, {0, 3})},
                   .arg_sets = {{Tensor::scalar(2.5f), random_values(rng, f32, {2, 4})},
                                {Tensor::scalar(-1.0f), Tensor::zeros(f32, {0, 4})}}});
  }
  return out;
}

// outer (a broadcast multiply after the optimizer) and batched_dot, broadcast against other
// operands, with empty and non-contiguous operands.
std::vector<Case> product_cases() {
  RandomState rng(93);
  Var u = vector("u", f32), v = vector("v", f32), m = matrix("m", f32), x = tensor3("x", f32), y = tensor3("y", f32);
  Var i = vector("i", DType::Int32), j = vector("j", DType::Int32);
  return {{.name = "outer and batched_dot",
           .inputs = {u, v, m, x, y, i, j},
           .outputs = {outer(u, v), (m - outer(u, v) * 0.5).as("m - outer(u, v) / 2"), outer(i, j),
                       batched_dot(x, y), (batched_dot(x, y) + v).as("batched_dot(x, y) + v")},
           .arg_sets = {{random_values(rng, f32, {3}), random_values(rng, f32, {4}), random_values(rng, f32, {3, 4}),
                         random_values(rng, f32, {2, 3, 5}), random_values(rng, f32, {2, 5, 4}),
                         rng.randint(-9, 9, {5}, DType::Int32), rng.randint(-9, 9, {2}, DType::Int32)},
                        {test::reversed_layout(random_values(rng, f32, {3}), 0), random_values(rng, f32, {4}),
                         test::fortran_layout(random_values(rng, f32, {3, 4})),
                         test::fortran_layout(random_values(rng, f32, {2, 3, 5})), random_values(rng, f32, {2, 5, 4}),
                         rng.randint(-9, 9, {0}, DType::Int32), rng.randint(-9, 9, {3}, DType::Int32)},
                        {random_values(rng, f32, {0}), random_values(rng, f32, {4}), random_values(rng, f32, {0, 4}),
                         random_values(rng, f32, {0, 3, 5}), random_values(rng, f32, {0, 5, 4}),
                         rng.randint(-9, 9, {1}, DType::Int32), rng.randint(-9, 9, {1}, DType::Int32)}},
           .tolerance = kSummation}};
}

[[maybe_unused]] const bool kRegistered = register_family("softmax on the device", &softmax_on_device_cases) &&
                                          register_family("index ops", &index_op_cases) &&
                                          register_family("outer and batched_dot", &product_cases);

TEST_P(Conformance, SoftmaxFamilyAlongEachAxis) { expect_all_conform(&softmax_on_device_cases); }
TEST_P(Conformance, IndexOps) { expect_all_conform(&index_op_cases); }
TEST_P(Conformance, OuterAndBatchedDot) { expect_all_conform(&product_cases); }

}  // namespace
}  // namespace tgc::conformance
