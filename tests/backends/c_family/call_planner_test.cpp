// entries_launched_for: the entries a CUDA module builds before the first call are those the
// launch plan picks for dense, aligned operands of the expected shapes, and nothing is said
// where the shapes raise or the device path does not apply.
#include "backends/c_family/call_planner.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "backends/c_family/kernel_test_util.h"

namespace tgc::cfam {
namespace {

using test::binary_kernel;
using test::reduce_kernel;

const DeviceLimits kH100{132, 1024, 32};

// The entries plan_launch picks for dense operands 4 KiB apart (aligned).
std::vector<bool> planned(const Kernel& k, const std::vector<Shape>& in, const std::vector<Shape>& out) {
  uintptr_t address = 1 << 20;
  auto dense = [&](const Shape& s) { return Geometry{DType::Float32, s, contiguous_strides(s), address += 4096}; };
  std::vector<Geometry> gi, go;
  for (const Shape& s : in) gi.push_back(dense(s));
  for (const Shape& s : out) go.push_back(dense(s));
  auto plan = plan_launch(k, gi, go, kH100);
  EXPECT_TRUE(plan);
  std::vector<bool> flags(render_body(k, {}).entries.size(), false);
  for (const Launch& l : plan->launches) flags.at(l.entry) = true;
  return flags;
}

size_t count(const std::vector<bool>& flags) { return std::count(flags.begin(), flags.end(), true); }

TEST(EntriesLaunchedFor, AreThePlansEntriesForDenseOperands) {
  const Kernel add = binary_kernel(ScalarOpKind::Add, DType::Float32, 2);
  const size_t n_add = render_body(add, {}).entries.size();
  const std::vector<bool> a = entries_launched_for(add, n_add, {{400, 8}, {400, 8}}, kH100);
  EXPECT_EQ(a, planned(add, {{400, 8}, {400, 8}}, {{400, 8}}));
  EXPECT_EQ(count(a), 1u);  // of the 6 (dense, vector, strided, at two index widths)
  EXPECT_EQ(render_body(add, {}).entries[std::find(a.begin(), a.end(), true) - a.begin()], "tgc_k_vector_i32");

  // A reduction over rows and one over a whole matrix (two passes): each its own entries.
  const Kernel rows = reduce_kernel(KernelReduceOp::Sum, 2, {1});
  const size_t n_rows = render_body(rows, {}).entries.size();
  const std::vector<bool> r = entries_launched_for(rows, n_rows, {{256, 10}}, kH100);
  EXPECT_EQ(r, planned(rows, {{256, 10}}, {{256}}));
  EXPECT_GE(count(r), 1u);
  EXPECT_LT(count(r), n_rows / 2);
  const Kernel all = reduce_kernel(KernelReduceOp::Sum, 2, {0, 1});
  const std::vector<bool> w = entries_launched_for(all, render_body(all, {}).entries.size(), {{4096, 4096}}, kH100);
  EXPECT_EQ(w, planned(all, {{4096, 4096}}, {Shape{}}));
}

TEST(EntriesLaunchedFor, SaysNothingWhereTheCallWouldRaise) {
  const Kernel add = binary_kernel(ScalarOpKind::Add, DType::Float32, 2);
  const size_t n = render_body(add, {}).entries.size();
  EXPECT_TRUE(entries_launched_for(add, n, {{3, 4}, {5, 4}}, kH100).empty());  // shapes do not broadcast
  EXPECT_TRUE(entries_launched_for(add, n, {{3, 4}}, kH100).empty());          // an input missing
}

}  // namespace
}  // namespace tgc::cfam
