// Compiled functions: argument checks, updates applied all-or-nothing, output ownership,
// allow_gc, borrow, profiles and per-function config.
#include <tgc/tgc.h>

#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/core/apply.h"
#include "runtime/profiler.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor f64(std::vector<double> v) { return Tensor::from_vector(v); }

Var add_const(const Var& x, double c) {
  return Var(apply1(std::make_shared<testing::AddConst>(c), {x.ptr()}));
}

// Records whether the executor handed it last call's output tensor (allow_gc off).
class RecordsReuse final : public Op {
 public:
  static inline int calls_with_previous_output = 0;
  std::string name() const override { return "RecordsReuse"; }
  std::string op_class() const override { return "RecordsReuse"; }
  std::string user_name() const override { return "records_reuse"; }
  std::vector<Type> infer_types(const std::vector<Type>& in) const override { return {in[0]}; }
  std::vector<Shape> infer_shapes(const std::vector<Shape>& in) const override { return {in[0]}; }
  void perform(const std::vector<Tensor>& in, std::vector<Tensor>& out) const override {
    if (out[0].defined()) ++calls_with_previous_output;
    Tensor& y = ensure_output(out[0], in[0].dtype(), in[0].shape());
    Tensor src = in[0].contiguous();
    std::memcpy(y.raw_data(), src.raw_data(), src.nbytes());
  }
};

TEST(Function, Check1ComputesExpOfASharedVector) {
  Shared x = shared(Tensor::from_vector(std::vector<float>{0.0f, 1.0f}), "x");
  Function f = function({}, {exp(x)});
  EXPECT_THAT(f.toposort(), ElementsAre("Composite{exp(i0)}(x)"));  // fused into one kernel
  auto r = f()[0];
  EXPECT_EQ(r.dtype(), DType::Float32);
  EXPECT_FLOAT_EQ(r.to_vector<float>()[1], 2.7182817f);
}

