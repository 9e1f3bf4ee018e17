// The .tg evaluator: constructors and names, literals and number folding, operators on
// tensors, methods and attributes, indexing, tuple assignment, generators and values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using test::load;

// Runs the only function of `source` on `args` and returns its outputs.
std::vector<Tensor> run(const std::string& source, const std::vector<Tensor>& args = {}) {
  TgProgram p = load(source);
  EXPECT_NE(p.default_function(), nullptr);
  return p.default_function()->function(args);
}

TEST(Evaluator, ConstructorsTakeTheAssignedNameAndFloatX) {
  TgProgram p = load("x = matrix()\ny = vector('yy', dtype='int64')\nz = tensor('float64', 3)\ns = scalar(dtype=floatX)\n");
  EXPECT_EQ(p.variables.at("x").name(), "x");
  EXPECT_EQ(p.variables.at("x").type().str(), Var(matrix("q", floatX())).type().str());
  EXPECT_EQ(p.variables.at("y").name(), "yy");
  EXPECT_EQ(p.variables.at("y").dtype(), DType::Int64);
  EXPECT_EQ(p.variables.at("z").ndim(), 3);
  EXPECT_EQ(p.variables.at("z").dtype(), DType::Float64);
  EXPECT_EQ(p.variables.at("s").dtype(), floatX());
}

TEST(Evaluator, TheanoTypedConstructors) {
  TgProgram p = load("x = dmatrix('x')\ny = lvector()\nz = fscalar()\nw = itensor3()\n");
  EXPECT_EQ(p.variables.at("x").dtype(), DType::Float64);
  EXPECT_EQ(p.variables.at("y").dtype(), DType::Int64);
  EXPECT_EQ(p.variables.at("y").name(), "y");
  EXPECT_EQ(p.variables.at("z").ndim(), 0);
  EXPECT_EQ(p.variables.at("w").dtype(), DType::Int32);
}

TEST(Evaluator, TensorWithStaticShape) {
  TgProgram p = load("x = tensor(shape=(None, 784), dtype='float32')\n");
  EXPECT_EQ(p.variables.at("x").type().shape, (std::vector<int64_t>{kUnknownDim, 784}));
}

TEST(Evaluator, ResultsAreNamedAfterTheirBinding) {
  TgProgram p = load("x = vector()\np_1 = 1 / (1 + exp(-x))\nalias = x\n");
  EXPECT_EQ(p.variables.at("p_1").name(), "p_1");
  EXPECT_EQ(p.variables.at("alias").name(), "x");  // an alias does not rename
}

TEST(Evaluator, NumbersFoldLikePython) {
  auto out = run("f = function([], [shared(10 * 30 * 768, name='n') + 0, shared(7 // -2) + 0, shared(-7 % 3) + 0,"
                 " shared(2 ** 10) + 0, shared(2 ** -1) + 0, shared(-2**2) + 0])\n");
  EXPECT_EQ(out[0].item<int64_t>(), 230400);
  EXPECT_EQ(out[1].item<int64_t>(), -4);
  EXPECT_EQ(out[2].item<int64_t>(), 2);
  EXPECT_EQ(out[3].item<int64_t>(), 1024);
  EXPECT_DOUBLE_EQ(out[4].item<double>(), 0.5);
  EXPECT_EQ(out[5].item<int64_t>(), -4);
}

TEST(Evaluator, ArithmeticOnTensorsKeepsFloat32WithLiterals) {
  auto out = run("x = vector()\nf = function([x], x * 2 + 1 - -x**2)\n", {Tensor::from_vector<float>({1, 2, 3})});
  EXPECT_EQ(out[0].dtype(), DType::Float32);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{4, 9, 16}));
}

