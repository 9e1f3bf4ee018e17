// function() in .tg files: names, inputs and outputs as written, updates applied by calls,
// grad with tuple assignment, the tutorial's check1 and logistic-regression programs, and
// the device markers that have no effect on the cpu device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using test::load;

TEST(Function, NamesInputsAndOutputsAsWritten) {
  TgProgram p = load("x = matrix('x')\ny = matrix('y')\nf = function([x, y], [x + y, x - y])\n"
                     "g = function([x], exp(x), name='expo')\n");
  ASSERT_EQ(p.functions.size(), 2u);
  EXPECT_EQ(p.functions[0].name, "f");
  EXPECT_EQ(p.functions[0].function.name(), "f");
  EXPECT_EQ(p.functions[0].inputs, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(p.functions[0].outputs, (std::vector<std::string>{"x + y", "x - y"}));
  EXPECT_EQ(p.functions[0].loc.line, 3);
  EXPECT_EQ(p.functions[0].loc.col, 5);
  EXPECT_EQ(p.functions[1].name, "expo");
  EXPECT_EQ(p.functions[1].outputs, (std::vector<std::string>{"exp(x)"}));
  EXPECT_EQ(p.find("expo"), &p.functions[1]);
  EXPECT_EQ(p.find("g"), nullptr);
  EXPECT_EQ(p.default_function(), &p.functions[1]);
}

TEST(Function, GivensReplaceAFreeVariableByADatasetRow) {
  TgProgram p = load("data = shared(arange(6.0).reshape(3, 2), 'data')\ni = scalar('i', 'int64')\n"
                     "x = vector('x', 'float64')\nf = function([i], (x * 2).sum(), givens=[(x, data[i])])\n");
  const Tensor two = Tensor::from_vector(std::vector<int64_t>{2}).reshape({});
  EXPECT_DOUBLE_EQ(p.find("f")->function(two)[0].item<double>(), 2 * (4 + 5));
}

TEST(Function, DevicesRunTheRanksOfOneCall) {
  // One device here (the CPU); several are tested where there are GPUs (data_parallel_gpu_test).
  TgProgram p = load("x = matrix('x', 'float64')\nw = shared(ones(3), 'w')\n"
                     "f = function([x], dot(x, w).mean(), split=[x], devices=\"cpu\", updates=[(w, w * 2)])\n"
                     "g = function([x], dot(x, w).mean(), split=[x], devices=[\"cpu\"])\n");
  const Tensor x = Tensor::full(DType::Float64, {4, 3}, 1.0);
  EXPECT_DOUBLE_EQ(p.find("f")->function(x)[0].item<double>(), 3.0);
  EXPECT_DOUBLE_EQ(p.find("g")->function(x)[0].item<double>(), 6.0);  // w was doubled by f
}

TEST(Function, AGivenThatIsNotAPairIsAnErrorAtItsPosition) {
  try {
    load("x = vector()\nf = function([], x.sum(), givens=[x])\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("a given must be a pair (variable, replacement)"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr(":2:"));
  }
}

TEST(Function, TwoOutputsFromOneFunction) {
  TgProgram p = load("x = vector()\ny = vector()\nf = function([x, y], [x + y, x - y])\n");
  auto out = p.find("f")->function(Tensor::from_vector<float>({1, 2}), Tensor::from_vector<float>({3, 5}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{4, 7}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{-2, -3}));
}

TEST(Function, IfElseOneValueAndSeveralAsATuple) {
  TgProgram p = load("c = scalar('c', 'int64')\nx = vector()\n"
                     "y = ifelse(c, exp(x), -x)\n"
                     "a, b = ifelse(c > 0, [x + 1, x * 2], [x - 1, x * 3])\n"
                     "f = function([c, x], [y, a, b])\n");
  const Tensor one = Tensor::from_vector(std::vector<int64_t>{1}).reshape({});
  const Tensor zero = Tensor::from_vector(std::vector<int64_t>{0}).reshape({});
  auto out = p.find("f")->function(zero, Tensor::from_vector<float>({2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{-2}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{1}));
  EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{6}));
  out = p.find("f")->function(one, Tensor::from_vector<float>({2}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{3}));
  EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{4}));
}

