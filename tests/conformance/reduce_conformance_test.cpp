// Reductions on every backend: every kind (sum, prod, max, min, all, any, mean) over every
// axes form (all axes, one, several, negative, keepdims) and several dtypes, sibling
// reductions sharing a kernel, prologues and epilogues, empty reduced axes; argmax/argmin,
// logsumexp, softmax and log_softmax.
#include "conformance/conformance.h"
#include "support/op_test_util.h"

namespace tgc::conformance {
namespace {

struct AxesForm {
  Axes axes;
  bool keepdims;
  std::string name;
};

// Every kind over x, for one axes form: siblings over the same axes, one kernel.
std::vector<Var> every_kind(const Var& x, const AxesForm& f, bool with_max_min = true) {
  std::vector<Var> out{sum(x, f.axes, f.keepdims).as("sum"), prod(x, f.axes, f.keepdims).as("prod"),
                       mean(x, f.axes, f.keepdims).as("mean"), all(x, f.axes, f.keepdims).as("all"),
                       any(x, f.axes, f.keepdims).as("any")};
  if (with_max_min) {
    out.push_back(max(x, f.axes, f.keepdims).as("max"));
    out.push_back(min(x, f.axes, f.keepdims).as("min"));
  }
  return out;
}

// Values of `dtype` on which products stay small: floats in [-1.5, 1.5], integers in [-2, 2].
Tensor reduce_values(RandomState& rng, DType dtype, const Shape& shape) {
  if (dtype == DType::UInt8) return random_values(rng, dtype, shape, 0, 3);
  return is_float(dtype) ? random_values(rng, dtype, shape, -1.5, 1.5) : random_values(rng, dtype, shape, -2, 3);
}

// Shard k of 3 (-1: all), by dtype: separate ctest entries, so ctest -j spreads the
// backends that compile each kernel slowly (PoCL). Each dtype draws from its own seed.
std::vector<Case> reduction_kind_cases(int shard) {
  std::vector<Case> out;
  const std::vector<AxesForm> forms = {{{}, false, "all axes"},
                                       {{}, true, "all axes, keepdims"},
                                       {0, false, "axis 0"},
                                       {{1}, true, "axis 1, keepdims"},
                                       {-1, false, "axis -1"},
                                       {{0, 2}, false, "axes 0,2"},
                                       {{2, -3}, true, "axes 2,-3, keepdims"}};
  struct DtypeForms {
    DType dtype;
    std::vector<size_t> forms;  // indices into `forms`: float64 gets them all
  };
  struct Planned {
    DtypeForms forms;
    int shard;
  };
  const std::vector<Planned> plan = {{{DType::Float64, {0, 1, 2, 3, 4, 5, 6}}, 0},
                                     {{DType::Float32, {0, 3, 5}}, 1},
                                     {{DType::Int32, {0, 4, 6}}, 1},
                                     {{DType::Int8, {2, 5}}, 2},
                                     {{DType::UInt8, {1, 4}}, 2},
                                     {{DType::Bool, {0, 3}}, 2}};
  for (const auto& [p, in_shard] : plan) {
    if (shard >= 0 && in_shard != shard) continue;
    RandomState rng(11 + static_cast<int>(p.dtype));
    Var x = tensor3("x", p.dtype);
    const Tensor big = reduce_values(rng, p.dtype, {4, 5, 6});
    std::vector<std::vector<Tensor>> arg_sets = layouts({big});
    arg_sets.push_back({reduce_values(rng, p.dtype, {1, 7, 1})});
    arg_sets.push_back({reduce_values(rng, p.dtype, {3, 1, 33})});
    for (size_t i : p.forms) {
      out.push_back({.name = std::string(dtype_name(p.dtype)) + " reductions over " + forms[i].name,
                     .inputs = {x},
                     .outputs = every_kind(x, forms[i]),
                     .arg_sets = arg_sets,
                     .tolerance = kSummation,
                     .config = {{"floatX", "float64"}}});
    }
  }
  return out;
}

std::vector<Case> every_reduction_kind_over_every_axes_form_cases() { return reduction_kind_cases(-1); }
std::vector<Case> reduction_kinds_float64_cases() { return reduction_kind_cases(0); }
std::vector<Case> reduction_kinds_float32_int32_cases() { return reduction_kind_cases(1); }
std::vector<Case> reduction_kinds_small_int_bool_cases() { return reduction_kind_cases(2); }

// Reducing over an empty axis: sums are 0, products 1, all true, any false, means NaN; max and
// min raise the reference's error.
std::vector<Case> reductions_over_empty_axes_cases() {
  std::vector<Case> out;
  for (DType t : {DType::Float64, DType::Int32}) {
    Var x = tensor3("x", t);
    const std::vector<std::vector<Tensor>> empty = {{Tensor::zeros(t, {3, 0, 2})}, {Tensor::zeros(t, {0, 4, 0})}};
    out.push_back({.name = "empty reductions " + std::string(dtype_name(t)),
                   .inputs = {x},
                   .outputs = every_kind(x, {{1}, false, "axis 1"}, /*with_max_min=*/false),
                   .arg_sets = empty,
                   .tolerance = kSummation,
                   .config = {{"floatX", "float64"}}});
  }
  Var x = tensor3("x", DType::Float64);
  out.push_back({.name = "max over an empty axis",
                 .inputs = {x},
                 .outputs = {max(x, 1)},
                 .arg_sets = {{Tensor::zeros(DType::Float64, {3, 0, 2})}, {Tensor::zeros(DType::Float64, {3, 2, 0})}}});
  return out;
}

// Reductions with the elementwise work before (prologue) and after (epilogue) them in their
// kernel, sibling reductions sharing one, and chains of reductions.
std::vector<Case> reductions_with_prologue_and_epilogue_cases() {
  std::vector<Case> out;
  RandomState rng(12);
  for (DType t : {DType::Float64, DType::Float32}) {
    Var x = matrix("x", t), b = vector("b", t), w = vector("w", t);
    const Tensor vx = random_values(rng, t, {7, 37}), vb = random_values(rng, t, {7}), vw = random_values(rng, t, {37});
    std::vector<std::vector<Tensor>> arg_sets = layouts({vx, vb, vw});
    arg_sets.push_back({random_values(rng, t, {1, 5}), random_values(rng, t, {1}), random_values(rng, t, {5})});
    arg_sets.push_back({Tensor::zeros(t, {0, 3}), Tensor::zeros(t, {0}), Tensor::zeros(t, {3})});
    const Var centered = x - mean(x, 1, true);
    out.push_back(
        {.name = "prologue and epilogue " + std::string(dtype_name(t)),
         .inputs = {x, b, w},
         .outputs = {(sum(x * x, 1) / 37.0 + b).as("sum(x*x)/n + b"),
                     (mean(x * x, 1) - square(mean(x, 1))).as("variance"),
                     sum(exp(x - max(x, 1, true)), 1).as("sum(exp(x - max))"),
                     (max(abs(x * w), 1) * 2.0 - b).as("max(|x*w|)*2 - b"),
                     sum(centered * centered, 0).as("column sum of squares"),
                     (prod(x * 0.5 + 1.0, 0, true) + w).as("prod keepdims + w"), any(gt(x, w), 0).as("any(x > w)"),
                     all(logical_or(ge(x, -1.0), isnan(x)), 1).as("all(...)"), sum(sum(x, 1)).as("sum of sums")},
         .arg_sets = arg_sets,
         .tolerance = kSummation});
  }
  // Integer accumulation and means of integers.
  Var i = matrix("i", DType::Int32), j = matrix("j", DType::Int8);
  out.push_back(
      {.name = "integer prologue and epilogue",
       .inputs = {i, j},
       .outputs = {sum(i * j + 1, 0), (max(i - j, 1) * 3).as("max(i-j)*3"), mean(i * i, 1, true), prod(j, 1)},
       .arg_sets = layouts({rng.randint(-50, 50, {5, 9}, DType::Int32), rng.randint(-3, 4, {5, 9}, DType::Int8)}),
       .tolerance = kSummation,
       .config = {{"floatX", "float64"}}});
  return out;
}

std::vector<Case> argmax_argmin_cases() {
  std::vector<Case> out;
  RandomState rng(13);
  Var x = tensor3("x", DType::Float64), k = matrix("k", DType::Int32);
  Tensor vx = random_values(rng, DType::Float64, {3, 4, 5});
  std::vector<double> with_nan = vx.to_vector<double>();
  with_nan[7] = std::nan("");
  out.push_back(
      {.name = "argmax/argmin",
       .inputs = {x, k},
       .outputs = {argmax(x), argmin(x, 0), argmax(x, -1, true), argmin(x, 1, true), argmax(k, 1), argmin(k, 0)},
       .arg_sets = {{vx, rng.randint(0, 3, {4, 6}, DType::Int32)},  // ties
                    {Tensor::from_vector(with_nan, {3, 4, 5}), rng.randint(-5, 5, {2, 2}, DType::Int32)},
                    {test::fortran_layout(vx), test::reversed_layout(rng.randint(0, 9, {3, 3}, DType::Int32), 0)}}});
  return out;
}

// softmax, log_softmax and logsumexp along each axis, with the large and infinite values
// that a naive formula overflows on.
std::vector<Case> softmax_log_softmax_logsumexp_cases() {
  std::vector<Case> out;
  RandomState rng(14);
  for (DType t : {DType::Float64, DType::Float32}) {
    Var x = matrix("x", t), y = tensor3("y", t);
    Tensor vx = random_values(rng, t, {6, 19}, -5, 5);
    std::vector<double> large = vx.to_vector<double>();
    large[3] = 1000;
    large[20] = -1000;
    large[40] = -std::numeric_limits<double>::infinity();
    const Tensor vy = random_values(rng, t, {2, 3, 4}, -5, 5);
    std::vector<std::vector<Tensor>> arg_sets = layouts({vx, vy});
    arg_sets.push_back({Tensor::from_vector(large, {6, 19}).astype(t), vy});
    arg_sets.push_back({Tensor::zeros(t, {0, 3}), Tensor::zeros(t, {2, 0, 4})});
    out.push_back(
        {.name = "softmax family " + std::string(dtype_name(t)),
         .inputs = {x, y},
         .outputs = {softmax(x), softmax(x, 0), log_softmax(x), log_softmax(x, 0), logsumexp(x, 1), logsumexp(x),
                     logsumexp(y, {0, 2}, true), softmax(y, 1), log_softmax(y),
                     (exp(x - max(x, 1, true)) / sum(exp(x - max(x, 1, true)), 1, true)).as("softmax by hand"),
                     log(sum(exp(y), -1)).as("logsumexp by hand")},
         .arg_sets = arg_sets,
         .tolerance = kSummation});
  }
  return out;
}

[[maybe_unused]] const bool kRegistered =
    register_family("reduction kinds and axes", &every_reduction_kind_over_every_axes_form_cases) &&
    register_family("empty reductions", &reductions_over_empty_axes_cases) &&
    register_family("prologue and epilogue", &reductions_with_prologue_and_epilogue_cases) &&
    register_family("argmax/argmin", &argmax_argmin_cases) &&
    register_family("softmax family", &softmax_log_softmax_logsumexp_cases);

TEST_P(Conformance, EveryReductionKindOverEveryAxesFormFloat64) { expect_all_conform(&reduction_kinds_float64_cases); }
TEST_P(Conformance, EveryReductionKindOverEveryAxesFormFloat32Int32) {
  expect_all_conform(&reduction_kinds_float32_int32_cases);
}
TEST_P(Conformance, EveryReductionKindOverEveryAxesFormInt8UInt8Bool) {
  expect_all_conform(&reduction_kinds_small_int_bool_cases);
}
TEST_P(Conformance, ReductionsOverEmptyAxes) { expect_all_conform(&reductions_over_empty_axes_cases); }
TEST_P(Conformance, ReductionsWithPrologueAndEpilogue) {
  expect_all_conform(&reductions_with_prologue_and_epilogue_cases);
}
TEST_P(Conformance, ArgmaxArgmin) { expect_all_conform(&argmax_argmin_cases); }
TEST_P(Conformance, SoftmaxLogSoftmaxLogsumexp) { expect_all_conform(&softmax_log_softmax_logsumexp_cases); }

}  // namespace
}  // namespace tgc::conformance