TEST(Function, WrongArgumentCountNamesTheInputs) {
  Var x = vector("x", DType::Float64), y = vector("y", DType::Float64);
  Function f = function({x, y}, {x + y}, {}, {.name = "adder"});
  try {
    f(f64({1}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("adder takes 2 arguments (x, y), got 1"));
  }
}

TEST(Function, WrongDtypeRankOrStaticShapeIsAnInputError) {
  Var x = vector("x", DType::Float32);
  Function f = function({x}, {x * 2.0});
  try {
    f(f64({1, 2}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("input 'x' expects a float32 vector (?,), got float64 vector of shape (2,)"));
    EXPECT_THAT(e.what(), HasSubstr("astype"));
  }
  EXPECT_THROW(f(Tensor::zeros(DType::Float32, {2, 2})), InputError);
  Var s = tensor("s", DType::Float32, std::vector<int64_t>{kUnknownDim, 3});
  Function g = function({s}, {s + 1.0});
  try {
    g(Tensor::zeros(DType::Float32, {2, 4}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("static shape float32 matrix (?, 3) but was given shape (2, 4)"));
  }
}

TEST(Function, MissingInputIsNamed) {
  Var x = vector("x", DType::Float64), y = vector("y", DType::Float64);
  Var z = (x + y).as("z");
  try {
    function({x}, {z});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("output 'z' depends on input 'y'"));
  }
}

TEST(Function, UpdatesAreAppliedAfterTheCall) {
  Shared acc = shared(f64({0, 0}), "acc");
  Var x = vector("x", DType::Float64);
  Function f = function({x}, {acc * 1.0}, {{acc, acc + x}});
  auto before = f(f64({1, 2}))[0];
  EXPECT_THAT(before.to_vector<double>(), ElementsAre(0, 0));  // outputs see the old value
  f(f64({1, 2}));
  EXPECT_THAT(acc.get_value().to_vector<double>(), ElementsAre(2, 4));
}

TEST(Function, AFailedCallLeavesEverySharedVariableUnchanged) {
  Shared a = shared(f64({1, 2}), "a");
  Shared b = shared(f64({5}), "b");
  Var x = vector("x", DType::Float64);
  // b's update computes fine; a's update fails at run time when x has a negative entry.
  Function f = function({x}, {}, {{b, b + 1.0}, {a, add_const(x, 1)}});
  try {
    f(f64({1, -1}));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("negative element"));
    EXPECT_THAT(e.what(), HasSubstr("add_const(x)"));  // the failing node, in the user's names
  }
  EXPECT_THAT(a.get_value().to_vector<double>(), ElementsAre(1, 2));
  EXPECT_THAT(b.get_value().to_vector<double>(), ElementsAre(5));
  f(f64({3, 4}));  // the function still works afterwards
  EXPECT_THAT(a.get_value().to_vector<double>(), ElementsAre(4, 5));
  EXPECT_THAT(b.get_value().to_vector<double>(), ElementsAre(6));
}

TEST(Function, IntegerDivisionByZeroMidCallLeavesSharedVariablesUnchanged) {
  Shared count = shared(Tensor::from_vector(std::vector<int32_t>{10, 20}), "count");
  Var d = vector("d", DType::Int32);
  Var q = floor_div(count, d).as("q");
  Function f = function({d}, {q}, {{count, count + q}});
  EXPECT_THROW(f(Tensor::from_vector(std::vector<int32_t>{2, 0})), ValueError);
  EXPECT_THAT(count.get_value().to_vector<int32_t>(), ElementsAre(10, 20));
  f(Tensor::from_vector(std::vector<int32_t>{2, 5}));
  EXPECT_THAT(count.get_value().to_vector<int32_t>(), ElementsAre(15, 24));
}

TEST(Function, ResultsAreTheCallersAndNeverOverwritten) {
  for (const char* gc : {"true", "false"}) {
    Var x = vector("x", DType::Float64);
    Function f = function({x}, {exp(x) + 1.0}, {}, {.config = {{"allow_gc", gc}}});
    Tensor first = f(f64({0}))[0];
    Tensor second = f(f64({1}))[0];
    EXPECT_THAT(first.to_vector<double>(), ElementsAre(2.0)) << "allow_gc=" << gc;
    EXPECT_FALSE(first.shares_buffer(second));
  }
}

TEST(Function, AllowGcOffKeepsIntermediatesForReuse) {
  for (bool gc : {true, false}) {
    RecordsReuse::calls_with_previous_output = 0;
    Var x = vector("x", DType::Float64);
    Var mid(apply1(std::make_shared<RecordsReuse>(), {x.ptr()}));
    // Without inplace: the fused add would otherwise take mid's dying buffer as its output.
    Function f = function({x}, {mid + 1.0}, {},
                          {.config = {{"allow_gc", gc ? "true" : "false"}, {"optimizer_excluding", "inplace"}}});
    f(f64({1}));
    f(f64({2}));
    EXPECT_EQ(RecordsReuse::calls_with_previous_output, gc ? 0 : 1);
  }
}

TEST(Function, OutputsAliasingInputsAreCopiedUnlessBorrowed) {
  Var x = vector("x", DType::Float64);
  Tensor arg = f64({1, 2});
  Function f = function({x}, {x});
  EXPECT_FALSE(f(arg)[0].shares_buffer(arg));
  Function g = function({x}, {x}, {}, {.borrow_outputs = true});
  EXPECT_TRUE(g(arg)[0].shares_buffer(arg));
  Shared w = shared(f64({3}), "w");
  Function h = function({}, {w});
  Tensor got = h()[0];
  EXPECT_FALSE(got.shares_buffer(w.get_value(true)));
}

TEST(Function, UpdateWithTheWrongTypeIsRejectedAtCompileTime) {
  Shared w = shared(Tensor::from_vector(std::vector<float>{1}), "w");
  Var x = vector("x", DType::Float64);
  try {
    function({x}, {}, {{w, x}});
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("update of shared variable 'w' is a float64 vector"));
  }
  EXPECT_THROW(function({x}, {}, {{w, x.astype(DType::Float32)}, {w, x.astype(DType::Float32)}}), InputError);
}

TEST(Function, PerFunctionConfigIsValidated) {
  Var x = vector("x", DType::Float64);
  EXPECT_THROW(function({x}, {x}, {}, {.config = {{"alow_gc", "false"}}}), ConfigError);
  try {
    function({x}, {x}, {}, {.config = {{"device", "opencl:9:9"}}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("device 'opencl:9:9'"));
  }
}

TEST(Function, ProfileReportsTheSplitLine) {
  Var x = vector("x", DType::Float64);
  Function f = function({x}, {exp(x).sum()}, {}, {.name = "prof", .config = {{"profile", "true"}}});
  f(f64({1, 2, 3}));
  std::string report = f.profile_report();
  EXPECT_THAT(report, HasSubstr("prof"));
  EXPECT_THAT(report, HasSubstr("in cpu ops"));
  EXPECT_THAT(report, HasSubstr("Composite{sum{axis=[0]}(exp(i0))}"));  // exp fused into the sum
  EXPECT_EQ(f.profiler()->calls(), 1);
}

}  // namespace
}  // namespace tgc
