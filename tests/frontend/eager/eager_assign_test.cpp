// Writes into tensors (assign, frontend/api/eager/eager_assign.cpp) on the host and on an
// OpenCL device (PoCL in CI; skipped where there is none): whole tensors, slices, strided
// selections, broadcast and cast values, overlapping source and destination, views that see
// the write, recorded lazy results that keep the values from before it, and the errors.
// CUDA runs the same GPU-layer code (tests/backends/cuda/eager_gpu_test.cpp).
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "support/catch_error.h"

namespace tgc {
namespace {

using test::catch_error;

class Assign : public ::testing::TestWithParam<std::string> {
 protected:
  Device& dev() { return device(GetParam()); }
  void SetUp() override {
    try {
      device(GetParam());
    } catch (const ConfigError& e) {
      GTEST_SKIP() << "no " << GetParam() << " device here: " << e.what();
    }
  }
  Tensor on(const Tensor& host) { return host.to(dev()); }
  static std::vector<float> values(const Tensor& t) { return t.to_host().contiguous().to_vector<float>(); }
};

Tensor grid() {  // 3 x 4: 0 .. 11
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  return Tensor::from_vector(v).reshape({3, 4});
}

TEST_P(Assign, WholeTensorsSlicesAndColumns) {
  Tensor a = on(grid());
  assign(a, {1}, on(Tensor::from_vector<float>({-1, -2, -3, -4})));  // a row: a dense selection
  assign(a, {Slice{}, 2}, 7.0);                                     // a column: strided, a scalar broadcast
  EXPECT_EQ(values(a), (std::vector<float>{0, 1, 7, 3, -1, -2, 7, -4, 8, 9, 7, 11}));
  // A reversed column: a negative stride.
  assign(a, {Slice{std::nullopt, std::nullopt, -1}, 0}, on(Tensor::from_vector<float>({30, 20, 10})));
  EXPECT_EQ(values(a), (std::vector<float>{10, 1, 7, 3, 20, -2, 7, -4, 30, 9, 7, 11}));
  assign(a, Tensor::from_vector<float>({5, 6, 7, 8}));  // every row, from the host
  EXPECT_EQ(values(a), (std::vector<float>{5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8}));
}

TEST_P(Assign, ValuesAreCastAsNumPyAssigns) {
  Tensor a = on(Tensor::from_vector<int64_t>({0, 0, 0}));
  assign(a, Tensor::from_vector<double>({1.9, -2.7, 3.0}));
  EXPECT_EQ(a.to_host().to_vector<int64_t>(), (std::vector<int64_t>{1, -2, 3}));
}

TEST_P(Assign, ASourceSharingTheMemoryIsReadBeforeTheWrite) {
  Tensor a = on(Tensor::from_vector<float>({1, 2, 3, 4, 5}));
  assign(a, {Slice{1, std::nullopt}}, a.view({4}, {1}, a.offset()));  // a[1:] = a[:-1]
  EXPECT_EQ(values(a), (std::vector<float>{1, 1, 2, 3, 4}));
}

TEST_P(Assign, ViewsSeeTheWriteAndRecordedResultsDoNot) {
  Tensor a = on(grid());
  const Tensor row = a.view({4}, {1}, a.offset() + 4);  // shares a's memory
  const Tensor doubled = a * 2.0f;                    // recorded, not computed yet
  assign(a, 0.0);
  EXPECT_EQ(values(row), (std::vector<float>{0, 0, 0, 0}));
  std::vector<float> want(12);
  for (int i = 0; i < 12; ++i) want[i] = 2.0f * static_cast<float>(i);
  EXPECT_EQ(values(doubled), want) << "the lazy result read a's values from before the write";
}

TEST_P(Assign, ErrorsSayWhatToDoInstead) {
  Tensor a = on(grid());
  const Tensor pending = a + 1.0f;
  auto e = catch_error<ValueError>([&] { assign(pending, 0.0); });
  EXPECT_NE(std::string(e.what()).find("eval() it first"), std::string::npos) << e.what();
  catch_error<ShapeError>([&] { assign(a, Tensor::from_vector<float>({1, 2, 3})); });  // (3,) into (3, 4)
  auto i = catch_error<ValueError>([&] { assign(a, {5}, 0.0); });
  EXPECT_NE(std::string(i.what()).find("out of"), std::string::npos) << i.what();
  auto v = catch_error<TypeError>([&] { assign(a, {vector("idx", DType::Int64)}, 0.0); });
  EXPECT_NE(std::string(v.what()).find("set_subtensor"), std::string::npos) << v.what();
  EXPECT_EQ(values(a), values(grid().to(dev()))) << "a failed write wrote nothing";
}

INSTANTIATE_TEST_SUITE_P(Devices, Assign, ::testing::Values("cpu", "opencl"));

}  // namespace
}  // namespace tgc
