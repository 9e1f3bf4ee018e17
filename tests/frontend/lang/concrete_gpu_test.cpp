// Concrete values of a .tg program on a CUDA device (label gpu; skipped, with the reason,
// where no CUDA device can be used): creation and results on the GPU, get(), mixing with a
// host value is an error naming both devices, and a program compiled for cuda reads a device
// value kept by shared() and takes a device value as an argument (as `tgc run --input` gives it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using ::testing::HasSubstr;

#define REQUIRE_CUDA()                                                  \
  try {                                                                 \
    device("cuda");                                                     \
  } catch (const ConfigError& e) {                                      \
    GTEST_SKIP() << "no CUDA device here: " << e.what();                \
  }

TEST(ConcreteCuda, ValuesAreComputedOnTheGpu) {
  REQUIRE_CUDA();
  Device& gpu = device("cuda");
  // PyCUDA's a_doubled = (2 * a_gpu).get(), with the value brought back by get().
  const Tensor a = eval_value("(2 * rand(4, 4, seed=3, dtype='float32', device='cuda')).get()", "test");
  EXPECT_TRUE(a.on_host());
  EXPECT_TRUE(tensors_allclose(a, eval_value("2 * rand(4, 4, seed=3, dtype='float32')", "test"), 1e-6, 1e-6));
  const Tensor s = eval_value("sum(exp(ones((64, 32), dtype='float32', device='cuda')), axis=1)", "test");
  EXPECT_EQ(&s.device(), &gpu);
  EXPECT_NEAR(s.to_host().to_vector<float>()[0], 32 * 2.7182817f, 1e-3);
  const SourceError e = test::load_error("a = ones(3, device='cuda')\nb = a * ones(3)\n");
  EXPECT_EQ(e.loc().col, 9);
  EXPECT_THAT(e.message(), HasSubstr("cuda:0"));
  EXPECT_THAT(e.message(), HasSubstr("cpu"));
}

TEST(ConcreteCuda, FunctionsOfTheDeviceTakeDeviceValues) {
  REQUIRE_CUDA();
  TgProgram p = load_source(
      "w = shared(ones(3, dtype='float32', device='cuda') * 3, name='w')\nx = vector('x', dtype='float32')\n"
      "f = function([x], x * w)\n",
      "test.tg", FunctionOptions{.config = {{"device", "cuda"}}});
  const Tensor x = eval_value("arange(3, dtype='float32', device='cuda')", "--input x");
  EXPECT_EQ(x.device().kind(), DeviceKind::Cuda);
  EXPECT_EQ(p.functions.at(0).function({x})[0].to_host().to_vector<float>(), (std::vector<float>{0, 3, 6}));
}

}  // namespace
}  // namespace tgc::lang