TEST(Evaluator, ComparisonsAndLogic) {
  auto out = run("x = vector()\nf = function([x], [x == 2, (x > 1) & (x < 3), ~(x > 1) | (x == 3), x != 1])\n",
                 {Tensor::from_vector<float>({1, 2, 3})});
  EXPECT_EQ(out[0].to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(out[1].to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(out[2].to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(out[3].to_vector<bool>(), (std::vector<bool>{false, true, true}));
}

TEST(Evaluator, MatmulOperatorAndDot) {
  auto out = run("a = matrix()\nb = matrix()\nf = function([a, b], [a @ b, dot(a, b), a.dot(b)])\n",
                 {Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}), Tensor::from_vector<float>({1, 0, 0, 1}, {2, 2})});
  for (const Tensor& t : out) EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Evaluator, ReductionsWithKeywordsAndMethods) {
  auto out = run("x = matrix()\nf = function([x], [sum(x, axis=1, keepdims=true), x.sum(axis=0), x.mean(), "
                 "max(x, 1), x.argmax(axis=1), sum(x, axis=[0, 1])])\n",
                 {Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{6, 15}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{5, 7, 9}));
  EXPECT_FLOAT_EQ(out[2].item<float>(), 3.5f);
  EXPECT_EQ(out[3].to_vector<float>(), (std::vector<float>{3, 6}));
  EXPECT_EQ(out[4].to_vector<int64_t>(), (std::vector<int64_t>{2, 2}));
  EXPECT_FLOAT_EQ(out[5].item<float>(), 21);
}

TEST(Evaluator, ShapeMethodsAndAttributes) {
  auto out = run("x = matrix()\nf = function([x], [x.T, x.dimshuffle(1, 0), x.dimshuffle('x', 0, 1), "
                 "x.reshape(3, 2), reshape(x, (-1,)), x.flatten(), transpose(x)])\n",
                 {Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(tensors_equal(out[1], out[0]));
  EXPECT_EQ(out[2].shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(out[3].shape(), (Shape{3, 2}));
  EXPECT_EQ(out[4].shape(), (Shape{6}));
  EXPECT_EQ(out[5].shape(), (Shape{6}));
  EXPECT_TRUE(tensors_equal(out[6], out[0]));
}

TEST(Evaluator, NdimDtypeAndShapeAttributesAreValues) {
  TgProgram p = load("x = matrix()\nv = zeros(3, 4)\nn = x.ndim\nd = v.dtype\ns = v.shape\n"
                     "f = function([], shared(zeros(s)) + n)\n");
  EXPECT_EQ(p.default_function()->function()[0].shape(), (Shape{3, 4}));
}

TEST(Evaluator, IndexingAndSlicing) {
  auto out = run("x = matrix()\nf = function([x], [x[1:, ::2], x[:, None], x[0], x[-1, 1], x[:, 1:-1], x[[0, 0]]])\n",
                 {Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  EXPECT_EQ(out[0].shape(), (Shape{1, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{4, 6}));
  EXPECT_EQ(out[1].shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_FLOAT_EQ(out[3].item<float>(), 5);
  EXPECT_EQ(out[4].to_vector<float>(), (std::vector<float>{2, 5}));
  EXPECT_EQ(out[5].shape(), (Shape{2, 3}));
}

TEST(Evaluator, IndexingWithAnIntegerTensor) {
  auto out = run("x = vector()\ni = lvector()\nf = function([x, i], x[i])\n",
                 {Tensor::from_vector<float>({10, 20, 30}), Tensor::from_vector<int64_t>({2, 0})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{30, 10}));
}

TEST(Evaluator, SetAndIncSubtensor) {
  auto out = run("x = vector()\nf = function([x], [set_subtensor(x[1:], 0), inc_subtensor(x[0], 5)])\n",
                 {Tensor::from_vector<float>({1, 2, 3})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{6, 2, 3}));
}

TEST(Evaluator, TupleAssignmentAndListIndexing) {
  TgProgram p = load("a, b = vector(), matrix()\n(c, d) = [a, b]\ne = [a, b][-1]\nx, (y, z) = 1, (a, b)\n");
  EXPECT_EQ(p.variables.at("a").name(), "a");
  EXPECT_EQ(p.variables.at("b").ndim(), 2);
  EXPECT_EQ(p.variables.at("c").ptr(), p.variables.at("a").ptr());
  EXPECT_EQ(p.variables.at("e").ptr(), p.variables.at("b").ptr());
  EXPECT_EQ(p.variables.at("z").ptr(), p.variables.at("b").ptr());
  EXPECT_EQ(p.variables.count("x"), 0u);  // a number is not a variable
}

TEST(Evaluator, JoinAndSplit) {
  auto out = run("x = vector()\nlo, hi = split(x, [1, 2])\nf = function([x], [concatenate([x, x]), stack([x, x], axis=1), hi])\n",
                 {Tensor::from_vector<float>({1, 2, 3})});
  EXPECT_EQ(out[0].shape(), (Shape{6}));
  EXPECT_EQ(out[1].shape(), (Shape{3, 2}));
  EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{2, 3}));
}

TEST(Evaluator, MathBuiltinsWithNumPyAndTheanoNames) {
  auto out = run("x = vector()\nf = function([x], [switch(x > 1, x, 0), where(x > 1, x, 0), clip(x, 1.5, 2.5), "
                 "x.clip(1.5, 2.5), cast(x, 'int32'), x.astype('int64'), maximum(x, 2), power(x, 2), sqr(x)])\n",
                 {Tensor::from_vector<float>({1, 2, 3})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 2, 3}));
  EXPECT_TRUE(tensors_equal(out[0], out[1]));
  EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{1.5, 2, 2.5}));
  EXPECT_TRUE(tensors_equal(out[2], out[3]));
  EXPECT_EQ(out[4].dtype(), DType::Int32);
  EXPECT_EQ(out[5].dtype(), DType::Int64);
  EXPECT_EQ(out[6].to_vector<float>(), (std::vector<float>{2, 2, 3}));
  EXPECT_EQ(out[7].to_vector<float>(), (std::vector<float>{1, 4, 9}));
  EXPECT_TRUE(tensors_equal(out[7], out[8]));
}

TEST(Evaluator, SoftmaxAndNeuralNetFunctions) {
  auto out = run("x = matrix()\nf = function([x], [softmax(x), log_softmax(x, axis=0), sigmoid(x), softplus(x)])\n",
                 {Tensor::from_vector<float>({0, 0, 0, 0}, {2, 2})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0.5, 0.5, 0.5, 0.5}));
  EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{0.5, 0.5, 0.5, 0.5}));
}

