// Eager operations on tensors (<tgc/eager.h>) on the host: values against NumPy's rules,
// lazy fusion (pending tensors, one compiled call per chain, eager_fusion=off), the compiled
// calls' cache, creation, device names and the errors. The GPU runs of the same code are in
// tests/backends/cuda/eager_gpu_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <tgc/tgc.h>

#include "frontend/api/eager/eager_run.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

using test::catch_error;

Tensor vec(std::vector<float> v) { return Tensor::from_vector(v); }

// Sets one global config key for a test's scope.
class ConfigScope {
 public:
  ConfigScope(const std::string& key, const std::string& value) : key_(key), old_(global_config().get(key)) {
    global_config().set(key, value);
  }
  ~ConfigScope() { global_config().set(key_, old_); }

 private:
  std::string key_, old_;
};

TEST(Eager, ArithmeticGivesNumPysValues) {
  const Tensor a = vec({1, 2, 3, 4}), b = vec({10, 20, 30, 40});
  EXPECT_EQ((a + b).to_vector<float>(), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ((2 * a - b / 10).to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ((a * a).to_vector<float>(), (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ((-a).to_vector<float>(), (std::vector<float>{-1, -2, -3, -4}));
  EXPECT_EQ(maximum(a - 2.5, 0).to_vector<float>(), (std::vector<float>{0, 0, 0.5f, 1.5f}));
  const Tensor e = exp(vec({0, 1}));
  EXPECT_NEAR(e.to_vector<float>()[1], 2.7182817f, 1e-6);
}

TEST(Eager, BroadcastingAndPromotionFollowTheGraphsRules) {
  const Tensor col = Tensor::from_vector<float>({1, 2, 3}, {3, 1});
  const Tensor row = Tensor::from_vector<float>({10, 20}, {1, 2});
  const Tensor sum = col + row;
  EXPECT_EQ(sum.shape(), (Shape{3, 2}));
  EXPECT_EQ(sum.to_vector<float>(), (std::vector<float>{11, 21, 12, 22, 13, 23}));
  // int32 + float64 is float64; a literal keeps the tensor's dtype.
  const Tensor i = Tensor::from_vector<int32_t>({1, 2});
  EXPECT_EQ((i + Tensor::from_vector<double>({0.5, 0.5})).dtype(), DType::Float64);
  EXPECT_EQ((i * 3).dtype(), DType::Int32);
  EXPECT_EQ((vec({1, 5}) < 2).dtype(), DType::Bool);
  // A shape mismatch is an error at the operation, as in NumPy, naming both shapes.
  auto err = catch_error<ShapeError>([&] { (void)(vec({1, 2, 3}) + vec({1, 2})); });
  EXPECT_NE(std::string(err.what()).find("(3,)"), std::string::npos) << err.what();
}

TEST(Eager, ElementwiseChainsArePendingUntilRead) {
  const Tensor a = vec({1, 2, 3}), b = vec({4, 5, 6});
  const Tensor c = a * 2 + b * 3 - a * b;
  EXPECT_TRUE(c.is_pending());
  EXPECT_EQ(c.shape(), (Shape{3}));  // known without running
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(c.device().kind(), DeviceKind::Host);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{10, 9, 6}));
  EXPECT_FALSE(c.is_pending());
  // A copy of the handle made before the read sees the same value.
  const Tensor d = a + 1;
  const Tensor d2 = d;
  d.eval();
  EXPECT_FALSE(d2.is_pending());
  EXPECT_EQ(d2.to_vector<float>(), (std::vector<float>{2, 3, 4}));
}

// A tensor read both through a pending operand and directly (where(a > 2, a, -a)) is one
// leaf, whose shape the recorded chain knows (it was read as an unknown variable before).
TEST(Eager, ATensorReadThroughAPendingOperandAndDirectlyIsOneLeaf) {
  const Tensor a = vec({1, 2, 3, 4});
  const Tensor r = where(a > 2, a, -a);
  EXPECT_TRUE(r.is_pending());
  EXPECT_EQ(r.shape(), (Shape{4}));
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{-1, -2, 3, 4}));
  EXPECT_EQ(((a * 2) + a).to_vector<float>(), (std::vector<float>{3, 6, 9, 12}));
}

