// The index and data-movement thunks on each GPU API (PoCL's OpenCL in CI) against the ops'
// perform(): gathers and scatters with negative, repeated and out-of-range indices, slices
// with negative steps, non-contiguous and broadcast operands, empty results, arg reductions
// with ties and NaNs, joins and fills; and whole functions that keep them on the device. Lean
// on purpose: PoCL spends about a second of CPU on each entry a test launches first.
#include "backends/gpu/index_thunks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "backends/gpu/index_rules.h"
#include "gpu_test_device.h"
#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/eye.h"
#include "ops/core/apply.h"
#include "ops/join/join.h"
#include "ops/reduce/arg_reduce.h"
#include "ops/shape/reshape_like.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {
namespace {

using device_test::on;
using gpu_test::expect_matches_cpu;

Tensor uniform(const Shape& shape, uint64_t seed, DType dtype = DType::Float32) {
  RandomState rng(seed);
  return rng.rand(shape).astype(dtype);
}

Tensor ints(const std::vector<int64_t>& v, const Shape& shape, DType dtype = DType::Int64) {
  return Tensor::from_vector(v, shape).astype(dtype);
}

// Runs `op` on `inputs` (device tensors, any layout) through its index rule and returns the
// results on the host; the reference perform() runs on host copies of the same inputs.
struct Outcome {
  std::vector<Tensor> device, reference;
};
Outcome run(std::shared_ptr<const Op> op, const std::vector<Tensor>& inputs, Config config = {}) {
  std::vector<VarPtr> vars;
  for (size_t i = 0; i < inputs.size(); ++i)
    vars.push_back(Variable::input(Type(inputs[i].dtype(), inputs[i].shape()), "in" + std::to_string(i)));
  const VarPtr out = apply(op, vars).at(0);
  const Node& node = *out->owner();
  std::string why;
  const gpu::DeviceOpRule* rule = gpu::find_rule(gpu::index_op_rules(), node, &why);
  EXPECT_NE(rule, nullptr) << why;
  Outcome r;
  std::vector<Tensor> host_in;
  for (const Tensor& t : inputs) host_in.push_back(t.to_host());
  r.reference.resize(static_cast<size_t>(node.num_outputs()));
  op->perform(host_in, r.reference);
  if (!rule) return r;
  std::vector<Tensor> outs(static_cast<size_t>(node.num_outputs()));
  rule->make(gpu_test::device(), node, config)(inputs, outs);
  for (const Tensor& t : outs) r.device.push_back(t.to_host());
  return r;
}

// Equal bit for bit (a NaN to the same NaN): the kernels compute what perform() computes, in
// the same order.
void expect_same_bits(const Outcome& r) {
  ASSERT_EQ(r.device.size(), r.reference.size());
  for (size_t k = 0; k < r.device.size(); ++k) {
    const Tensor got = r.device[k].contiguous(), want = r.reference[k].contiguous();
    ASSERT_EQ(got.dtype(), want.dtype()) << "output " << k;
    ASSERT_EQ(got.shape(), want.shape()) << "output " << k;
    EXPECT_TRUE(got.nbytes() == 0 || std::memcmp(got.raw_data(), want.raw_data(), got.nbytes()) == 0)
        << "output " << k << ": " << got.str() << " vs " << want.str();
  }
}

Tensor dev(const Tensor& host) { return host.to(gpu_test::device()); }

IndexSpec spec(std::vector<IndexEntry> e) { return IndexSpec{std::move(e)}; }
const IndexEntry kArray = IndexEntry::array();

TEST(GpuIndexThunks, GatherWithSlicesNegativeIndicesAndStridedOperands) {
  TGC_REQUIRE_GPU();
  // x is a transposed (non-contiguous) device view; idx holds negative and repeated indices.
  const Tensor x = dev(uniform({7, 5}, 1)).transpose();  // (5, 7)
  const Tensor idx = dev(ints({-1, 0, 2, 2, -5, 4}, {2, 3}));
  expect_same_bits(run(std::make_shared<AdvancedSubtensor>(spec({kArray, IndexEntry::slice(1, 6, 2)})), {x, idx}));
  // take along axis 1 with int32 indices read through a negative stride.
  const Tensor idx32 = dev(ints({6, -7, 3, 0}, {4}, DType::Int32));
  const Tensor flipped = idx32.view({4}, {-1}, idx32.offset() + 3);
  expect_same_bits(run(std::make_shared<AdvancedSubtensor>(spec({IndexEntry::slice(), kArray})), {x, flipped}));
  // Two arrays broadcast together, with an integer between them (the broadcast dims go first).
  const Tensor x3 = dev(uniform({4, 3, 6}, 2));
  const Tensor rows = dev(ints({0, -1, 2}, {3, 1})), cols = dev(ints({5, 1}, {1, 2}));
  expect_same_bits(run(std::make_shared<AdvancedSubtensor>(spec({kArray, IndexEntry::integer(-2), kArray})),
                       {x3, rows, cols}));
}

TEST(GpuIndexThunks, GatherOutOfRangeRaisesTheReferenceErrorAndEmptyResultsLaunchNothing) {
  TGC_REQUIRE_GPU();
  const Tensor x = dev(uniform({5, 3}, 3));
  auto op = std::make_shared<AdvancedSubtensor>(spec({kArray}));
  try {
    run(op, {x, dev(ints({0, 9, 1}, {3}))});
    ADD_FAILURE() << "no error for index 9";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("index 9 is out of bounds for axis 0 with size 5"), std::string::npos)
        << e.what();
  }
  // The flag was cleared: the next call with good indices succeeds.
  expect_same_bits(run(op, {x, dev(ints({4, -5}, {2}))}));
  const Outcome empty = run(op, {x, dev(ints({}, {0}))});
  expect_same_bits(empty);
  EXPECT_EQ(empty.device.at(0).shape(), (Shape{0, 3}));
}

