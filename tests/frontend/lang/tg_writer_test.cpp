// write_tg_program / save_tg (frontend/lang/tg_writer.cpp, docs/save.md#as-a-tg-program):
// functions built in C++ written as .tg programs read back into functions that compute the
// same bits: a training step with grad (SumToLike and Fill through op()), a random draw, an
// ifelse, indexing, constants inline and from .npy files; a loop is refused by name.
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "frontend/lang/tg_program.h"
#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using ::testing::HasSubstr;

std::string temp(const std::string& name) { return ::testing::TempDir() + "/tg_writer_" + name; }

void expect_same_bits(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  const Tensor x = a.contiguous(), y = b.contiguous();
  EXPECT_EQ(0, std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()));
}

Tensor f32(std::vector<float> v, Shape s) { return Tensor::from_vector(v).reshape(s); }

TEST(TgWriter, ATrainingStepReadsBackAndTrainsInStep) {
  Shared w = shared(f32({0.1f, -0.2f, 0.3f}, {3}), "w");
  Shared b = shared(Tensor::scalar(0.05f), "b");
  Var x = matrix("x"), y = vector("y");
  Var p = sigmoid(dot(x, w) + b);
  Var cost = mean(-y * log(p) - (1 - y) * log(1 - p)) + 0.01f * sum(w * w);
  std::vector<Var> g = grad(cost, {w, b});
  Function train = function({x, y}, {cost, p > 0.5}, {{w, w - 0.5 * g[0]}, {b, b - 0.5 * g[1]}}, {.name = "train"});
  save_tg({&train}, temp("logreg.tg"));
  const TgProgramText text = write_tg_program({&train}, "logreg");
  EXPECT_THAT(text.source, HasSubstr("x = tensor('float32', shape=(None, None), name=\"x\")"));
  EXPECT_THAT(text.source, HasSubstr("dot(x, w)"));
  EXPECT_THAT(text.source, HasSubstr("op('SumToLike', '{}', "));
  EXPECT_THAT(text.source, HasSubstr("train = function([x, y], ["));
  TgProgram prog = load_file(temp("logreg.tg"));
  ASSERT_EQ(prog.functions.size(), 1u);
  const Tensor X = f32({1, 2, 0, -1, 0.5f, 2, 3, -1, 1, 0, 0, 1}, {4, 3}), Y = f32({1, 0, 1, 0}, {4});
  for (int step = 0; step < 4; ++step) {
    std::vector<Tensor> a = train(X, Y), c = prog.functions[0].function(X, Y);
    expect_same_bits(a[0], c[0]);
    expect_same_bits(a[1], c[1]);
  }
}

TEST(TgWriter, DrawsBranchesIndexingAndLargeConstants) {
  RandomStreams streams(3);
  Var x = vector("x");
  Var big = constant(Tensor::from_vector(std::vector<float>(40, 0.25f)));
  Var noise = streams.uniform({40});
  Var picked = ifelse(sum(x) > 0, x[{Slice{1, std::nullopt, 2}}] * 2, -x[{Slice{std::nullopt, 20}}]);
  Function f = function({x}, {picked, x * big + noise}, {}, {.name = "mixed"});
  save_tg({&f}, temp("mixed.tg"));
  // The 40-element constant goes to a file (with the draw's state); small ones are written inline.
  const TgProgramText text = write_tg_program({&f}, "m");
  EXPECT_TRUE(std::any_of(text.arrays.begin(), text.arrays.end(), [](const auto& a) { return a.second.numel() == 40; }));
  EXPECT_THAT(text.source, HasSubstr("array(2.0, dtype='float32')"));
  TgProgram prog = load_file(temp("mixed.tg"));
  ASSERT_EQ(prog.functions.size(), 1u);
  std::vector<float> v(40);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) - 10.0f;
  const Tensor X = Tensor::from_vector(v);
  for (int call = 0; call < 2; ++call) {  // the draw's state advances alike in both
    std::vector<Tensor> a = f(X), c = prog.functions[0].function(X);
    expect_same_bits(a[0], c[0]);
    expect_same_bits(a[1], c[1]);
  }
}

TEST(TgWriter, OpErrorsPointAtTheArgument) {
  // op(), the builtin written programs use: a tag, fields or inputs it cannot use are errors
  // at the call's argument, saying what is wrong.
  auto error_of = [](const std::string& call) -> std::string {
    return test::load_error("x = vector('x')\ny = " + call + "\n").what();
  };
  EXPECT_THAT(error_of("op('Frobnicate', '{}', x)"), HasSubstr("'Frobnicate' is not known"));
  EXPECT_THAT(error_of("op('StopGradient', 'not json', x)"), HasSubstr("the fields are not JSON"));
  EXPECT_THAT(error_of("op('Softmax', '{\"axis\": 1.5, \"log\": false, \"floatx\": \"float32\"}', x)"),
              HasSubstr("axis"));
  EXPECT_THAT(error_of("op('StopGradient', '{}', 'x')"), HasSubstr("an input of op() is"));
  EXPECT_THAT(error_of("op('Frobnicate', '{}', x)"), HasSubstr("test.tg:2:"));
}

TEST(TgWriter, ALoopIsRefusedByName) {
  Var v = vector("v");
  ScanResult r = scan([](const std::vector<Var>& a) { return a[1] + a[0]; }, {v}, {zeros_like(v[0])});
  Function f = function({v}, {r[0]}, {}, {.name = "cumsum"});
  try {
    write_tg_program({&f}, "c");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot be written as .tg yet"));
    EXPECT_THAT(e.hint(), HasSubstr("save()"));
  }
}

}  // namespace
}  // namespace tgc::lang
