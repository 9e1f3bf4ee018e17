// The convolutional builtins in .tg: conv2d, conv_transpose2d and pooling with PyTorch's
// argument forms compute what the C++ API computes; batch_normalization_train gives its tuple
// and updates that function() takes; bad padding and layout strings are named errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using ::testing::HasSubstr;

TEST(ConvLang, MatchesTheCppApi) {
  TgProgram p = test::load(
      "x = tensor4('x', 'float64')\nw = tensor4('w', 'float64')\nv = tensor4('v', 'float64')\n"
      "t = tensor4('t', 'float64')\n"
      "f = function([x, w, v, t], [conv2d(x, w, stride=[2, 1], padding=[1, 0], dilation=2, groups=2),"
      " conv2d(x, v, padding='same'), max_pool2d(x, 2, padding=1, ceil_mode=true),"
      " avg_pool2d(x, [3, 2], stride=1, count_include_pad=false), conv_transpose2d(x, t, stride=2),"
      " conv2d(x.dimshuffle(0, 2, 3, 1), v.dimshuffle(0, 2, 3, 1), padding=[0, 1, 2, 0], layout='NHWC')])\n");
  Var x = tensor4("x", DType::Float64), w = tensor4("w", DType::Float64), v = tensor4("v", DType::Float64),
      t = tensor4("t", DType::Float64);
  Conv2dOptions strided{ConvLayout::NCHW, {2, 1}, ConvPadding(1, 0), {2, 2}, 2};
  Conv2dOptions same;
  same.padding = ConvPadding::same();
  Pool2dOptions mp{ConvLayout::NCHW, std::nullopt, {1, 1}, true};
  Pool2dOptions ap{ConvLayout::NCHW, std::array<int64_t, 2>{1, 1}, {0, 0}, false, false};
  Conv2dOptions up;
  up.stride = {2, 2};
  Conv2dOptions nhwc{ConvLayout::NHWC, {1, 1}, ConvPadding(0, 1, 2, 0), {1, 1}, 1};
  Function g = function({x, w, v, t}, {conv2d(x, w, strided), conv2d(x, v, same), max_pool2d(x, {2, 2}, mp),
                                       avg_pool2d(x, {3, 2}, ap), conv_transpose2d(x, t, up),
                                       conv2d(dimshuffle(x, {0, 2, 3, 1}), dimshuffle(v, {0, 2, 3, 1}), nhwc)});
  const std::vector<Tensor> args = {RandomState(1).randn({1, 4, 6, 5}), RandomState(2).randn({4, 2, 2, 2}),
                                    RandomState(3).randn({3, 4, 3, 3}), RandomState(4).randn({4, 3, 2, 2})};
  const std::vector<Tensor> got = p.find("f")->function(args), want = g(args);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(tensors_allclose(got[i], want[i], 1e-12, 1e-12)) << i;
}

TEST(ConvLang, BatchNormTupleAndUpdates) {
  TgProgram p = test::load(
      "x = matrix('x', 'float64')\n"
      "rm = shared(zeros(2), name='rm')\nrv = shared(ones(2), name='rv')\n"
      "y, m, v, ups = batch_normalization_train(x, ones(2), zeros(2), rm, rv, momentum=0.5)\n"
      "f = function([x], [y, m], updates=ups)\n"
      "g = function([x], batch_normalization_test(x, ones(2), zeros(2), rm, rv, epsilon=0.001))\n");
  const Tensor xv = Tensor::from_vector<double>({1, 10, 3, 20}, {2, 2});
  const std::vector<Tensor> r = p.find("f")->function(xv);
  EXPECT_TRUE(tensors_allclose(r[1], Tensor::from_vector<double>({2, 15})));
  // running_mean = 0.5 * 0 + 0.5 * batch mean.
  EXPECT_TRUE(tensors_allclose(Shared(p.variables.at("rm").ptr()).get_value(), Tensor::from_vector<double>({1, 7.5})));
}

TEST(ConvLang, BadArgumentsAreNamed) {
  const SourceError pad = test::load_error("x = tensor4('x')\ny = conv2d(x, x, padding='full')\n");
  EXPECT_THAT(pad.what(), HasSubstr("is \"full\""));
  EXPECT_THAT(pad.what(), HasSubstr("\"valid\", \"same\""));
  const SourceError layout = test::load_error("x = tensor4('x')\ny = max_pool2d(x, 2, layout='CHWN')\n");
  EXPECT_THAT(layout.what(), HasSubstr("\"NCHW\" or \"NHWC\""));
  const SourceError shared = test::load_error(
      "x = matrix('x')\nv = vector('v')\ny = batch_normalization_train(x, v, v, v, v)\n");
  EXPECT_THAT(shared.what(), HasSubstr("must be a shared variable"));
}

}  // namespace
}  // namespace tgc::lang