TEST(Eager, AChainRunsAsOneCompiledCallAndIsCachedByStructure) {
  const Tensor a = vec({1, 2, 3}), b = vec({4, 5, 6});
  (a * 2.5 + b * 3.5 - a * b).eval();
  const size_t after_first = eager_impl::compiled_calls_cached();
  // The same structure over other tensors (and sizes) compiles nothing new.
  const Tensor x = vec({1, 1, 1, 1, 1}), y = vec({2, 2, 2, 2, 2});
  EXPECT_EQ((x * 2.5 + y * 3.5 - x * y).to_vector<float>(), (std::vector<float>(5, 2.5f + 7 - 2)));
  EXPECT_EQ(eager_impl::compiled_calls_cached(), after_first);
  // Another literal is another program.
  (x * 4.5 + y * 3.5 - x * y).eval();
  EXPECT_EQ(eager_impl::compiled_calls_cached(), after_first + 1);
}

TEST(Eager, FusionOffRunsEachOperationAtOnce) {
  ConfigScope off("eager_fusion", "off");
  const Tensor a = vec({1, 2, 3});
  const Tensor c = a * 2;
  EXPECT_FALSE(c.is_pending());
  EXPECT_EQ((c + a).to_vector<float>(), (std::vector<float>{3, 6, 9}));
}