TEST(Evaluator, GeneratorsMatchNumPy) {
  // numpy.random.RandomState(1).randn(2) = [1.62434536, -0.61175641];
  // RandomState(0).randint(0, 10, size=3) = [5, 0, 3]; RandomState(0).uniform(2, 3) = 2.5488135.
  auto out = run("f = function([], [shared(randn(2, seed=1)), shared(randint(0, 10, size=3, seed=0)), "
                 "shared(uniform(2, 3, seed=0)), shared(normal(0, 1, size=(2,), seed=1))])\n");
  EXPECT_EQ(out[0].dtype(), DType::Float64);
  EXPECT_NEAR(out[0].to_vector<double>()[0], 1.62434536, 1e-8);
  EXPECT_NEAR(out[0].to_vector<double>()[1], -0.61175641, 1e-8);
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{5, 0, 3}));
  EXPECT_NEAR(out[2].item<double>(), 2.5488135, 1e-7);
  EXPECT_TRUE(tensors_equal(out[3], out[0]));
}

TEST(Evaluator, RandomStateContinuesOneStream) {
  // The tutorial's data: one RandomState(22) drawing randn, then randint, then randn.
  TgProgram p = load("rng = RandomState(22)\nx = shared(rng.randn(4, 3))\ny = shared(rng.randint(0, 2, size=4))\n"
                     "w = shared(rng.randn(3))\nf = function([], [x, y, w])\n");
  auto out = p.default_function()->function();
  RandomState ref(22);
  EXPECT_TRUE(tensors_equal(out[0], ref.randn({4, 3})));
  EXPECT_TRUE(tensors_equal(out[1], ref.randint(0, 2, {4})));
  EXPECT_TRUE(tensors_equal(out[2], ref.randn({3})));
}