TEST(Function, IfElseBranchesOfDifferentKindsAreAnErrorAtTheCall) {
  try {
    load("c = scalar()\nx = vector()\ny = ifelse(c, [x, x], x)\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("one branch is a list"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr(":3:"));
  }
}

TEST(Function, UpdatesAreAppliedByEachCall) {
  TgProgram p = load("x = vector()\nw = shared(zeros(2, dtype=floatX), name='w')\ncount = shared(0, name='count')\n"
                     "f = function([x], w * 2, updates=[(w, w + x), (count, count + 1)], name='train')\n");
  TgFunction* f = p.find("train");
  ASSERT_NE(f, nullptr);
  auto first = f->function(Tensor::from_vector<float>({1, 2}));
  auto second = f->function(Tensor::from_vector<float>({1, 2}));
  EXPECT_EQ(first[0].to_vector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(second[0].to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(Shared(p.variables.at("count").ptr()).get_value().item<int64_t>(), 2);
  EXPECT_EQ(Shared(p.variables.at("w").ptr()).get_value().to_vector<float>(), (std::vector<float>{2, 4}));
}

TEST(Function, HalfTypesAndMixedPrecisionFromTheLanguage) {
  // float16 inputs and literals stay float16 (computed in float32, rounded once on store);
  // a cast to bfloat16; a function with mixed_precision="bfloat16" keeps float32 results.
  TgProgram p = load("x = vector(dtype='float16')\ny = x * 2 + 1\n"
                     "f = function([x], [y, cast(y, 'bfloat16')], name='f')\n"
                     "w = shared(asarray(ones((3, 2)), 'float32'), name='w')\n"
                     "a = matrix('a')\ng = function([a], dot(a, w), name='g', mixed_precision='bfloat16')\n");
  auto out = p.find("f")->function(Tensor::from_vector<double>({0.1, 1000, 70000}).astype(DType::Float16));
  EXPECT_EQ(out[0].dtype(), DType::Float16);
  EXPECT_EQ(out[1].dtype(), DType::BFloat16);
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{1.2001953125, 2001, INFINITY}));
  EXPECT_EQ(out[1].to_vector<double>(), (std::vector<double>{1.203125, 2000, INFINITY}));
  auto r = p.find("g")->function(Tensor::from_vector<float>({1.00390625f, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_EQ(r[0].dtype(), DType::Float32);
  // 1.00390625 rounds to 1 in bfloat16: the product reads the half copy.
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{6, 6, 15, 15}));
}

TEST(Function, HalfDrawsAreFloat32DrawsRoundedOnce) {
  // As NumPy's rng.uniform(...).astype(float16): the same stream drawn as float32, rounded.
  TgProgram p = load("s = RandomStreams(1)\nu = s.uniform((64,), dtype='float16')\n"
                     "f = function([], u, name='f')\n"
                     "t = RandomStreams(1)\nw = t.uniform((64,), dtype='float32')\n"
                     "g = function([], w, name='g')\n");
  Tensor half = p.find("f")->function()[0], wide = p.find("g")->function()[0];
  ASSERT_EQ(half.dtype(), DType::Float16);
  EXPECT_TRUE(tensors_equal(half, wide.astype(DType::Float16)));
}

TEST(Function, GradWithTupleAssignment) {
  // cost = sum(w * x) + b**2: d/dw = x, d/db = 2b.
  TgProgram p = load("x = dvector()\nw = shared(ones(3), name='w')\nb = shared(3.0, dtype='float64')\n"
                     "cost = sum(w * x) + b ** 2\ngw, gb = grad(cost, [w, b])\ng1 = grad(cost, w)\n"
                     "f = function([x], [gw, gb, g1])\n");
  auto out = p.default_function()->function(Tensor::from_vector<double>({1, 2, 3}));
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{1, 2, 3}));
  EXPECT_DOUBLE_EQ(out[1].item<double>(), 6);
  EXPECT_TRUE(tensors_equal(out[2], out[0]));
}

TEST(Function, Check1ProgramPrintsTheTutorialsNumbers) {
  TgProgram p = load("vlen = 10 * 30 * 768  # 10 x #cores x # threads per core\n"
                     "x = shared(asarray(rand(vlen, seed=22), floatX), name='x')\n"
                     "f = function([], exp(x))\n");
  auto out = p.default_function()->function();
  ASSERT_EQ(out[0].shape(), (Shape{230400}));
  EXPECT_EQ(out[0].dtype(), DType::Float32);
  // The tutorial's printed numbers, within the ulp of float32_math=float32's exp (the
  // tutorial's exact bits under float32_math=double: tests/cli/run_examples_test.cpp).
  const std::vector<float> v = out[0].to_vector<float>();
  const std::vector<std::pair<size_t, float>> printed{{0, 1.23178029f},      {1, 1.61879337f},      {2, 1.52278066f},
                                                      {230397, 2.20771813f}, {230398, 2.29967761f}, {230399, 1.62323284f}};
  for (const auto& [i, want] : printed) EXPECT_NEAR(v[i], want, 2.5e-7f * want) << "element " << i;
  // The dtype= keyword of the generator gives the same float32 values.
  TgProgram q = load("x = shared(rand(230400, seed=22, dtype='float32'))\nf = function([], exp(x))\n");
  EXPECT_TRUE(tensors_equal(q.default_function()->function()[0], out[0]));
}

