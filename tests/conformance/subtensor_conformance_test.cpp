// Indexing on every backend: basic subtensors (integers, slices with negative steps, newaxis)
// read by kernels as views, advanced indexing and take with negative and repeated indices,
// set_subtensor and inc_subtensor (repeated indices accumulate), and out-of-range indices
// raising as the reference does.
#include "conformance/conformance.h"
#include "support/op_test_util.h"

namespace tgc::conformance {
namespace {

std::vector<Case> subtensor_cases() {
  RandomState rng(41);
  std::vector<Case> out;
  for (DType t : {DType::Float64, DType::Int32}) {
    Var x = matrix("x", t), y = tensor3("y", t);
    std::vector<std::vector<Tensor>> arg_sets =
        layouts({random_values(rng, t, {6, 5}), random_values(rng, t, {4, 3, 5})});
    arg_sets.push_back({random_values(rng, t, {3, 5}), random_values(rng, t, {3, 2, 5})});
    out.push_back(
        {.name = "basic subtensors " + std::string(dtype_name(t)),
         .inputs = {x, y},
         .outputs = {(x[{slice(1, -1), slice(std::nullopt, std::nullopt, -2)}] + 1).as("x[1:-1, ::-2] + 1"),
                     (x[2] * 2).as("x[2] * 2"), (x[{colon, 0}] - x[{colon, -1}]).as("x[:, 0] - x[:, -1]"),
                     (x[{newaxis, slice(0, 2)}] + y[{slice(0, 1), slice(0, 2)}]).as("x[newaxis, :2] + y[:1, :2]"),
                     (y[{colon, 1, slice(std::nullopt, std::nullopt, 2)}] * 3).as("y[:, 1, ::2] * 3"),
                     (y[{slice(std::nullopt, std::nullopt, -1)}] - y).as("y[::-1] - y"),
                     (x[{slice(4, 1, -1), slice(1, 3)}] + 0).as("x[4:1:-1, 1:3]")},
         .arg_sets = arg_sets});

    Var idx = vector("idx", DType::Int64), v = vector("v", t), w = matrix("w", t);
    const Tensor vx = random_values(rng, t, {6, 5});
    const Tensor vidx = Tensor::from_vector(std::vector<int64_t>{0, -1, 2, 2, 4, -5});
    out.push_back(
        {.name = "advanced indexing and updates " + std::string(dtype_name(t)),
         .inputs = {x, idx, v, w},
         .outputs = {(x[idx] * 2).as("x[idx] * 2"), (x[{colon, idx[{slice(0, 3)}]}] + 1).as("x[:, idx[:3]] + 1"),
                     take(x, idx, 1).as("take(x, idx, axis=1)"), (take(x, idx) - 1).as("take(x, idx) - 1"),
                     set_subtensor(x[{slice(0, 2)}], v).as("set_subtensor(x[:2], v)"),
                     (inc_subtensor(x[{colon, 1}], 5.0) * 2).as("inc_subtensor(x[:, 1], 5) * 2"),
                     inc_subtensor(x[idx], w).as("inc_subtensor(x[idx], w): repeats add"),
                     set_subtensor(x[idx], 0.0).as("set_subtensor(x[idx], 0)"),
                     set_subtensor(x[{slice(std::nullopt, std::nullopt, -2)}], x[{slice(0, 3)}] * 2)
                         .as("set_subtensor(x[::-2], x[:3] * 2)")},
         .arg_sets = {{vx, vidx, random_values(rng, t, {5}), random_values(rng, t, {6, 5})},
                      {test::fortran_layout(vx), test::reversed_layout(vidx, 0), random_values(rng, t, {5}),
                       test::fortran_layout(random_values(rng, t, {6, 5}))},
                      // Index 6 is out of range for 6 rows: both raise.
                      {vx, Tensor::from_vector(std::vector<int64_t>{0, 6, 1, 1, 1, 1}), random_values(rng, t, {5}),
                       random_values(rng, t, {6, 5})}}});
  }
  return out;
}

[[maybe_unused]] const bool kRegistered = register_family("subtensors", &subtensor_cases);

TEST_P(Conformance, Subtensors) { expect_all_conform(&subtensor_cases); }

}  // namespace
}  // namespace tgc::conformance
