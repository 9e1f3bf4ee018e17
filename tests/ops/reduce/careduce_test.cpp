// CAReduce (sum, prod, max, min, all, any): values against NumPy over every axis set, with
// keepdims, every dtype's result type, non-contiguous inputs, empty tensors and errors.
#include "ops/reduce/careduce.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace test;

// Float sums may differ from NumPy's in the last bits (NumPy sums pairwise): compared within 1e-12.
constexpr double kTol = 1e-12;

struct AxesCase {
  const char* name;  // as in the data file names
  ReduceAxes axes;
};
const AxesCase kAxesCases[] = {
    {"all", std::nullopt}, {"0", std::vector<int>{0}}, {"1", std::vector<int>{1}}, {"2", std::vector<int>{2}},
    {"0_2", std::vector<int>{0, 2}}, {"1_2", std::vector<int>{1, 2}}, {"0_1", std::vector<int>{0, 1}},
};
struct KindCase {
  const char* name;
  ReduceKind kind;
};
const KindCase kKinds[] = {{"sum", ReduceKind::Sum}, {"prod", ReduceKind::Prod}, {"max", ReduceKind::Max},
                           {"min", ReduceKind::Min}, {"all", ReduceKind::All},   {"any", ReduceKind::Any}};

// Shape with the reduced dims kept as 1.
Shape keepdims_shape(const Shape& in, const ReduceAxes& axes) {
  Shape out = in;
  for (size_t d = 0; d < in.size(); ++d)
    if (!axes || std::find(axes->begin(), axes->end(), static_cast<int>(d)) != axes->end()) out[d] = 1;
  return out;
}

