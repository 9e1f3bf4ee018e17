// Gemm and Gemv against Dot + Elemwise: transpose flags, strided and reversed operands,
// broadcast addends (and addends that broadcast the product), empty shapes, alpha and beta,
// BLAS's beta == 0 contract, the inplace variant's buffer handling, names, types and errors.
#include "ops/blas/gemm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/blas/dot.h"
#include "ops/elemwise/elemwise.h"
#include "runtime/random.h"
#include "support/catch_error.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using namespace test;

template <typename E, typename Fn>
std::string message_of(Fn&& fn) {
  return catch_error<E>(std::forward<Fn>(fn)).what();
}

Tensor scalar_t(double v, DType dtype = DType::Float64) { return Tensor::full(dtype, {}, v); }

// alpha * dot(a, b) + beta * c by the ops the rewrite replaces, in float64.
Tensor reference(const Tensor& a, const Tensor& b, const Tensor& c, double alpha, double beta) {
  auto f64 = [](const Tensor& t) { return t.astype(DType::Float64); };
  Tensor prod = run_op(Dot(), {f64(a), f64(b)});
  Tensor scaled = run_op(Elemwise(ScalarOpKind::Mul), {prod, scalar_t(alpha)});
  Tensor addend = run_op(Elemwise(ScalarOpKind::Mul), {f64(c), scalar_t(beta)});
  return run_op(Elemwise(ScalarOpKind::Add), {scaled, addend});
}

double tolerance(DType t) { return t == DType::Float32 ? 1e-5 : 1e-12; }

class GemmDtypes : public ::testing::TestWithParam<DType> {};

TEST_P(GemmDtypes, MatchesDotPlusElemwiseForEveryTransposeAndLayout) {
  const DType dt = GetParam();
  RandomState rng(3);
  const Tensor A = rng.randn({5, 7}).astype(dt), At = rng.randn({7, 5}).astype(dt);
  const Tensor B = rng.randn({7, 4}).astype(dt), Bt = rng.randn({4, 7}).astype(dt);
  const Tensor C = rng.randn({5, 4}).astype(dt);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const Tensor a = ta ? At : A, b = tb ? Bt : B;
      const Tensor a_eff = ta ? a.transpose() : a, b_eff = tb ? b.transpose() : b;
      // Contiguous, column-major and reversed-row layouts of the same values.
      for (int layout = 0; layout < 3; ++layout) {
        auto lay = [&](const Tensor& t) {
          return layout == 0 ? t : layout == 1 ? fortran_layout(t) : reversed_layout(t, 0);
        };
        Tensor got = run_op(Gemm(ta, tb), {lay(a), lay(b), lay(C), scalar_t(0.5, dt), scalar_t(-2, dt)});
        SCOPED_TRACE(::testing::Message() << "transA=" << ta << " transB=" << tb << " layout " << layout);
        expect_close(got.astype(DType::Float64), reference(a_eff, b_eff, C, 0.5, -2), tolerance(dt), tolerance(dt));
        EXPECT_EQ(got.dtype(), dt);
      }
    }
}

TEST_P(GemmDtypes, GemvMatchesDotPlusElemwise) {
  const DType dt = GetParam();
  RandomState rng(4);
  const Tensor A = rng.randn({6, 3}).astype(dt), x3 = rng.randn({3}).astype(dt);
  const Tensor y6 = rng.randn({6}).astype(dt), y3 = rng.randn({3}).astype(dt);
  expect_close(run_op(Gemv(false), {A, x3, y6, scalar_t(2, dt), scalar_t(3, dt)}).astype(DType::Float64),
               reference(A, x3, y6, 2, 3), tolerance(dt), tolerance(dt));
  // transA: A^T x, with A and x read through a column-major layout and a stride of 2.
  Tensor x_strided = slice_view(rng.randn({12}).astype(dt), 0, 0, 12, 2);
  expect_close(run_op(Gemv(true), {fortran_layout(A), x_strided, y3, scalar_t(-1, dt), scalar_t(0.25, dt)})
                   .astype(DType::Float64),
               reference(A.transpose(), x_strided, y3, -1, 0.25), tolerance(dt), tolerance(dt));
}