TEST(GpuIndexThunks, IncAccumulatesEveryDuplicateInIndexOrderAndSetKeepsTheLast) {
  TGC_REQUIRE_GPU();
  const Tensor x = dev(uniform({6, 4}, 4));
  const Tensor idx = dev(ints({1, -1, 1, 3, 1}, {5}));
  const Tensor v = dev(uniform({5, 4}, 5));
  // The reference's bits: each destination adds its values in index order.
  expect_same_bits(run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, spec({kArray})), {x, v, idx}));
  expect_same_bits(run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Set, spec({kArray})), {x, v, idx}));
  // A value broadcast along the indexed rows (a row vector), into a column slice.
  const Tensor row = dev(uniform({2}, 6));
  expect_same_bits(run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, spec({kArray, IndexEntry::slice(1, 3)})),
                       {x, row, idx}));
}

TEST(GpuIndexThunks, LongIndexListsSortAcrossTilesAndMatchTheReferenceBitForBit) {
  TGC_REQUIRE_GPU();
  // Indices into 100 rows, each row getting many values, summed in index order. 9000 indices
  // take the rank sort (up to cfam::kRankSortMax), 20000 the bitonic sort: 32,768 padded keys,
  // its global steps and merges at six sizes past its 512-pair tiles.
  for (const int64_t n : {int64_t{9000}, int64_t{20000}}) {
    SCOPED_TRACE("list of " + std::to_string(n));
    RandomState rng(7);
    std::vector<int64_t> iv(static_cast<size_t>(n));
    const std::vector<double> u = rng.rand({n}).to_vector<double>();
    for (size_t i = 0; i < iv.size(); ++i) iv[i] = static_cast<int64_t>(u[i] * 200) - 100;
    const Tensor x = dev(uniform({100, 8}, 8)), v = dev(uniform({n, 8}, 9)), idx = dev(ints(iv, {n}, DType::Int16));
    expect_same_bits(run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, spec({kArray})), {x, v, idx}));
    // Set keeps each row's last value: the sort's order within a run is the list's.
    expect_same_bits(run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Set, spec({kArray})), {x, v, idx}));
    if (n > 10000) continue;
    // deterministic=false: float atomics (OpenCL: a compare-exchange loop), close but unordered.
    Config fast;
    fast.deterministic = false;
    const Outcome r = run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, spec({kArray})), {x, v, idx}, fast);
    EXPECT_TRUE(tensors_allclose(r.device.at(0), r.reference.at(0), 1e-5, 1e-5));
  }
  // Two index arrays and single elements (one lane per pair), with a key range whose
  // composites pass 2^32 (2000 x 2000 destinations x 2000 positions): the bitonic sort.
  const int64_t n = 2000;
  RandomState rng(11);
  std::vector<int64_t> rv(n), cv(n);
  const std::vector<double> u = rng.rand({2 * n}).to_vector<double>();
  for (size_t i = 0; i < rv.size(); ++i) {
    rv[i] = static_cast<int64_t>(u[i] * 50);  // repeats: 50 rows x 1999 columns
    cv[i] = 1999 - static_cast<int64_t>(u[rv.size() + i] * 1999);
  }
  const Tensor x = dev(uniform({2000, 2000}, 12)), v = dev(uniform({n}, 13));
  expect_same_bits(run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, spec({kArray, kArray})),
                       {x, v, dev(ints(rv, {n})), dev(ints(cv, {n}))}));
}

TEST(GpuIndexThunks, SliceAssignAndAddThroughNegativeStepsAndBroadcasts) {
  TGC_REQUIRE_GPU();
  const Tensor x = dev(uniform({6, 5}, 10));
  const Tensor v = dev(uniform({5}, 11));  // broadcast over the selected rows
  const IndexSpec s = spec({IndexEntry::slice(1, 6, 2), IndexEntry::slice(std::nullopt, std::nullopt, -1)});
  expect_same_bits(run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Set, s), {x, v}));
  expect_same_bits(run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, s), {x.transpose().transpose(), v}));
  // An empty slice changes nothing.
  expect_same_bits(run(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, spec({IndexEntry::slice(3, 3)})),
                       {x, dev(uniform({5}, 12))}));
}