TEST(Evaluator, ValueBuilders) {
  auto out = run("f = function([], [shared(zeros(2, 3)), shared(ones((2,), dtype='int32')), shared(full((2,), 7)), "
                 "shared(arange(5)), shared(arange(0, 1, 0.25)), shared(eye(2, k=1)), shared(array([[1, 2], [3, 4]])), "
                 "shared(asarray(rand(3, seed=22), floatX)), shared(array([1.5, 2]))])\n");
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(out[0].dtype(), DType::Float64);
  EXPECT_EQ(out[1].dtype(), DType::Int32);
  EXPECT_EQ(out[2].to_vector<int64_t>(), (std::vector<int64_t>{7, 7}));
  EXPECT_EQ(out[3].to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(out[4].to_vector<double>(), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(out[5].to_vector<double>(), (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(out[6].dtype(), DType::Int64);
  EXPECT_EQ(out[6].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[7].dtype(), floatX());
  EXPECT_EQ(out[8].dtype(), floatX());
}

TEST(Evaluator, ExpressionsOfValuesAreEvaluatedForShared) {
  auto out = run("w = shared(ones(3) * 2 + arange(3), name='w')\nf = function([], w)\n");
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{2, 3, 4}));
}

TEST(Evaluator, LoadReadsNpyRelativeToTheFile) {
  const std::string dir = ::testing::TempDir();
  write_npy(dir + "/lang_load_test.npy", Tensor::from_vector<float>({1, 2, 3}));
  TgProgram p = load_source("w = shared(load('lang_load_test.npy'))\nf = function([], w)\n", dir + "/prog.tg");
  EXPECT_EQ(p.default_function()->function()[0].to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST(Evaluator, PredefinedNames) {
  auto out = run("x = vector()\nf = function([x], [x * pi, x[:, newaxis]])\n", {Tensor::from_vector<float>({1})});
  EXPECT_FLOAT_EQ(out[0].item<float>(), 3.14159265f);
  EXPECT_EQ(out[1].shape(), (Shape{1, 1}));
}

TEST(Evaluator, CommentsSemicolonsAndContinuationLines) {
  TgProgram p = load("# a comment\nx = vector(); y = x + 1  # trailing\nf = function(\n  [x],\n  y,\n)\n");
  EXPECT_EQ(p.functions.size(), 1u);
}

TEST(Evaluator, ListConcatenationAndDictUpdates) {
  TgProgram p = load("w = shared(zeros(2), name='w')\nb = shared(0.0)\nf = function([], [w] + [b], updates={w: w + 1, b: b - 1})\n");
  p.default_function()->function();
  auto out = p.default_function()->function();
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{1, 1}));
  EXPECT_FLOAT_EQ(static_cast<float>(out[1].item<double>()), -1);
}

TEST(Evaluator, GetValueOfShared) {
  auto out = run("w = shared(arange(3))\nw0 = w.get_value()\nf = function([], shared(w0 * 2))\n");
  EXPECT_EQ(out[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 2, 4}));
}

TEST(Evaluator, EmptyFileIsAnEmptyProgram) {
  TgProgram p = load("");
  EXPECT_TRUE(p.functions.empty());
  EXPECT_EQ(p.default_function(), nullptr);
  EXPECT_TRUE(load("# nothing but a comment\n\n").functions.empty());
}

TEST(EvalValue, GeneratorsLiteralsAndArrays) {
  Tensor r = eval_value("randn(400, 784, seed=1)", "--input x");
  EXPECT_EQ(r.shape(), (Shape{400, 784}));
  EXPECT_TRUE(tensors_equal(r, RandomState(1).randn({400, 784})));
  EXPECT_EQ(eval_value("zeros(3, 4)", "--input x").shape(), (Shape{3, 4}));
  Tensor s = eval_value("2.5", "--input x");
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_DOUBLE_EQ(s.at({}), 2.5);
  EXPECT_EQ(eval_value("[[1, 2], [3, 4]]", "--input x").shape(), (Shape{2, 2}));
  EXPECT_EQ(eval_value("ones(3) * 2", "--input x").to_vector<double>(), (std::vector<double>{2, 2, 2}));
}

TEST(EvalValue, SymbolicExpressionsAreErrors) {
  try {
    eval_value("matrix()", "--input x");
    FAIL() << "expected an error";
  } catch (const SourceError& e) {
    EXPECT_EQ(e.loc().file, "--input x");
    EXPECT_THAT(e.message(), ::testing::HasSubstr("must be a value"));
  }
}

}  // namespace
}  // namespace tgc::lang

