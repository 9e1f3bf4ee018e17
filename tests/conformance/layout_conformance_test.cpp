// How kernels meet their operands, on every backend: broadcasting (static size-1 dims, dims
// that are 1 only at run time, 0-d operands), non-contiguous inputs (column-major, reversed,
// strided, transposed views made inside the graph), empty tensors, multi-output fused groups
// (siblings, a value that is both an output and read inside), 0-d kernels, and tensors
// large enough for the loops to be split across threads.
#include "conformance/conformance.h"
#include "support/op_test_util.h"

namespace tgc::conformance {
namespace {

std::vector<Case> broadcasting_cases() {
  RandomState rng(51);
  std::vector<Case> out;
  for (DType t : {DType::Float32, DType::Int64}) {
    const std::string name(dtype_name(t));
    Var row = tensor("row", t, {1, kUnknownDim}), col = tensor("col", t, {kUnknownDim, 1}), s = scalar("s", t),
        m = matrix("m", t), cube = tensor("cube", t, {kUnknownDim, 1, kUnknownDim});
    auto values = [&](int64_t a, int64_t b, int64_t c) {
      return std::vector<Tensor>{random_values(rng, t, {1, b}), random_values(rng, t, {a, 1}),
                                 random_values(rng, t, {}), random_values(rng, t, {a, b}),
                                 random_values(rng, t, {c, 1, b})};
    };
    std::vector<std::vector<Tensor>> arg_sets = layouts(values(5, 7, 3));
    arg_sets.push_back(values(1, 1, 1));
    arg_sets.push_back(values(0, 4, 2));
    arg_sets.push_back(values(3, 0, 0));
    out.push_back({.name = "static broadcasting " + name,
                   .inputs = {row, col, s, m, cube},
                   .outputs = {(row + col).as("row + col"), (row * col - s).as("row * col - s"),
                               (m * row + col * s).as("m * row + col * s"), (cube * m - row).as("cube * m - row"),
                               maximum(cube, col).as("maximum(cube, col)"), (s * s + 1).as("s * s + 1")},
                   .arg_sets = arg_sets});
  }
  // Dims of unknown size that are 1 when the function runs: NumPy broadcasting the kernel's
  // fast path does not cover (the backend takes its general path).
  Var a = matrix("a", DType::Float64), b = matrix("b", DType::Float64), v = vector("v", DType::Float64);
  auto values = [&](Shape sa, Shape sb, Shape sv) {
    return std::vector<Tensor>{random_values(rng, DType::Float64, sa), random_values(rng, DType::Float64, sb),
                               random_values(rng, DType::Float64, sv)};
  };
  out.push_back({.name = "run-time broadcasting",
                 .inputs = {a, b, v},
                 .outputs = {(a + b * v).as("a + b * v"), exp(a - b).as("exp(a - b)"), (a * 2.0 - v).as("a * 2 - v")},
                 .arg_sets = {values({4, 5}, {4, 5}, {5}), values({4, 1}, {1, 5}, {5}), values({4, 5}, {4, 5}, {1}),
                              values({1, 1}, {3, 1}, {1}), values({4, 5}, {2, 5}, {5})},  // the last raises
                 .tolerance = kUlps});
  return out;
}

std::vector<Case> non_contiguous_cases() {
  RandomState rng(52);
  std::vector<Case> out;
  for (DType t : {DType::Float64, DType::Float32, DType::Int16}) {
    Var x = tensor3("x", t), y = tensor3("y", t), m = matrix("m", t);
    auto values = [&](int64_t a, int64_t b, int64_t c) {
      return std::vector<Tensor>{random_values(rng, t, {a, b, c}), random_values(rng, t, {a, b, c}),
                                 random_values(rng, t, {c, b})};
    };
    std::vector<std::vector<Tensor>> arg_sets = layouts(values(4, 6, 9));
    // A transposed view of a larger tensor, and a view walking two axes backwards.
    std::vector<Tensor> v = values(4, 6, 9);
    arg_sets.push_back({test::slice_view(random_values(rng, t, {4, 6, 20}), 2, 3, 12),
                        test::flip_view(test::flip_view(v[1], 1), 2), test::fortran_layout(v[2])});
    arg_sets.push_back(values(3, 0, 2));
    arg_sets.push_back(values(1, 1, 1));
    out.push_back({.name = "non-contiguous operands " + std::string(dtype_name(t)),
                   .inputs = {x, y, m},
                   .outputs = {(x * y + 1).as("x * y + 1"), (x - y.dimshuffle({0, 1, 2})).as("x - y"),
                               (x.dimshuffle({0, 2, 1}) + m).as("x.transpose(0,2,1) + m"), (x + m.T()).as("x + m.T"),
                               (x[{colon, slice(std::nullopt, std::nullopt, -1)}] * y).as("x[:, ::-1] * y")},
                   .arg_sets = arg_sets});
  }
  return out;
}

std::vector<Case> fused_group_cases() {
  RandomState rng(53);
  std::vector<Case> out;
  for (DType t : {DType::Float64, DType::Float32}) {
    Var x = matrix("x", t), y = matrix("y", t), z = vector("z", t);
    const Var shared_value = exp(x) * y;
    std::vector<std::vector<Tensor>> arg_sets =
        layouts({random_values(rng, t, {8, 33}), random_values(rng, t, {8, 33}), random_values(rng, t, {33})});
    arg_sets.push_back({Tensor::zeros(t, {0, 33}), Tensor::zeros(t, {0, 33}), random_values(rng, t, {33})});
    out.push_back({.name = "multi-output fused groups " + std::string(dtype_name(t)),
                   .inputs = {x, y, z},
                   .outputs = {(x + y).as("x + y"), (x - y).as("x - y"), (x * y + z).as("x * y + z"),
                               shared_value.as("exp(x) * y, also read below"),
                               (shared_value * 2.0 + tanh(shared_value)).as("2 e + tanh(e)"),
                               (x * exp(-y) + z * tanh(x) - 0.5 * y * z).as("a*exp(-b) + c*tanh(a) - 0.5*b*c"),
                               sigmoid(x * z).as("sigmoid(x * z)"), (z * 3.0).as("z * 3 (a smaller space)")},
                   .arg_sets = arg_sets,
                   .tolerance = kFloat32Math});
  }
  // 0-d kernels.
  Var a = scalar("a", DType::Float64), b = scalar("b", DType::Int32);
  out.push_back({.name = "0-d kernels",
                 .inputs = {a, b},
                 .outputs = {a * b + 1.0, sqrt(abs(a)) - b, b * b % 7},
                 .arg_sets = {{Tensor::scalar(2.5), Tensor::scalar(int32_t{-3})},
                              {Tensor::scalar(-0.0), Tensor::scalar(int32_t{7})}},
                 .tolerance = kUlps});
  return out;
}

// Enough elements for the launcher to split the loop across threads (2^15 per thread), and a
// reduction whose output points are split.
std::vector<Case> large_cases() {
  RandomState rng(54);
  Var x = matrix("x", DType::Float32), y = matrix("y", DType::Float32), b = vector("b", DType::Float32);
  const Tensor vx = random_values(rng, DType::Float32, {300, 257}), vy = random_values(rng, DType::Float32, {300, 257});
  const Tensor vb = random_values(rng, DType::Float32, {257});
  return {{.name = "large elementwise and reduction",
           .inputs = {x, y, b},
           .outputs = {(x * exp(-y) + b).as("x * exp(-y) + b"), sum(x * x, 1).as("sum(x * x, 1)"),
                       max(x - y, 0).as("max(x - y, 0)"), sum(x * y).as("sum(x * y)")},
           .arg_sets = {{vx, vy, vb}, {test::fortran_layout(vx), test::reversed_layout(vy, 0), vb}},
           .tolerance = kSummation}};
}

[[maybe_unused]] const bool kRegistered =
    register_family("broadcasting", &broadcasting_cases) && register_family("non-contiguous", &non_contiguous_cases) &&
    register_family("fused groups", &fused_group_cases) && register_family("large", &large_cases);

TEST_P(Conformance, Broadcasting) { expect_all_conform(&broadcasting_cases); }
TEST_P(Conformance, NonContiguousOperands) { expect_all_conform(&non_contiguous_cases); }
TEST_P(Conformance, MultiOutputFusedGroups) { expect_all_conform(&fused_group_cases); }
TEST_P(Conformance, LargeTensors) { expect_all_conform(&large_cases); }

}  // namespace
}  // namespace tgc::conformance