TEST(GpuIndexThunks, ArgReductionsTakeTheFirstTieAndTheFirstNaN) {
  TGC_REQUIRE_GPU();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = dev(Tensor::from_vector<float>({1, 3, 3, 0, nan, 2, nan, 5, 4, 4, 4, 4}, {3, 4}));
  expect_same_bits(run(std::make_shared<ArgReduce>(ArgKind::Argmax, 1, false), {x}));  // a thread per row
  expect_same_bits(run(std::make_shared<ArgReduce>(ArgKind::Argmax, 0, true), {x.transpose()}));
  // One long flattened row: a block per output, its lanes combined in a tree.
  std::vector<float> big(5000, 1.0f);
  big[1234] = 7.0f;
  big[4321] = 7.0f;
  expect_same_bits(run(std::make_shared<ArgReduce>(ArgKind::Argmax, std::nullopt, false),
                       {dev(Tensor::from_vector(big, {50, 100}))}));
  big[777] = nan;
  big[3000] = nan;
  expect_same_bits(run(std::make_shared<ArgReduce>(ArgKind::Argmax, std::nullopt, false),
                       {dev(Tensor::from_vector(big, {50, 100}))}));
}

TEST(GpuIndexThunks, JoinsAndFills) {
  TGC_REQUIRE_GPU();
  const Tensor a = dev(uniform({3, 4}, 13)), b = dev(uniform({4, 2}, 14)).transpose();  // (2, 4), strided
  expect_same_bits(run(std::make_shared<Concatenate>(0), {a, b}));
  expect_same_bits(run(std::make_shared<Stack>(-1), {a, a.view({3, 4}, {4, -1}, a.offset() + 3)}));
  expect_same_bits(run(std::make_shared<Alloc>(Shape{3, 2, 4}), {dev(uniform({4}, 15))}));
  expect_same_bits(run(std::make_shared<Fill>(), {a, dev(uniform({}, 16))}));
  expect_same_bits(run(std::make_shared<Arange>(0.5, 7.3, 0.7, DType::Float32), {}));
  expect_same_bits(run(std::make_shared<Arange>(-3, 40, 4, DType::Int32), {}));
  expect_same_bits(run(std::make_shared<Eye>(4, 6, 1, DType::Float32), {}));
  expect_same_bits(run(std::make_shared<Alloc>(Shape{0, 4}), {dev(uniform({4}, 17))}));  // zero-size: no launch
}

TEST(GpuIndexThunks, SubtensorAndReshapeLikeAreViews) {
  TGC_REQUIRE_GPU();
  const Tensor x = dev(uniform({6, 5}, 18));
  const IndexSpec s = spec({IndexEntry::slice(std::nullopt, std::nullopt, -2), IndexEntry::integer(1)});
  auto op = std::make_shared<Subtensor>(s);
  VarPtr in = Variable::input(Type(DType::Float32, {6, 5}), "x");
  const VarPtr out = apply(op, {in}).at(0);
  std::vector<Tensor> outs(1);
  gpu::find_rule(gpu::index_op_rules(), *out->owner(), nullptr)->make(gpu_test::device(), *out->owner(), {})({x}, outs);
  EXPECT_TRUE(outs[0].shares_buffer(x));
  expect_same_bits(run(op, {x}));
  // ReshapeLike (gradients make it): a view of a dense x, a dense copy of a strided one first.
  const Tensor like = dev(uniform({10, 3}, 21));
  expect_same_bits(run(std::make_shared<ReshapeLike>(), {x, like}));
  expect_same_bits(run(std::make_shared<ReshapeLike>(), {x.transpose(), like}));
}

TEST(GpuIndexThunks, FunctionsKeepIndexingOnTheDeviceAndNameTheNodeOfABadIndex) {
  TGC_REQUIRE_GPU();
  Var w = matrix("w", DType::Float32), ids = vector("ids", DType::Int64), g = matrix("g", DType::Float32);
  Var rows = take(w, ids, 0);
  Var grad_w = inc_subtensor(w[{ids}], g);
  Var best = argmax(w, 1);
  const std::vector<Tensor> args{uniform({10, 3}, 19), ints({3, -1, 3, 0}, {4}), uniform({4, 3}, 20)};
  // assert_no_cpu_op=raise: compiling fails if any of them stays on the host.
  expect_matches_cpu({w, ids, g}, {rows, grad_w, best}, args, 0.0, 0.0, {{"assert_no_cpu_op", "raise"}});
  Function f = function({w, ids}, {rows}, {}, on(gpu_test::api()));
  try {
    f(args[0], ints({3, 10}, {2}));
    ADD_FAILURE() << "no error for index 10";
  } catch (const ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("index 10 is out of bounds for axis 0 with size 10"), std::string::npos) << what;
    EXPECT_NE(what.find("ids"), std::string::npos) << "the node is named: " << what;
  }
}

}  // namespace
}  // namespace tgc