namespace tgc::lang {
namespace {

// Comprehensions build lists as Python's do: several for clauses nest left to right, if
// clauses filter, tuples unpack, and {k: v for ...} is the list of pairs updates= takes.
TEST(Comprehensions, BuildListsAndUpdatesAsPythonDoes) {
  const Tensor x = Tensor::from_vector<double>({1, 2});
  std::vector<Tensor> out =
      run("x = dvector()\nf = function([x], [x * i + j for i in range(1, 4) if i != 2 for j in [0, 10]])\n", {x});
  ASSERT_EQ(out.size(), 4u);  // i = 1, 3; j = 0, 10
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{1, 2}));
  EXPECT_EQ(out[1].to_vector<double>(), (std::vector<double>{11, 12}));
  EXPECT_EQ(out[2].to_vector<double>(), (std::vector<double>{3, 6}));
  EXPECT_EQ(out[3].to_vector<double>(), (std::vector<double>{13, 16}));

  // A loop variable does not leak, and shadows a name only while the comprehension runs.
  out = run("x = dvector()\ni = 100\nys = [x + i for i in [1]]\nf = function([x], [ys[0], x + i])\n", {x});
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{2, 3}));
  EXPECT_EQ(out[1].to_vector<double>(), (std::vector<double>{101, 102}));

  // SGD over a parameter list: the updates as a dict comprehension over zip.
  TgProgram p = load(
      "w = shared(array([1.0, 2.0]), name='w')\nb = shared(array([3.0]), name='b')\nparams = [w, b]\n"
      "cost = sum([sum(q ** 2) for q in params][0]) + sum(b ** 2)\n"
      "grads = grad(cost, params)\n"
      "f = function([], cost, updates={q: q - 0.25 * g for q, g in zip(params, grads)})\n");
  p.default_function()->function({});
  EXPECT_EQ(p.variables.at("w").ptr()->storage()->current().to_vector<double>(), (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(p.variables.at("b").ptr()->storage()->current().to_vector<double>(), (std::vector<double>{1.5}));
}

// A list holding tensors, where a tensor is wanted, is its items stacked (Theano's
// as_tensor_variable of a list): a penalty over a parameter list is one sum.
TEST(Comprehensions, AListOfTensorsIsTheirStack) {
  const std::vector<Tensor> out = run(
      "x = fvector()\nws = [shared(ones(3), name='w1'), shared(ones(2) * 2, name='w2')]\n"
      "f = function([x], [sum([sum(w ** 2) for w in ws]), sum([x, x * 2]), mean([sum(x), 3])])\n",
      {Tensor::from_vector<float>({1, 2})});
  EXPECT_EQ(out[0].item<double>(), 11.0);
  EXPECT_EQ(out[1].astype(DType::Float64).item<double>(), 9.0);
  EXPECT_EQ(out[2].astype(DType::Float64).item<double>(), 3.0);
  EXPECT_THAT(test::load_error("x = vector()\ny = sum([x, 1.5])\n").message(), ::testing::HasSubstr("same shape"));
}

// Lists and tuples slice as Python's: negative bounds from the end, bounds clipped, steps,
// a tuple stays a tuple; nested loop variables unpack enumerate(zip(...)).
TEST(Comprehensions, ListsSliceAndLoopVariablesNest) {
  auto values = [](const std::string& list_expr) {
    TgProgram p = load("l = " + list_expr + "\nf = function([], [asarray(v, 'float64') for v in l])\n");
    std::vector<double> out;
    for (const Tensor& t : p.default_function()->function({})) out.push_back(t.item<double>());
    return out;
  };
  EXPECT_EQ(values("[1, 2, 3, 4][1:]"), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(values("[1, 2, 3, 4][:-1]"), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values("[1, 2, 3, 4][::-2]"), (std::vector<double>{4, 2}));
  EXPECT_EQ(values("(1, 2, 3, 4)[-10:2]"), (std::vector<double>{1, 2}));
  EXPECT_EQ(values("[i * 10 + a + b for i, (a, b) in enumerate(zip([1, 2], [3, 4]))]"), (std::vector<double>{4, 16}));
  EXPECT_THAT(test::load_error("l = [1, 2][::0]\n").message(), ::testing::HasSubstr("step must not be zero"));
  EXPECT_THAT(test::load_error("l = [1, 2][0.5:]\n").message(), ::testing::HasSubstr("bounds are integers"));
}

}  // namespace
}  // namespace tgc::lang