// Every kind over every axis set, for float64 and int32 inputs, in three memory layouts,
// with and without keepdims, against NumPy.
TEST(CAReduce, MatchesNumPyOverEveryAxisSetAndLayout) {
  int checked = 0;
  for (const char* prefix : {"f64", "i32"}) {
    Tensor x = load_npy("reduce", std::string("x_") + prefix);
    std::vector<Tensor> layouts = {x, fortran_layout(x), reversed_layout(x, 1), reversed_layout(x, 2)};
    EXPECT_FALSE(layouts[1].is_contiguous());
    EXPECT_LT(layouts[2].strides()[1], 0);
    for (const KindCase& k : kKinds) {
      if (std::string(prefix) == "f64" && (k.kind == ReduceKind::All || k.kind == ReduceKind::Any)) continue;
      for (const AxesCase& a : kAxesCases) {
        SCOPED_TRACE(std::string(prefix) + " " + k.name + " axes " + a.name);
        Tensor want = load_npy("reduce", std::string(prefix) + "_" + k.name + "_" + a.name);
        for (const Tensor& in : layouts) {
          expect_same(run_op(CAReduce(k.kind, a.axes, false), {in}), want, kTol, kTol);
          Tensor kept = run_op(CAReduce(k.kind, a.axes, true), {in});
          EXPECT_EQ(kept.shape(), keepdims_shape(x.shape(), a.axes));
          expect_same(kept.reshape(want.shape()), want, kTol, kTol);
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, (4 + 6) * 7 * 4);  // f64: 4 kinds, i32: 6 kinds; 7 axis sets; 4 layouts
}

// The int32 products over many elements overflow int64 and must wrap exactly as NumPy's do.
TEST(CAReduce, IntegerProductsWrapLikeNumPy) {
  Tensor want = load_npy("reduce", "i32_prod_all");
  EXPECT_EQ(want.dtype(), DType::Int64);
  Tensor got = run_op(CAReduce(ReduceKind::Prod, std::nullopt, false), {load_npy("reduce", "x_i32")});
  EXPECT_EQ(got.item<int64_t>(), want.item<int64_t>());
  Tensor big = Tensor::from_vector(std::vector<int64_t>{std::numeric_limits<int64_t>::max(), 1});
  EXPECT_EQ(run_op(CAReduce(ReduceKind::Sum, std::nullopt, false), {big}).item<int64_t>(),
            std::numeric_limits<int64_t>::min());
}

TEST(CAReduce, Float32AccumulatesInDoubleAndKeepsItsDtype) {
  Tensor x = load_npy("reduce", "x_f64").astype(DType::Float32);
  for (const char* axes_name : {"all", "1", "0_2"}) {
    for (const AxesCase& a : kAxesCases) {
      if (std::string(a.name) != axes_name) continue;
      Tensor got = run_op(CAReduce(ReduceKind::Sum, a.axes, false), {fortran_layout(x)});
      EXPECT_EQ(got.dtype(), DType::Float32);
      EXPECT_TRUE(tensors_allclose(got, load_npy("reduce", std::string("f64_sum_") + axes_name), 1e-5, 1e-5));
    }
  }
  // 1 + 2^-24 * n in float32 loses every small term; in double the sum keeps them.
  std::vector<float> v(1 << 12, 1.0f / (1 << 24));
  v.insert(v.begin(), 1.0f);
  float s = run_op(CAReduce(ReduceKind::Sum, std::nullopt, false), {Tensor::from_vector(v)}).item<float>();
  EXPECT_FLOAT_EQ(s, 1.0f + (1 << 12) / float(1 << 24));
}

// A stride-0 (broadcast) input.
TEST(CAReduce, BroadcastInputMatchesNumPy) {
  Tensor x = load_npy("reduce", "x_f64");
  Tensor row = x.view({1, 4, 5}, x.strides(), x.offset());
  Tensor b = row.broadcast_to({3, 4, 5});
  EXPECT_EQ(b.strides()[0], 0);
  expect_same(run_op(CAReduce(ReduceKind::Sum, std::vector<int>{0}, false), {b}), load_npy("reduce", "bcast_sum_0"),
              kTol, kTol);
  expect_same(run_op(CAReduce(ReduceKind::Sum, std::nullopt, false), {b}), load_npy("reduce", "bcast_sum_all"),
              kTol, kTol);
  expect_same(run_op(CAReduce(ReduceKind::Max, std::vector<int>{1, 2}, false), {b}), load_npy("reduce", "bcast_max_1_2"),
              kTol, kTol);
}

TEST(CAReduce, OutputDtypesFollowNumPy) {
  for (DType t : {DType::Bool, DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8}) {
    EXPECT_EQ(careduce_output_dtype(ReduceKind::Sum, t), DType::Int64) << dtype_name(t);
    EXPECT_EQ(careduce_output_dtype(ReduceKind::Prod, t), DType::Int64) << dtype_name(t);
  }
  for (DType t : {DType::Float32, DType::Float64}) {
    EXPECT_EQ(careduce_output_dtype(ReduceKind::Sum, t), t);
    EXPECT_EQ(careduce_output_dtype(ReduceKind::Prod, t), t);
  }
  for (DType t : kAllDTypes) {
    EXPECT_EQ(careduce_output_dtype(ReduceKind::Max, t), t);
    EXPECT_EQ(careduce_output_dtype(ReduceKind::Min, t), t);
    EXPECT_EQ(careduce_output_dtype(ReduceKind::All, t), DType::Bool);
    EXPECT_EQ(careduce_output_dtype(ReduceKind::Any, t), DType::Bool);
  }
}

// Each dtype once, with values where the narrow type would overflow but int64 does not.
TEST(CAReduce, EveryDtypeHasTheRightValues) {
  auto sum = [](const Tensor& t) { return run_op(CAReduce(ReduceKind::Sum, std::nullopt, false), {t}); };
  auto prod = [](const Tensor& t) { return run_op(CAReduce(ReduceKind::Prod, std::nullopt, false), {t}); };
  auto max = [](const Tensor& t) { return run_op(CAReduce(ReduceKind::Max, std::nullopt, false), {t}); };
  auto min = [](const Tensor& t) { return run_op(CAReduce(ReduceKind::Min, std::nullopt, false), {t}); };
  Tensor b = Tensor::from_vector(std::vector<bool>{true, false, true});
  EXPECT_EQ(sum(b).dtype(), DType::Int64);
  EXPECT_EQ(sum(b).item<int64_t>(), 2);
  EXPECT_EQ(prod(b).item<int64_t>(), 0);
  EXPECT_EQ(max(b).dtype(), DType::Bool);
  EXPECT_TRUE(max(b).item<bool>());
  EXPECT_FALSE(min(b).item<bool>());
  Tensor i8 = Tensor::from_vector(std::vector<int8_t>{100, 100, -128});
  EXPECT_EQ(sum(i8).item<int64_t>(), 72);
  EXPECT_EQ(prod(i8).item<int64_t>(), -1280000);
  EXPECT_EQ(min(i8).item<int8_t>(), -128);
  EXPECT_EQ(max(i8).dtype(), DType::Int8);
  Tensor i16 = Tensor::from_vector(std::vector<int16_t>{30000, 30000, -7});
  EXPECT_EQ(sum(i16).item<int64_t>(), 59993);
  EXPECT_EQ(prod(i16).item<int64_t>(), -6300000000);
  EXPECT_EQ(max(i16).item<int16_t>(), 30000);
  Tensor i32 = Tensor::from_vector(std::vector<int32_t>{2000000000, 2000000000});
  EXPECT_EQ(sum(i32).item<int64_t>(), 4000000000);
  Tensor i64 = Tensor::from_vector(std::vector<int64_t>{-5, 3, 7});
  EXPECT_EQ(sum(i64).item<int64_t>(), 5);
  EXPECT_EQ(prod(i64).item<int64_t>(), -105);
  EXPECT_EQ(min(i64).item<int64_t>(), -5);
  Tensor u8 = Tensor::from_vector(std::vector<uint8_t>{200, 100, 255});
  EXPECT_EQ(sum(u8).dtype(), DType::Int64);
  EXPECT_EQ(sum(u8).item<int64_t>(), 555);
  EXPECT_EQ(prod(u8).item<int64_t>(), 5100000);
  EXPECT_EQ(max(u8).item<uint8_t>(), 255);
  EXPECT_EQ(min(u8).item<uint8_t>(), 100);
  Tensor f32 = Tensor::from_vector(std::vector<float>{1.5f, -2.0f, 4.0f});
  EXPECT_EQ(sum(f32).dtype(), DType::Float32);
  EXPECT_EQ(sum(f32).item<float>(), 3.5f);
  EXPECT_EQ(prod(f32).item<float>(), -12.0f);
  EXPECT_EQ(max(f32).item<float>(), 4.0f);
  EXPECT_EQ(min(f32).item<float>(), -2.0f);
}

TEST(CAReduce, AllAndAnyTestAgainstZeroForEveryDtype) {
  auto all = [](const Tensor& t) { return run_op(CAReduce(ReduceKind::All, std::nullopt, false), {t}).item<bool>(); };
  auto any = [](const Tensor& t) { return run_op(CAReduce(ReduceKind::Any, std::nullopt, false), {t}).item<bool>(); };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(all(Tensor::from_vector(std::vector<double>{nan, -1.0})));  // NaN is true
  EXPECT_FALSE(all(Tensor::from_vector(std::vector<float>{1.0f, -0.0f})));
  EXPECT_TRUE(any(Tensor::from_vector(std::vector<float>{0.0f, 0.5f})));
  EXPECT_FALSE(any(Tensor::from_vector(std::vector<uint8_t>{0, 0})));
  EXPECT_TRUE(all(Tensor::from_vector(std::vector<int8_t>{-1, 3})));
  EXPECT_FALSE(all(Tensor::from_vector(std::vector<int16_t>{5, 0})));
  EXPECT_TRUE(any(Tensor::from_vector(std::vector<int64_t>{0, 0, 9})));
  EXPECT_FALSE(any(Tensor::from_vector(std::vector<bool>{false, false})));
  Tensor r = run_op(CAReduce(ReduceKind::Any, std::vector<int>{1}, false),
                 {Tensor::from_vector(std::vector<int32_t>{0, 0, 0, 7}, {2, 2})});
  EXPECT_EQ(r.dtype(), DType::Bool);
  EXPECT_THAT(r.to_vector<bool>(), ElementsAre(false, true));
}

TEST(CAReduce, NaNPropagatesThroughMaxAndMin) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = Tensor::from_vector(std::vector<double>{1, nan, 3, -inf, 2, inf}, {2, 3});
  Tensor mx = run_op(CAReduce(ReduceKind::Max, std::vector<int>{1}, false), {x});
  EXPECT_TRUE(std::isnan(mx.at({0})));
  EXPECT_EQ(mx.at({1}), inf);
  Tensor mn = run_op(CAReduce(ReduceKind::Min, std::vector<int>{0}, false), {x});
  EXPECT_EQ(mn.at({0}), -inf);
  EXPECT_TRUE(std::isnan(mn.at({1})));
  EXPECT_EQ(mn.at({2}), 3);
  // NaN first, then a number: still NaN.
  Tensor y = Tensor::from_vector(std::vector<float>{std::nanf(""), 5.0f});
  EXPECT_TRUE(std::isnan(run_op(CAReduce(ReduceKind::Max, std::nullopt, false), {y}).item<float>()));
  EXPECT_TRUE(std::isnan(run_op(CAReduce(ReduceKind::Min, std::nullopt, false), {y}).item<float>()));
  EXPECT_TRUE(std::isnan(run_op(CAReduce(ReduceKind::Sum, std::nullopt, false), {y}).item<float>()));
}

TEST(CAReduce, EmptyReductionsGiveTheIdentityOrAValueError) {
  Tensor e = Tensor::zeros(DType::Float64, {0, 3});
  Tensor s = run_op(CAReduce(ReduceKind::Sum, std::vector<int>{0}, false), {e});
  EXPECT_EQ(s.shape(), (Shape{3}));
  EXPECT_THAT(s.to_vector<double>(), ElementsAre(0, 0, 0));
  EXPECT_THAT(run_op(CAReduce(ReduceKind::Prod, std::vector<int>{0}, false), {e}).to_vector<double>(),
              ElementsAre(1, 1, 1));
  EXPECT_TRUE(run_op(CAReduce(ReduceKind::All, std::vector<int>{0}, false), {e}).to_vector<bool>()[0]);
  EXPECT_FALSE(run_op(CAReduce(ReduceKind::Any, std::vector<int>{0}, false), {e}).to_vector<bool>()[0]);
  EXPECT_EQ(run_op(CAReduce(ReduceKind::Sum, std::nullopt, false), {Tensor::zeros(DType::Int32, {0})}).item<int64_t>(), 0);
  // Reducing a non-empty axis of an empty tensor: an empty result, no error.
  EXPECT_EQ(run_op(CAReduce(ReduceKind::Max, std::vector<int>{1}, false), {e}).shape(), (Shape{0}));
  for (ReduceKind k : {ReduceKind::Max, ReduceKind::Min}) {
    for (const ReduceAxes& axes : {ReduceAxes(std::vector<int>{0}), ReduceAxes(std::nullopt)}) {
      try {
        run_op(CAReduce(k, axes, false), {e});
        ADD_FAILURE() << "no error for an empty " << reduce_kind_name(k);
      } catch (const ValueError& err) {
        std::string op = k == ReduceKind::Max ? "max" : "min";
        EXPECT_THAT(err.what(), HasSubstr(op + ": zero-size array to reduction operation " + op +
                                          " which has no identity"));
        EXPECT_THAT(err.hint(), HasSubstr("length 0"));
      }
    }
  }
  EXPECT_THROW(CAReduce(ReduceKind::Max, std::vector<int>{1}, false).infer_shapes({{3, 0}}), ValueError);
}

// Max{empty=identity} (the softmax decomposition's shift): -inf over nothing, +inf for min,
// the type's limits for integers; over a non-empty axis the plain max, NaN winning.
TEST(CAReduce, IdentityWhenEmptyGivesTheFoldsIdentityOverNothing) {
  const double inf = std::numeric_limits<double>::infinity();
  CAReduce max0(ReduceKind::Max, std::vector<int>{1}, true, /*identity_when_empty=*/true);
  EXPECT_EQ(max0.name(), "Max{axis=[1], keepdims=True, empty=identity}");
  EXPECT_EQ(max0.infer_shapes({{3, 0}}).at(0), (Shape{3, 1}));
  EXPECT_THAT(run_op(max0, {Tensor::zeros(DType::Float32, {2, 0})}).to_vector<double>(), ElementsAre(-inf, -inf));
  CAReduce min0(ReduceKind::Min, std::nullopt, false, true);
  EXPECT_EQ(run_op(min0, {Tensor::zeros(DType::Float64, {0, 3})}).item<double>(), inf);
  EXPECT_EQ(run_op(max0, {Tensor::zeros(DType::Int32, {1, 0})}).to_vector<int64_t>().at(0),
            std::numeric_limits<int32_t>::lowest());
  Tensor x = Tensor::from_vector(std::vector<double>{1, 5, 2, std::nan(""), 0, 1}, {2, 3});
  std::vector<double> m = run_op(max0, {x}).to_vector<double>();
  EXPECT_EQ(m[0], 5);
  EXPECT_TRUE(std::isnan(m[1]));
  EXPECT_THROW(CAReduce(ReduceKind::Sum, std::nullopt, false, true), InternalError);  // sum has one already
}

TEST(CAReduce, ZeroDimInputAndEmptyAxisList) {
  Tensor s = Tensor::scalar<int32_t>(7);
  Tensor r = run_op(CAReduce(ReduceKind::Sum, std::nullopt, false), {s});
  EXPECT_EQ(r.shape(), Shape{});
  EXPECT_EQ(r.dtype(), DType::Int64);
  EXPECT_EQ(r.item<int64_t>(), 7);
  EXPECT_EQ(run_op(CAReduce(ReduceKind::Max, std::nullopt, true), {Tensor::scalar(2.5)}).item<double>(), 2.5);
  // axis=() reduces nothing but still applies the dtype rule, as np.sum(x, axis=()).
  Tensor x = Tensor::from_vector(std::vector<int8_t>{1, -2, 3}, {3});
  Tensor same = run_op(CAReduce(ReduceKind::Sum, std::vector<int>{}, false), {x});
  EXPECT_EQ(same.dtype(), DType::Int64);
  EXPECT_THAT(same.to_vector<int64_t>(), ElementsAre(1, -2, 3));
}

TEST(CAReduce, ReusedOutputIsRecomputedNotAccumulated) {
  CAReduce op(ReduceKind::Sum, std::vector<int>{0}, false);
  std::vector<Tensor> out(1);
  op.perform({Tensor::from_vector(std::vector<double>{1, 2, 3, 4}, {2, 2})}, out);
  const void* first = out[0].raw_data();
  op.perform({Tensor::from_vector(std::vector<double>{10, 20, 30, 40}, {2, 2})}, out);
  EXPECT_EQ(out[0].raw_data(), first);
  EXPECT_THAT(out[0].to_vector<double>(), ElementsAre(40, 60));
  CAReduce mx(ReduceKind::Max, std::nullopt, false);
  std::vector<Tensor> o2(1);
  mx.perform({Tensor::from_vector(std::vector<int32_t>{9})}, o2);
  mx.perform({Tensor::from_vector(std::vector<int32_t>{-4, -3})}, o2);
  EXPECT_EQ(o2[0].item<int32_t>(), -3);
}

TEST(CAReduce, NamesAreTheanoStyle) {
  EXPECT_EQ(CAReduce(ReduceKind::Sum, std::vector<int>{0}, false).name(), "Sum{axis=[0]}");
  EXPECT_EQ(CAReduce(ReduceKind::Sum, std::nullopt, false).name(), "Sum");
  EXPECT_EQ(CAReduce(ReduceKind::Max, std::vector<int>{1}, false).name(), "Max{axis=[1]}");
  EXPECT_EQ(CAReduce(ReduceKind::Prod, std::vector<int>{0, 2}, true).name(), "Prod{axis=[0, 2], keepdims=True}");
  EXPECT_EQ(CAReduce(ReduceKind::All, std::nullopt, true).name(), "All{keepdims=True}");
  EXPECT_EQ(CAReduce(ReduceKind::Min, std::nullopt, false).op_class(), "CAReduce");
  EXPECT_EQ(CAReduce(ReduceKind::Sum, std::nullopt, false).user_name(), "sum");
  EXPECT_EQ(CAReduce(ReduceKind::Any, std::nullopt, false).user_name(), "any");
  EXPECT_TRUE(CAReduce(ReduceKind::Sum, std::vector<int>{1}, false)
                  .equals(CAReduce(ReduceKind::Sum, std::vector<int>{1}, false)));
  EXPECT_FALSE(CAReduce(ReduceKind::Sum, std::vector<int>{1}, false)
                   .equals(CAReduce(ReduceKind::Sum, std::vector<int>{0}, false)));
  EXPECT_FALSE(CAReduce(ReduceKind::Sum, std::vector<int>{1}, false)
                   .equals(CAReduce(ReduceKind::Sum, std::vector<int>{1}, true)));
  EXPECT_THROW(CAReduce(ReduceKind::Sum, std::vector<int>{1, 0}, false), InternalError);
}

TEST(CAReduce, StaticTypesPropagateKnownDims) {
  CAReduce sum1(ReduceKind::Sum, std::vector<int>{1}, false);
  EXPECT_EQ(sum1.infer_types({Type(DType::Float32, {kUnknownDim, 784})})[0], Type(DType::Float32, {kUnknownDim}));
  EXPECT_EQ(sum1.infer_types({Type(DType::Int32, {5, kUnknownDim, 2})})[0], Type(DType::Int64, {5, 2}));
  CAReduce kept(ReduceKind::Max, std::vector<int>{0}, true);
  EXPECT_EQ(kept.infer_types({Type(DType::UInt8, {kUnknownDim, 3})})[0], Type(DType::UInt8, {1, 3}));
  EXPECT_EQ(CAReduce(ReduceKind::Any, std::nullopt, false).infer_types({Type(DType::Float64, {2, 3})})[0],
            Type(DType::Bool, {}));
  EXPECT_EQ(sum1.infer_shapes({{4, 7, 2}})[0], (Shape{4, 2}));
  // An axis the input does not have.
  try {
    CAReduce(ReduceKind::Sum, std::vector<int>{2}, false).infer_types({Type(DType::Float32, {3, 4})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("sum: axis 2 is out of bounds for a 2-d tensor"));
    EXPECT_THAT(e.hint(), HasSubstr("valid axes are -2 .. 1"));
  }
  // A reduction statically known to be empty fails when the graph is built.
  EXPECT_THROW(kept.infer_types({Type(DType::Float32, {0, 3})}), ValueError);
  EXPECT_NO_THROW(sum1.infer_types({Type(DType::Float32, {0, 0})}));
}

TEST(ReduceAxes, NormalizeChecksAndCanonicalises) {
  EXPECT_EQ(normalize_reduce_axes(std::vector<int>{-1}, 3, "sum"), ReduceAxes(std::vector<int>{2}));
  EXPECT_EQ(normalize_reduce_axes(std::vector<int>{2, 0}, 3, "sum"), ReduceAxes(std::vector<int>{0, 2}));
  EXPECT_EQ(normalize_reduce_axes(std::vector<int>{-1, 0, 1}, 3, "sum"), std::nullopt);  // every axis
  EXPECT_EQ(normalize_reduce_axes(std::nullopt, 3, "sum"), std::nullopt);
  EXPECT_EQ(normalize_reduce_axes(std::vector<int>{}, 2, "sum"), ReduceAxes(std::vector<int>{}));
  EXPECT_EQ(normalize_reduce_axes(std::vector<int>{0}, 0, "sum"), std::nullopt);
  EXPECT_EQ(normalize_reduce_axes(std::vector<int>{-1}, 0, "sum"), std::nullopt);
  try {
    normalize_reduce_axes(std::vector<int>{0, -3}, 2, "max");
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("max: axis -3 is out of bounds for a 2-d tensor"));
    EXPECT_THAT(e.hint(), HasSubstr("valid axes are -2 .. 1"));
  }
  EXPECT_THROW(normalize_reduce_axes(std::vector<int>{1}, 0, "sum"), ShapeError);
  try {
    normalize_reduce_axes(std::vector<int>{1, -2}, 3, "sum");
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("sum: duplicate value in 'axis': axis 1 is named twice in [1, -2]"));
    EXPECT_THAT(e.hint(), HasSubstr("name each axis once"));
  }
}

}  // namespace
}  // namespace tgc
