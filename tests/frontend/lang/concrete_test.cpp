// Concrete values computed at once (frontend/lang/concrete.cpp): an operation on concrete
// tensors only gives a concrete tensor equal to what the same expression compiled as a
// function gives, with the same dtype (weak literals included); elementwise chains stay
// pending; symbolic operands keep the graph; devices (cpu, and OpenCL where PoCL is here):
// creation there, results there, get(), mixing devices is an error naming both, shared() keeps
// a device value there; print shows values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/api/graphs_only.h"
#include "frontend/lang/evaluator.h"
#include "frontend/lang/parser.h"
#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using ::testing::HasSubstr;

// The value of `expr` after running `program`, whose names are in scope.
Value value_after(const std::string& program, const std::string& expr) {
  SourceText src("test.tg", program + "\n__value = " + expr + "\n");
  Module module = parse_module(src);
  Context ctx(src, FunctionOptions{}, LoadLimits{});
  TgProgram prog;
  ctx.program = &prog;
  Evaluator ev(ctx);
  ev.run(module);
  Expr name;
  name.kind = Expr::Kind::Name;
  name.text = "__value";
  return ev.eval(name);
}

const char* kOperands =
    "a = array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype='float32')\n"
    "b = arange(3)\n"
    "i = array([1, 0, 1])\n";

// The same expressions over shared variables holding the same values, compiled as a function:
// the oracle the values computed at once are held to.
Tensor compiled(const std::string& expr) {
  TgProgram p = test::load(
      "a = shared(array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype='float32'))\n"
      "b = shared(arange(3))\ni = shared(array([1, 0, 1]))\nf = function([], " + expr + ")\n");
  return p.functions.at(0).function()[0];
}

TEST(Concrete, OperationsOnValuesEqualTheirCompiledForm) {
  const char* exprs[] = {
      "a + b", "a * 2", "2 * a - b / 4", "-a", "a > 0", "a ** 2", "a // 2", "a % 2", "exp(a)", "maximum(a, 0)",
      "sum(a, axis=1)", "a.mean()", "max(a, axis=0)", "argmax(a, axis=1)", "dot(a, a.T)", "a @ a.T", "a[1]",
      "a[:, 1:]", "a[i]", "a[:, None]", "reshape(a, 3, 2)", "a.T", "flatten(a)", "softmax(a)",
      "concatenate([a, a], axis=1)", "stack([b, b])", "where(a > 0, a, b)", "a.astype('int32')",
      "cast(a, 'float64') + 0.5", "take(b, i)", "clip(a, 0, 2)", "zeros_like(a)",
      "set_subtensor(a[0, 1:], 9)", "inc_subtensor(a[1], a[0])", "logsumexp(a, axis=0)", "(a > 0) & (a < 3)"};
  for (const char* e : exprs) {
    SCOPED_TRACE(e);
    const Value v = value_after(kOperands, e);
    ASSERT_TRUE(v.is_tensor()) << v.describe();
    const Tensor want = compiled(e);
    const Tensor got = v.as_tensor();
    EXPECT_EQ(got.dtype(), want.dtype());
    EXPECT_EQ(got.shape(), want.shape());
    EXPECT_TRUE(tensors_allclose(got, want, 1e-6, 1e-6)) << got.str() << "\nwant\n" << want.str();
  }
}