TEST(Eager, OperationsRunAtOnceAreFoundBySignature) {
  // With fusion off every operation runs at once through the signature map
  // (frontend/api/eager/eager_known_op.h): one compiled call per op, dtypes, ranks and size-1
  // dims, serving every size.
  ConfigScope off("eager_fusion", "off");
  EXPECT_EQ((vec({1, 2, 3}) + vec({1, 1, 1})).to_vector<float>(), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ((vec({1, 2, 3, 4, 5}) + vec({1, 1, 1, 1, 1})).to_vector<float>(), (std::vector<float>{2, 3, 4, 5, 6}));
  const Tensor col = Tensor::from_vector<float>({1, 2}, {2, 1}), row = Tensor::from_vector<float>({10, 20, 30}, {1, 3});
  EXPECT_EQ((col + row).shape(), (Shape{2, 3}));
  const Tensor m = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ((m + m.transpose().transpose()).to_vector<float>(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  const Tensor a = vec({3});
  EXPECT_EQ((a * a).item<float>(), 9.0f);  // one tensor twice: one leaf, another graph
  EXPECT_EQ((a * 2.0).item<float>(), 6.0f);
  EXPECT_EQ((a * 3.0).item<float>(), 9.0f);  // another literal, another signature
  EXPECT_EQ(cast(a, DType::Int32).dtype(), DType::Int32);
  EXPECT_EQ(cast(a, DType::Float64).dtype(), DType::Float64);
  EXPECT_EQ(sum(m, 0).to_vector<float>(), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(sum(m, 1).to_vector<float>(), (std::vector<float>{6, 15}));
  EXPECT_EQ(sum(m, 1, true).shape(), (Shape{2, 1}));
  EXPECT_THROW((void)(vec({1, 2, 3}) + vec({1, 2})), Error);  // at run time here, still an error
}

TEST(Eager, LongChainsRunBeforeTheyGrowWithoutBound) {
  Tensor x = vec({0});
  for (int i = 0; i < 200; ++i) x = x + 1;
  EXPECT_EQ(x.item<float>(), 200.0f);
}

TEST(Eager, ReductionsProductsAndShapesRunAtOnceWithTheChainFused) {
  const Tensor m = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor s = sum(m * 2, 1);
  EXPECT_FALSE(s.is_pending());
  EXPECT_EQ(s.to_vector<float>(), (std::vector<float>{12, 30}));
  EXPECT_EQ(mean(m).item<float>(), 3.5f);
  EXPECT_EQ(max(m, 0).to_vector<float>(), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(argmax(m, 1).to_vector<int64_t>(), (std::vector<int64_t>{2, 2}));
  const Tensor p = dot(m, m.transpose());
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{14, 32, 32, 77}));
  EXPECT_EQ(flatten(m).shape(), (Shape{6}));
  EXPECT_EQ(index(m, {1, slice(1, {})}).to_vector<float>(), (std::vector<float>{5, 6}));
  EXPECT_EQ(take(vec({5, 6, 7}), Tensor::from_vector<int64_t>({2, 0})).to_vector<float>(),
            (std::vector<float>{7, 5}));
  EXPECT_EQ(concatenate({vec({1}), vec({2, 3})}).to_vector<float>(), (std::vector<float>{1, 2, 3}));
  const Tensor sm = softmax(Tensor::from_vector<float>({0, 0}, {1, 2}));
  EXPECT_EQ(sm.to_vector<float>(), (std::vector<float>{0.5f, 0.5f}));
}

TEST(Eager, AnyGraphOfTheVocabularyThroughEager) {
  const Tensor x = Tensor::from_vector<double>({1, 2, 3, 4}, {2, 2});
  const Tensor y = eager([](const std::vector<Var>& v) { return log_softmax(v[0]).sum(); }, {x});
  EXPECT_NEAR(y.item<double>(), 2 * (std::log(std::exp(-1.0) / (1 + std::exp(-1.0))) +
                                     std::log(1 / (1 + std::exp(-1.0)))),
              1e-12);
  const std::vector<Tensor> two =
      eager_multi([](const std::vector<Var>& v) { return std::vector<Var>{v[0].max(), v[0].min()}; }, {x});
  EXPECT_EQ(two.at(0).item<double>(), 4);
  EXPECT_EQ(two.at(1).item<double>(), 1);
}

TEST(Eager, ResultsAreArgumentsOfCompiledFunctions) {
  const Var v = vector("v");
  Function f = function({v}, {v * 10});
  const Tensor pending = vec({1, 2}) + 1;
  EXPECT_EQ(f(pending).at(0).to_vector<float>(), (std::vector<float>{20, 30}));
  // A function's result takes part in eager operations like any tensor.
  EXPECT_EQ((f(vec({1})).at(0) + 1).item<float>(), 11.0f);
}

TEST(Eager, PendingValuesOfSharedVariablesAreComputedWhenSet) {
  const Tensor pending = vec({1, 2}) * 3;
  ASSERT_TRUE(pending.is_pending());
  Shared s = shared(pending, "s", /*borrow=*/true);
  Function f = function({}, {s + 1});
  EXPECT_EQ(f().at(0).to_vector<float>(), (std::vector<float>{4, 7}));
  s.set_value(vec({5}) * 2);
  EXPECT_EQ(f().at(0).to_vector<float>(), (std::vector<float>{11}));
}

TEST(Eager, CreationOnTheHost) {
  EXPECT_EQ(nd::zeros({2, 2}).to_vector<float>(), (std::vector<float>(4, 0)));
  EXPECT_EQ(nd::ones({3}, DType::Int64).to_vector<int64_t>(), (std::vector<int64_t>(3, 1)));
  EXPECT_EQ(nd::full({2}, 7, DType::Float64).to_vector<double>(), (std::vector<double>{7, 7}));
  EXPECT_EQ(nd::arange(0, 4).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(nd::empty({5}).shape(), (Shape{5}));
  EXPECT_EQ(nd::array(vec({1, 2}), host_device()).to_vector<float>(), (std::vector<float>{1, 2}));
}

TEST(Eager, RandomValuesAreRandomStreamsNumbers) {
  nd::seed(7);
  const Tensor u = nd::uniform({1000});
  const Tensor n = nd::normal({3, 5}, 2, 0.5, DType::Float64);
  // The first draw after seed(s) is RandomStreams(s)'s first draw: the same Philox stream.
  RandomStreams rng(7);
  Function f = function({}, {rng.uniform({1000})}, {}, {.config = {{"device", "cpu"}}});
  EXPECT_TRUE(tensors_equal(u, f().at(0)));
  EXPECT_EQ(n.shape(), (Shape{3, 5}));
  EXPECT_EQ(n.dtype(), DType::Float64);
  // The stream advances: the next draw differs; seeding again repeats the sequence.
  EXPECT_FALSE(tensors_equal(nd::uniform({1000}), u));
  nd::seed(7);
  EXPECT_TRUE(tensors_equal(nd::uniform({1000}), u));
  const Tensor scaled = nd::uniform({4}, 10, 12);
  for (float x : scaled.to_vector<float>()) EXPECT_TRUE(x >= 10 && x < 12) << x;
}

TEST(Eager, DevicesByName) {
  EXPECT_EQ(&device("cpu"), &host_device());
  EXPECT_EQ(device_name(host_device()), "cpu");
  auto bad = catch_error<ConfigError>([] { device("cuda:x"); });
  EXPECT_NE(std::string(bad.what()).find("names no CUDA device"), std::string::npos) << bad.what();
  auto unknown = catch_error<ConfigError>([] { device("tpu"); });
  EXPECT_NE(std::string(unknown.what()).find("cpu, cuda[:N] or opencl[:P:D]"), std::string::npos) << unknown.what();
}

TEST(Eager, ErrorsNameWhatIsWrong) {
  auto undefined = catch_error<ValueError>([] { (void)(Tensor() + vec({1})); });
  EXPECT_NE(std::string(undefined.what()).find("argument 1"), std::string::npos) << undefined.what();
  const Var x = vector("x");
  auto symbolic = catch_error<TypeError>(
      [&] { (void)eager([&](const std::vector<Var>& v) { return v[0] + x; }, {vec({1})}).eval(); });
  EXPECT_NE(std::string(symbolic.what()).find("symbolic variable 'x'"), std::string::npos) << symbolic.what();
  const Shared sv = shared(vec({1}), "sv");
  auto shared_read = catch_error<TypeError>(
      [&] { (void)eager([&](const std::vector<Var>& v) { return v[0] + sv; }, {vec({1})}).eval(); });
  EXPECT_NE(std::string(shared_read.what()).find("shared variable 'sv'"), std::string::npos) << shared_read.what();
  EXPECT_NE(std::string(shared_read.what()).find("get_value(true)"), std::string::npos) << shared_read.what();
  auto var_index = catch_error<TypeError>([&] { (void)index(vec({1, 2}), {Index(x)}); });
  EXPECT_NE(std::string(var_index.what()).find("use take(x, indices)"), std::string::npos) << var_index.what();
  auto no_result = catch_error<ValueError>([&] { (void)eager([](const std::vector<Var>&) { return Var(); }, {vec({1})}); });
  EXPECT_NE(std::string(no_result.what()).find("returned an undefined Var"), std::string::npos) << no_result.what();
  auto no_value = catch_error<ValueError>([] { (void)nd::array(Tensor(), host_device()); });
  EXPECT_NE(std::string(no_value.what()).find("undefined tensor"), std::string::npos) << no_value.what();
  auto int_draw = catch_error<TypeError>([] { (void)nd::uniform({2}, 0, 1, DType::Int32); });
  EXPECT_NE(std::string(int_draw.what()).find("int32 is not a float type"), std::string::npos) << int_draw.what();
  // A non-elementwise operation runs at once: its error is raised by the call.
  EXPECT_THROW((void)take(vec({1, 2}), Tensor::from_vector<int64_t>({5})), Error);
}

TEST(Eager, ErrorsOfARecordedChainSurfaceWhenItRuns) {
  // Integer modulo by zero is an error at call time (docs/api.md): recorded, raised at the
  // read, and again at the next read (the chain stays recorded, nothing is half done).
  const Tensor i = Tensor::from_vector<int64_t>({1, 2});
  const Tensor r = i % Tensor::from_vector<int64_t>({0, 1}) + 1;
  EXPECT_TRUE(r.is_pending());
  EXPECT_THROW(r.eval(), Error);
  EXPECT_TRUE(r.is_pending());
  EXPECT_THROW(r.to_vector<int64_t>(), Error);
}

}  // namespace
}  // namespace tgc
