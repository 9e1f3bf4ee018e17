// The pooling ops: PyTorch's output sizes (padding, ceil_mode) and divisors
// (count_include_pad) by hand, the layouts, NaN windows, the gradient's routing, verify_grad,
// and the errors that name the user's values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <tgc/tgc.h>

#include "ops/pool/pool2d.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

Tensor pool(const Tensor& x, Pool2dParams p) { return test::run_op(Pool2d(p), {x}); }

TEST(Pool2d, MaxHandComputed) {
  Tensor x = test::iota({1, 1, 4, 4});  // 0..15
  Tensor y = pool(x, {});                // 2x2, stride 2
  test::expect_same(y, Tensor::from_vector<double>({5, 7, 13, 15}, {1, 1, 2, 2}));
}

TEST(Pool2d, CeilModeAndPaddingSizes) {
  // PyTorch: 5 rows, kernel 2, stride 2: floor 2, ceil 3; with padding 1 and ceil, the last
  // window would start in the right padding (at 6 >= 5 + 1) and is dropped: 3, not 4.
  Pool2dParams p;
  EXPECT_EQ(p.out_size(5, 0), 2);
  p.ceil_mode = true;
  EXPECT_EQ(p.out_size(5, 0), 3);
  p.pad = {1, 1};
  EXPECT_EQ(p.out_size(5, 0), 3);
  p.kernel = {3, 3};
  p.stride = {2, 2};
  EXPECT_EQ(p.out_size(6, 0), 4);  // (6 + 2 - 3) / 2 = 2.5 -> 3, + 1
}

TEST(Pool2d, AverageDivisors) {
  // 3x3 of ones, kernel 2, stride 2, padding 1: every window holds one to four ones.
  Tensor x = Tensor::full(DType::Float64, {1, 1, 3, 3}, 1.0);
  Pool2dParams p;
  p.mode = PoolMode::Avg;
  p.pad = {1, 1};
  // count_include_pad: corner windows cover 1 real cell of 4 -> 0.25; edges 2 of 4 -> 0.5.
  test::expect_same(pool(x, p), Tensor::from_vector<double>({0.25, 0.5, 0.5, 1.0}, {1, 1, 2, 2}));
  p.count_include_pad = false;
  test::expect_same(pool(x, p), Tensor::full(DType::Float64, {1, 1, 2, 2}, 1.0));
  // ceil_mode's extra window reaches past the padding: PyTorch divides by the window clipped
  // to the padded input (here 1 row x 2 columns of which 1 x 1 real).
  Pool2dParams c;
  c.mode = PoolMode::Avg;
  c.ceil_mode = true;
  Tensor y = pool(test::iota({1, 1, 3, 3}), c);  // windows {0,1,3,4} {2,5} {6,7} {8}
  test::expect_same(y, Tensor::from_vector<double>({2, 3.5, 6.5, 8}, {1, 1, 2, 2}));
}

TEST(Pool2d, NhwcAndNan) {
  Tensor x = RandomState(1).randn({2, 3, 4, 6});
  Pool2dParams p;
  p.kernel = {3, 2};
  p.stride = {1, 2};
  p.pad = {1, 1};
  Tensor want = pool(x, p);
  p.layout = ConvLayout::NHWC;
  test::expect_same(pool(x.transpose({0, 2, 3, 1}), p), want.transpose({0, 2, 3, 1}).copy());
  Tensor n = test::iota({1, 1, 2, 2});
  n.data<double>()[1] = NAN;
  EXPECT_TRUE(std::isnan(pool(n, {}).at({0, 0, 0, 0})));
}

TEST(Pool2dGrad, MaxRoutesToTheFirstMaximum) {
  Tensor x = Tensor::from_vector<double>({1, 3, 3, 0}, {1, 1, 2, 2});
  Pool2dParams p;
  Tensor gx = test::run_op(Pool2dGrad(p), {x, Tensor::full(DType::Float64, {1, 1, 1, 1}, 2.0)});
  test::expect_same(gx, Tensor::from_vector<double>({0, 2, 0, 0}, {1, 1, 2, 2}));
}

TEST(Pool2dGrad, VerifyGrad) {
  // Distinct values keep every max away from a tie, where the numeric gradient is undefined.
  std::vector<double> v(100);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 37) % 100) / 10;
  Tensor x = Tensor::from_vector(v, {2, 2, 5, 5});
  for (bool ceil : {false, true})
    for (bool include : {false, true}) {
      Pool2dOptions o;
      o.stride = std::array<int64_t, 2>{2, 1};
      o.padding = {1, 1};
      o.ceil_mode = ceil;
      o.count_include_pad = include;
      EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return avg_pool2d(v[0], {3, 2}, o); }, {x}));
      EXPECT_NO_THROW(verify_grad([&](const std::vector<Var>& v) { return max_pool2d(v[0], {3, 2}, o); }, {x}));
    }
}

TEST(PoolErrors, NameTheUsersValues) {
  Var x = tensor("x", DType::Float32, {1, 2, 4, 4});
  try {
    max_pool2d(x, {3, 3}, Pool2dOptions{ConvLayout::NCHW, std::nullopt, {2, 0}});
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("padding (2, 0) for kernel (3, 3)"));
    EXPECT_THAT(e.what(), HasSubstr("max_pool2d(x)"));
  }
  EXPECT_THROW(avg_pool2d(x, {5, 5}), ShapeError);
  EXPECT_THROW(max_pool2d(matrix("m"), {2, 2}), ShapeError);
  EXPECT_EQ(test::op_name(avg_pool2d(x, {2, 2})),
            "Pool2d{mode=avg,layout=NCHW,kernel=(2,2),stride=(2,2),pad=(0,0)}");
}

}  // namespace
}  // namespace tgc