TEST(Function, LogisticRegressionTrainsAndPredicts) {
  // The tutorial's program (smaller and shorter), with the stable cross-entropy.
  TgProgram p = load(R"(
rng = RandomState(22)
N = 40
feats = 100
D = (rng.randn(N, feats), rng.randint(size=N, low=0, high=2))
training_steps = 200
x = dmatrix("x")
y = dvector("y")
w = shared(rng.randn(feats), name="w")
b = shared(0., dtype="float64", name="b")
z = dot(x, w) + b
p_1 = sigmoid(z)
prediction = p_1 > 0.5
xent = softplus(-z) + (1 - y) * z   # -y*log(p_1) - (1-y)*log(1-p_1), stably
cost = xent.mean() + 0.01 * (w ** 2).sum()
gw, gb = grad(cost, [w, b])
train = function(inputs=[x, y], outputs=[prediction, xent], updates=((w, w - 0.1 * gw), (b, b - 0.1 * gb)))
predict = function(inputs=[x], outputs=prediction)
data_x = shared(D[0])
data_y = shared(D[1])
)");
  RandomState rng(22);
  Tensor dx = rng.randn({40, 100});
  Tensor dy = rng.randint(0, 2, {40}).astype(DType::Float64);
  TgFunction* train = p.find("train");
  ASSERT_NE(train, nullptr);
  double first = 0, last = 0;
  for (int i = 0; i < 200; ++i) {
    auto out = train->function(dx, dy);
    double mean = 0;
    for (double v : out[1].to_vector<double>()) mean += v / 40;
    (i == 0 ? first : last) = mean;
  }
  EXPECT_LT(last, first);
  auto pred = p.find("predict")->function(dx)[0].to_vector<bool>();
  const auto labels = dy.to_vector<double>();
  int correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) correct += pred[i] == (labels[i] > 0.5);
  EXPECT_GE(correct, 38);
}

TEST(Function, GpuMarkersHaveNoEffectOnCpu) {
  TgProgram p = load("x = shared(rand(3, seed=22, dtype=floatX), name='x')\n"
                     "f = function([], gpu_from_host(exp(x)))\n"
                     "g = function([], exp(x), device_result=true)\n"
                     "h = function([], exp(x))\n");
  auto a = p.find("f")->function()[0];
  auto b = p.find("g")->function()[0];
  auto c = p.find("h")->function()[0];
  EXPECT_TRUE(a.on_host());
  EXPECT_TRUE(tensors_equal(a, c));
  EXPECT_TRUE(tensors_equal(b, c));
}

TEST(Function, OptionsReachTheCompiledFunction) {
  FunctionOptions opts;
  opts.config = {{"optimizer", "none"}};
  TgProgram p = load_source("x = vector()\nf = function([x], x * 1)\n", "t.tg", opts);
  EXPECT_EQ(p.default_function()->function.config().optimizer, "none");
}

TEST(Function, FloatXFromTheOptions) {
  FunctionOptions opts;
  opts.config = {{"floatX", "float64"}};
  TgProgram p = load_source("x = vector()\nc = shared(0.5)\nf = function([x], x + c)\n", "t.tg", opts);
  EXPECT_EQ(p.variables.at("x").dtype(), DType::Float64);
  EXPECT_EQ(p.variables.at("c").dtype(), DType::Float64);
}

TEST(Function, LoadFileReadsAndLabelsTheFile) {
  const std::string path = ::testing::TempDir() + "/lang_function_test.tg";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("x = vector()\nf = function([x], x + 1)\n", f);
    std::fclose(f);
  }
  TgProgram p = load_file(path);
  EXPECT_EQ(p.file, path);
  EXPECT_EQ(p.functions.size(), 1u);
  EXPECT_THROW(load_file(::testing::TempDir() + "/no_such_file.tg"), IOError);
}

}  // namespace
}  // namespace tgc::lang

namespace tgc::lang {
namespace {

// save() and load_function() in .tg: the loaded function is a function of the loading program,
// bound to its name, and continues from the saved values; errors point at the argument.
TEST(SaveInTg, AProgramLoadsWhatAnotherSaved) {
  const std::string path = ::testing::TempDir() + "/lang_save_test.tgf";
  TgProgram first = test::load("w = shared(ones(2), name='w')\n"
                               "step = function([], w.sum(), updates=[(w, w * 2)])\n"
                               "save(step, '" + path + "')\n");
  first.functions.at(0).function();  // after the save: the file keeps the values saved
  TgProgram second = test::load("step = load_function('" + path + "')\n");
  ASSERT_EQ(second.functions.size(), 1u);
  EXPECT_EQ(second.functions[0].name, "step");
  EXPECT_EQ(second.functions[0].function().at(0).to_vector<double>(), std::vector<double>{2});
  EXPECT_EQ(second.functions[0].function().at(0).to_vector<double>(), std::vector<double>{4});
  const SourceError e = test::load_error("f = load_function('" + path + ".missing')\n");
  EXPECT_NE(std::string(e.what()).find("test.tg:1:"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find(".missing"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace tgc::lang