INSTANTIATE_TEST_SUITE_P(Floats, GemmDtypes, ::testing::Values(DType::Float32, DType::Float64),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(Gemm, AddendBroadcastsToTheProduct) {
  RandomState rng(5);
  const Tensor A = rng.randn({4, 3}), B = rng.randn({3, 5});
  for (const Shape& cs : {Shape{5}, Shape{1, 5}, Shape{4, 1}, Shape{}}) {
    Tensor c = rng.randn(cs);
    SCOPED_TRACE(shape_str(cs));
    expect_close(run_op(Gemm(), {A, B, c, scalar_t(1), scalar_t(1)}), reference(A, B, c, 1, 1));
  }
}

TEST(Gemm, AddendThatBroadcastsTheProductGivesNumPysResult) {
  // A product of shape (4, 1) against an addend (4, 6): NumPy broadcasts the product.
  RandomState rng(6);
  const Tensor A = rng.randn({4, 3}), B = rng.randn({3, 1}), C = rng.randn({4, 6});
  Tensor got = run_op(Gemm(), {A, B, C, scalar_t(2), scalar_t(-1)});
  EXPECT_EQ(got.shape(), (Shape{4, 6}));
  expect_close(got, reference(A, B, C, 2, -1));
  EXPECT_EQ(Gemm().infer_shapes({{4, 3}, {3, 1}, {4, 6}, {}, {}}), (std::vector<Shape>{{4, 6}}));
  // beta == 0 there too: C only shapes the result.
  expect_close(run_op(Gemm(), {A, B, C, scalar_t(2), scalar_t(0)}), reference(A, B, Tensor::zeros(DType::Float64, {4, 6}), 2, 0));
}

TEST(Gemm, BetaZeroDoesNotReadTheAddendAsBlasDoes) {
  const Tensor A = iota({2, 2}), B = iota({2, 2});
  const Tensor C = Tensor::full(DType::Float64, {2, 2}, std::numeric_limits<double>::quiet_NaN());
  expect_same(run_op(Gemm(), {A, B, C, scalar_t(1), scalar_t(0)}), run_op(Dot(), {A, B}));
}

TEST(Gemm, EmptyShapes) {
  // No rows: an empty result. No inner dim: alpha * 0 + beta * C.
  const Tensor C = iota({3, 2});
  EXPECT_EQ(run_op(Gemm(), {Tensor::zeros(DType::Float64, {0, 4}), iota({4, 2}), Tensor::zeros(DType::Float64, {0, 2}),
                            scalar_t(1), scalar_t(1)})
                .shape(),
            (Shape{0, 2}));
  expect_same(run_op(Gemm(), {Tensor::zeros(DType::Float64, {3, 0}), Tensor::zeros(DType::Float64, {0, 2}), C,
                              scalar_t(5), scalar_t(2)}),
              run_op(Elemwise(ScalarOpKind::Mul), {C, scalar_t(2)}));
  expect_same(run_op(Gemv(), {Tensor::zeros(DType::Float64, {3, 0}), Tensor::zeros(DType::Float64, {0}),
                              Tensor::zeros(DType::Float64, {}), scalar_t(1), scalar_t(1)}),
              Tensor::zeros(DType::Float64, {3}));
}

TEST(Gemm, AlphaAndBetaOfAnyNumericDtype) {
  const Tensor A = iota({2, 3}, DType::Float32), B = iota({3, 2}, DType::Float32), C = iota({2, 2}, DType::Float32);
  Tensor got = run_op(Gemm(), {A, B, C, Tensor::full(DType::Int32, {}, 2), Tensor::full(DType::Float64, {}, 0.5)});
  expect_close(got.astype(DType::Float64), reference(A, B, C, 2, 0.5));
}

TEST(Gemm, InplaceWritesIntoTheAddendOnlyWhenNothingElseHoldsIt) {
  const Gemm op(false, false, true);
  const Tensor A = iota({2, 3}), B = iota({3, 2});
  Tensor C = iota({2, 2});
  const Tensor want = reference(A, B, C, 1, 1);
  // As the executor hands it over: the output slot and the input entry hold the buffer.
  std::vector<Tensor> inputs{A, B, C, scalar_t(1), scalar_t(1)};
  std::vector<Tensor> outputs{std::move(C)};
  C = Tensor();
  const void* buffer = outputs[0].raw_data();
  op.perform(inputs, outputs);
  EXPECT_EQ(outputs[0].raw_data(), buffer);
  expect_close(outputs[0], want);

  // Someone else holds the addend: a fresh buffer, the addend untouched.
  Tensor held = iota({2, 2});
  std::vector<Tensor> in2{A, B, held, scalar_t(1), scalar_t(1)};
  std::vector<Tensor> out2{held};
  op.perform(in2, out2);
  EXPECT_NE(out2[0].raw_data(), held.raw_data());
  expect_same(held, iota({2, 2}));
  expect_close(out2[0], want);

  // The addend is also an operand of the product: never overwritten while it is read.
  Tensor sq = iota({2, 2});
  std::vector<Tensor> in3{sq, sq, sq, scalar_t(1), scalar_t(1)};
  std::vector<Tensor> out3{sq};
  sq = Tensor();
  op.perform(in3, out3);
  EXPECT_NE(out3[0].raw_data(), in3[0].raw_data());
  expect_close(out3[0], reference(iota({2, 2}), iota({2, 2}), iota({2, 2}), 1, 1));
}

TEST(Gemm, NamesFlagsAndInplaceVariant) {
  EXPECT_EQ(Gemm().name(), "Gemm");
  EXPECT_EQ(Gemm(true, false).name(), "Gemm{transA}");
  EXPECT_EQ(Gemm(true, true, true).name(), "Gemm{transA,transB,inplace}");
  EXPECT_EQ(Gemv(true).name(), "Gemv{transA}");
  EXPECT_EQ(Gemm().op_class(), "Gemm");
  EXPECT_FALSE(Gemm().equals(Gemm(true)));
  EXPECT_EQ(Gemm().inplace_input(0), -1);
  auto ip = Gemm(true).make_inplace(0, ScaledMatmul::kC);
  ASSERT_TRUE(ip);
  EXPECT_EQ(ip->name(), "Gemm{transA,inplace}");
  EXPECT_EQ(ip->inplace_input(0), ScaledMatmul::kC);
  EXPECT_EQ(Gemm().make_inplace(0, ScaledMatmul::kA), nullptr);
}

TEST(Gemm, TypesAndErrors) {
  const Type m(DType::Float32, {kUnknownDim, 3}), n(DType::Float32, {3, 5}), s(DType::Float32, {});
  EXPECT_EQ(Gemm().infer_types({m, n, Type(DType::Float32, {5}), s, s})[0], Type(DType::Float32, {kUnknownDim, 5}));
  EXPECT_EQ(Gemm(true).infer_types({Type(DType::Float32, {3, 4}), n, s, s, s})[0], Type(DType::Float32, {4, 5}));
  EXPECT_EQ(Gemv().infer_types({m, Type(DType::Float32, {3}), s, s, s})[0], Type(DType::Float32, {kUnknownDim}));
  const Type i(DType::Int32, {2, 2});
  EXPECT_THAT(message_of<TypeError>([&] { Gemm().infer_types({i, i, i, s, s}); }), HasSubstr("float32 or float64"));
  EXPECT_THAT(message_of<TypeError>([&] { Gemm().infer_types({m, Type(DType::Float64, {3, 5}), s, s, s}); }),
              HasSubstr("share"));
  EXPECT_THAT(message_of<TypeError>([&] { Gemm().infer_types({m, n, s, Type(DType::Float32, {1}), s}); }),
              HasSubstr("0-d"));
  EXPECT_THAT(message_of<TypeError>([&] { Gemv().infer_types({m, n, s, s, s}); }), HasSubstr("vector"));
  EXPECT_THAT(message_of<ShapeError>([&] { Gemm().infer_types({Type(DType::Float32, {2, 4}), n, s, s, s}); }),
              HasSubstr("not aligned"));
  EXPECT_THAT(message_of<TypeError>([&] { Gemm().infer_types({m, n, Type(DType::Float32, {1, 1, 5}), s, s}); }),
              HasSubstr("more dims"));
  EXPECT_THAT(message_of<ShapeError>([&] { Gemm().infer_shapes({{2, 3}, {4, 5}, {}, {}, {}}); }),
              HasSubstr("not aligned"));
}

}  // namespace
}  // namespace tgc
