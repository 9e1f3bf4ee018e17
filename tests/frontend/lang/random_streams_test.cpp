// RandomStreams in .tg: the object and its methods draw what the C++ API draws (the same
// seed, the same numbers), each call of a function draws anew, no_default_updates repeats,
// and a wrong method says what the object has.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using ::testing::HasSubstr;

TEST(RandomStreamsLang, DrawsWhatTheCppApiDrawsAndAdvancesPerCall) {
  TgProgram p = test::load(
      "srng = RandomStreams(7)\n"
      "u = srng.uniform((4,), dtype='float64')\n"
      "f = function([], u)\n"
      "g = function([], u, no_default_updates=true)\n");
  RandomStreams cpp(7);
  Function h = function({}, {cpp.uniform({4}, 0.0, 1.0, DType::Float64)});
  const auto first = p.find("f")->function()[0].to_vector<double>();
  EXPECT_EQ(first, h()[0].to_vector<double>());
  EXPECT_NE(p.find("f")->function()[0].to_vector<double>(), first);
  Function& g = p.find("g")->function;
  EXPECT_EQ(g()[0].to_vector<double>(), g()[0].to_vector<double>());
}

TEST(RandomStreamsLang, SizeMayBeATensorsShape) {
  TgProgram p = test::load(
      "srng = RandomStreams(1)\nh = matrix('h')\n"
      "f = function([h], h * srng.binomial(h, 1, 0.5, dtype=floatX))\n");
  const Tensor out = p.find("f")->function(Tensor::full(DType::Float32, {3, 5}, 1.0))[0];
  EXPECT_EQ(out.shape(), (Shape{3, 5}));
}

TEST(RandomStreamsLang, AWrongMethodNamesTheObjectsMethods) {
  const SourceError e = test::load_error("srng = RandomStreams(1)\nu = srng.unifrom(3)\n");
  EXPECT_THAT(e.what(), HasSubstr("a RandomStreams has no method 'unifrom'"));
  EXPECT_THAT(e.what(), HasSubstr("uniform"));
  const SourceError neg = test::load_error("srng = RandomStreams(-1)\n");
  EXPECT_THAT(neg.what(), HasSubstr("seed -1 is negative"));
}

}  // namespace
}  // namespace tgc::lang
