// scan() in .tg files: lambda literals (parsing, calling, shadowing, errors), Theano's
// calling conventions (tap dicts, None in outputs_info, (outputs, updates), until()), and the
// tutorial's programs giving the tutorial's numbers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using ::testing::HasSubstr;
using test::load;
using test::load_error;

std::vector<double> call(TgProgram& p, const std::string& fn, const std::vector<Tensor>& args, size_t out = 0) {
  return p.find(fn)->function(args)[out].astype(DType::Float64).to_vector<double>();
}

TEST(ScanLang, CumulativeSumAndTapsAndSeveralResults) {
  TgProgram p = load(
      "v = dvector('v')\n"
      "acc, up = scan(lambda x, total: total + x, sequences=[v], outputs_info=[zeros_like(v[0])])\n"
      "f = function([v], acc)\n"
      "res, up2 = scan(lambda a, b, c, prev: (a + b + c + prev, a * 2),\n"
      "                sequences=[{'input': v, 'taps': [-1, 0, 1]}],\n"
      "                outputs_info=[zeros_like(v[0]), None])\n"
      "g = function([v], [res[0], res[1]])\n");
  Tensor v = Tensor::from_vector(std::vector<double>{1, 2, 3, 4});
  EXPECT_EQ(call(p, "f", {v}), (std::vector<double>{1, 3, 6, 10}));
  EXPECT_EQ(call(p, "g", {v}, 0), (std::vector<double>{6, 15}));
  EXPECT_EQ(call(p, "g", {v}, 1), (std::vector<double>{2, 4}));
}

TEST(ScanLang, UntilUpdatesAndNamedLambdas) {
  TgProgram p = load(
      "x0 = dscalar('x0')\n"
      "double = lambda h: h * 2\n"
      "out, up = scan(lambda h: (double(h), until(double(h) > 20)), outputs_info=[x0], n_steps=50)\n"
      "f = function([x0], out)\n"
      "count = shared(0.0, dtype='float64', name='count')\n"
      "c, updates = scan(lambda: (count * 10, {count: count + 1}), n_steps=3)\n"
      "g = function([], c, updates=updates)\n");
  EXPECT_EQ(call(p, "f", {Tensor::scalar(1.0)}), (std::vector<double>{2, 4, 8, 16, 32}));
  EXPECT_EQ(call(p, "g", {}), (std::vector<double>{0, 10, 20}));
  EXPECT_EQ(call(p, "g", {}), (std::vector<double>{30, 40, 50}));
}

TEST(ScanLang, ParametersShadowNamesOnlyInsideTheLambda) {
  TgProgram p = load(
      "x = dvector('x')\n"
      "h = dscalar('h')\n"
      "out, up = scan(lambda x, h: h + x, sequences=[x], outputs_info=[h])\n"
      "f = function([x, h], [out, h * 1])\n");
  EXPECT_EQ(call(p, "f", {Tensor::from_vector(std::vector<double>{1, 1}), Tensor::scalar(5.0)}),
            (std::vector<double>{6, 7}));
}

TEST(ScanLang, Errors) {
  EXPECT_THAT(load_error("f = lambda x x\n").what(), HasSubstr("expected ',' or ':'"));
  EXPECT_THAT(load_error("v = vector('v')\nr, u = scan(lambda a, b, c: a, sequences=[v], outputs_info=[v[0]])\n").what(),
              HasSubstr("the lambda takes 3 arguments but is called with 2"));
  EXPECT_THAT(load_error("v = vector('v')\nr, u = scan(exp, sequences=[v])\n").what(), HasSubstr("'exp' is a function"));
  EXPECT_THAT(load_error("v = vector('v')\nr, u = scan(3, sequences=[v])\n").what(),
              HasSubstr("the step of scan must be a lambda"));
  EXPECT_THAT(load_error("f = lambda x: f(x)\ny = f(1)\n").what(), HasSubstr("more than 64 deep"));
  EXPECT_THAT(load_error("r, u = scan(lambda h: h, outputs_info=[1.0])\n").what(), HasSubstr("give n_steps"));
  EXPECT_THAT(load_error("def f(x): x\n").what(), HasSubstr("lambda"));
}

}  // namespace
}  // namespace tgc::lang