TEST(Concrete, LiteralsStayWeakAndChainsStayPending) {
  const Value v = value_after(kOperands, "a * 2 + 0.5");
  ASSERT_TRUE(v.is_tensor());
  EXPECT_EQ(v.as_tensor().dtype(), DType::Float32);  // not float64: the literals take a's dtype
  EXPECT_TRUE(v.as_tensor().is_pending());           // an elementwise chain, recorded
  EXPECT_EQ(value_after(kOperands, "b * 3").as_tensor().dtype(), DType::Int64);
  EXPECT_FALSE(value_after(kOperands, "sum(a)").as_tensor().is_pending());
  // Every size of a value is known: squeeze() drops its size-1 axes as NumPy's does (a symbolic
  // squeeze drops the statically known ones).
  EXPECT_EQ(value_after(kOperands, "squeeze(a[:, :1])").as_tensor().shape(), (Shape{2}));
  // split gives a list of values, computed in one call.
  const Value parts = value_after(kOperands, "split(b, [1, 2])");
  ASSERT_TRUE(parts.is_sequence());
  ASSERT_EQ(parts.items().size(), 2u);
  EXPECT_EQ(parts.items()[1].as_tensor().to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
}

TEST(Concrete, ZeroDimensionalValuesAreNumbersWhereNumbersAreAsked) {
  // shape_of(a)[1] of a value is a 0-d int64 value: arange, full and the creation builtins read
  // it as the integer it holds (NumPy's int(x)), as they read a number; a float 0-d value as a float.
  EXPECT_EQ(value_after(kOperands, "arange(shape_of(a)[1])").as_tensor().to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(value_after(kOperands, "arange(1, shape_of(a)[1], 1)").as_tensor().to_vector<int64_t>(),
            (std::vector<int64_t>{1, 2}));
  const Tensor halves = value_after(kOperands, "arange(0, a[0, 0], 0.5)").as_tensor();  // stop 1.5 (float32 0-d)
  EXPECT_EQ(halves.dtype(), DType::Float64);
  EXPECT_EQ(halves.to_vector<double>(), (std::vector<double>{0, 0.5, 1.0}));
  // A value of more than one element is not a number: the error names the argument.
  try {
    value_after(kOperands, "arange(b)");
    FAIL() << "arange of a vector value ran";
  } catch (const SourceError& e) {
    EXPECT_THAT(e.what(), HasSubstr("must be a number"));
  }
}

TEST(Concrete, SymbolicOperandsKeepTheGraph) {
  EXPECT_TRUE(value_after(std::string(kOperands) + "x = vector('x')", "x + b").is_var());
  EXPECT_TRUE(value_after(std::string(kOperands) + "x = matrix('x')", "concatenate([a, x])").is_var());
  // Numbers alone name no device: they stay the constant expressions they were.
  EXPECT_TRUE(value_after("", "exp(2)").is_var());
  // Builtins that make graph objects take values as they always did.
  EXPECT_TRUE(value_after(kOperands, "shared(a * 2)").is_shared());
  EXPECT_TRUE(value_after(kOperands, "stop_gradient(a)").is_var());
  // A value in a symbolic expression is a constant of the graph.
  TgProgram p = test::load(std::string(kOperands) + "x = vector('x', dtype='float32')\nf = function([x], x * a[0])\n");
  EXPECT_EQ(p.functions.at(0).function({Tensor::from_vector<float>({1, 2, 3})})[0].to_vector<float>(),
            (std::vector<float>{1.5f, -4.0f, 9.0f}));
}

// tgc show loads a program for its graphs alone: its values are still computed (and print).
TEST(Concrete, ValuesAreComputedWhenAProgramIsLoadedForItsGraphs) {
  GraphsOnlyScope graphs_only;
  ::testing::internal::CaptureStdout();
  TgProgram p = test::load("a = ones(3, dtype='float32') * 2 + arange(3.0)\nprint(a)\nx = vector()\nf = function([x], x * a)\n");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "[2. 3. 4.]\n");
  EXPECT_EQ(p.functions.size(), 1u);
}

TEST(Concrete, ErrorsPointAtTheOperation) {
  SourceError e = test::load_error("a = ones(3)\nb = ones(2)\nc = a + b\n");
  EXPECT_EQ(e.loc().line, 3);
  EXPECT_EQ(e.loc().col, 7);
  EXPECT_THAT(e.message(), HasSubstr("(3,)"));
  e = test::load_error("a = ones((2, 3))\nc = dot(a, a)\n");
  EXPECT_EQ(e.loc().line, 2);
  e = test::load_error("a = zeros(2, device='tpu')\n");
  EXPECT_EQ(e.loc().col, 14);
  EXPECT_THAT(e.message(), HasSubstr("'tpu'"));
  e = test::load_error("a = zeros(2, device=3)\n");
  EXPECT_THAT(e.message(), HasSubstr("must be a device name"));
  e = test::load_error("x = vector()\ny = x.get()\n");
  EXPECT_THAT(e.message(), HasSubstr("needs a value"));
}

TEST(Concrete, PrintShowsValues) {
  ::testing::internal::CaptureStdout();
  test::load("a = ones(2, dtype='float32') * 3\nprint(a, 1, 2.0, 'text', [1, true], a.dtype)\n");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "[3. 3.] 1 2.0 text [1, True] float32\n");
}

// The same program on each device: creation there, results there, the value brought back.
class ConcreteOnDevice : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    try {
      device(GetParam());
    } catch (const ConfigError& e) {
      GTEST_SKIP() << "no " << GetParam() << " device here: " << e.what();
    }
  }
  std::string program() const {
    return "d = '" + GetParam() + "'\na = ones((2, 3), dtype='float32', device=d)\nb = to_device(arange(3.0, dtype='float32'), d)\n";
  }
};

TEST_P(ConcreteOnDevice, ResultsStayOnTheOperandsDevice) {
  Device& dev = device(GetParam());
  const Value c = value_after(program(), "2 * a + b");  // PyCUDA's (2 * a_gpu), mxnet's a + b
  ASSERT_TRUE(c.is_tensor());
  EXPECT_EQ(&c.as_tensor().device(), &dev);
  const Value host = value_after(program(), "(2 * a + b).get()");
  EXPECT_TRUE(host.as_tensor().on_host());
  EXPECT_EQ(host.as_tensor().to_vector<float>(), (std::vector<float>{2, 3, 4, 2, 3, 4}));
  EXPECT_EQ(value_after(program(), "a.device").as_string(), device_name(dev));
  EXPECT_EQ(value_after(program(), "a.to('cpu').device").as_string(), "cpu");
  // A device value kept by a shared variable stays on its device.
  const Value w = value_after(program(), "shared(a * 2).get_value(borrow=true)");
  EXPECT_EQ(&w.as_tensor().device(), &dev);
  EXPECT_TRUE(value_after(program(), "shared(a).get_value()").as_tensor().on_host());  // Theano's copy
}

TEST_P(ConcreteOnDevice, MixingDevicesIsAnErrorNamingBoth) {
  if (GetParam() == "cpu") GTEST_SKIP() << "one device";
  const SourceError e = test::load_error(program() + "c = a + ones(3)\n");
  EXPECT_EQ(e.loc().line, 4);
  EXPECT_EQ(e.loc().col, 9);  // the host operand
  EXPECT_THAT(e.message(), HasSubstr(device_name(device(GetParam()))));
  EXPECT_THAT(e.message(), HasSubstr("cpu"));
  EXPECT_THAT(e.hint(), HasSubstr("to_device"));
}

INSTANTIATE_TEST_SUITE_P(Devices, ConcreteOnDevice, ::testing::Values("cpu", "opencl"));

}  // namespace
}  // namespace tgc::lang
