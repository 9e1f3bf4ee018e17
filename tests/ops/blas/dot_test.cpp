// Dot: NumPy's products for every rank pair, with sliced, transposed, strided and reversed
// operands (the BLAS flag, leading-dimension, increment and copy paths), float32/float64
// through BLAS, integer and bool loops, mixed dtypes, empty dims, types and errors.
#include "ops/blas/dot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "support/op_test_util.h"
#include "ops/blas/blas_layout.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace test;

struct Bases {
  Tensor P, Q, v, w;
};
struct Case {
  const char* expected;
  std::function<std::pair<Tensor, Tensor>(const Bases&)> operands;
  bool a_blas_in_place;  // whether the first operand is read by BLAS without a copy
};

Tensor rows(const Tensor& t, int64_t a, int64_t b) { return slice_view(t, 0, a, b); }
Tensor cols(const Tensor& t, int64_t a, int64_t b) { return slice_view(t, 1, a, b); }

// The same views the generator script multiplies (see scripts/test_data/reduce_blas_nn.py).
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"mm", [](const Bases& b) { return std::pair{cols(b.P, 0, 9), b.Q}; }, true},
      {"mm_slices", [](const Bases& b) { return std::pair{cols(rows(b.P, 1, 6), 2, 9), cols(rows(b.Q, 1, 8), 2, 5)}; }, true},
      {"mm_t", [](const Bases& b) {
         Tensor s = rows(b.P, 1, 6);
         return std::pair{cols(s, 2, 9).transpose(), cols(s, 2, 6)};
       }, true},
      {"mm_tt", [](const Bases& b) { return std::pair{b.Q.transpose(), rows(b.P.transpose(), 0, 9)}; }, true},
      {"mm_step", [](const Bases& b) {
         return std::pair{slice_view(slice_view(b.P, 0, 0, 8, 2), 1, 0, 10, 3), rows(b.Q, 0, 4)};
       }, false},
      {"mv", [](const Bases& b) { return std::pair{cols(rows(b.P, 1, 6), 2, 9), slice_view(b.v, 0, 1, 8)}; }, true},
      {"mv_t", [](const Bases& b) { return std::pair{b.P.transpose(), b.w}; }, true},
      {"mv_rev", [](const Bases& b) {
         return std::pair{cols(rows(b.P, 1, 6), 2, 9), slice_view(b.v, 0, 8, 1, -1)};
       }, true},
      {"vm", [](const Bases& b) { return std::pair{b.w, b.P}; }, true},
      {"vm_strided", [](const Bases& b) { return std::pair{slice_view(b.v, 0, 0, 10, 2), rows(b.Q, 0, 5)}; }, true},
      {"vv", [](const Bases& b) { return std::pair{b.v, b.v}; }, true},
      {"vv_strided", [](const Bases& b) {
         return std::pair{slice_view(b.v, 0, 0, 10, 2), slice_view(b.v, 0, 1, 10, 2)};
       }, true},
  };
  return all;
}

bool blas_reads_in_place(const Tensor& t) {
  if (t.ndim() == 1) return blas_vector_increment(t.shape()[0], t.strides()[0]).has_value();
  return blas_matrix_layout(t.shape()[0], t.shape()[1], t.strides()[0], t.strides()[1]).has_value();
}

TEST(Dot, Float64MatchesNumPyForEveryLayout) {
  Bases b{load_npy("blas", "P"), load_npy("blas", "Q"), load_npy("blas", "v"), load_npy("blas", "w")};
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.expected);
    auto [x, y] = c.operands(b);
    EXPECT_EQ(blas_reads_in_place(x), c.a_blas_in_place);
    Tensor got = run_op(Dot(), {x, y});
    EXPECT_EQ(got.dtype(), DType::Float64);
    expect_close(got, load_npy("blas", std::string("exp_") + c.expected));
  }
}

TEST(Dot, Float32MatchesNumPyForEveryLayout) {
  auto f32 = [](const char* name) { return load_npy("blas", name).astype(DType::Float32); };
  Bases b{f32("P"), f32("Q"), f32("v"), f32("w")};
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.expected);
    auto [x, y] = c.operands(b);
    Tensor got = run_op(Dot(), {x, y});
    EXPECT_EQ(got.dtype(), DType::Float32);
    expect_close(got, load_npy("blas", std::string("exp_") + c.expected), 1e-5, 1e-5);
  }
}

// The transposed and sliced views are handed to BLAS as flags and leading dimensions.
TEST(Dot, ViewsOfTheCasesUseBlasFlagsAndLeadingDims) {
  Tensor P = load_npy("blas", "P");  // (8, 10)
  auto l = blas_matrix_layout(5, 7, P.strides()[0], P.strides()[1]);  // P[1:6, 2:9]
  ASSERT_TRUE(l.has_value());
  EXPECT_FALSE(l->trans);
  EXPECT_EQ(l->ld, 10);
  Tensor t = cols(rows(P, 1, 6), 2, 9).transpose();  // (7, 5), strides (1, 10)
  auto lt = blas_matrix_layout(t.shape()[0], t.shape()[1], t.strides()[0], t.strides()[1]);
  ASSERT_TRUE(lt.has_value());
  EXPECT_TRUE(lt->trans);
  EXPECT_EQ(lt->ld, 10);
}

// Integer-valued float64 products are exact, so BLAS (transposed, sliced operands) must
// agree exactly with the integer loop on the same values, at sizes where OpenBLAS blocks.
TEST(Dot, BlasAgreesExactlyWithTheIntegerLoopOnLargerOperands) {
  const int64_t m = 67, k = 130, n = 45;
  std::vector<int64_t> av(m * k), bv(k * n);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<int64_t>((i * 7919) % 11) - 5;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<int64_t>((i * 104729) % 13) - 6;
  Tensor a = Tensor::from_vector(av, {m, k}), b = Tensor::from_vector(bv, {k, n});
  Tensor exact = run_op(Dot(), {a, b});
  EXPECT_EQ(exact.dtype(), DType::Int64);
  Tensor af = a.astype(DType::Float64).transpose().copy().transpose();  // Trans path
  Tensor bf = b.astype(DType::Float64);
  EXPECT_TRUE(tensors_equal(run_op(Dot(), {af, bf}), exact.astype(DType::Float64)));
  Tensor col = slice_view(b, 1, 3, 4).reshape({k});
  EXPECT_TRUE(tensors_equal(run_op(Dot(), {af, slice_view(bf, 1, 3, 4).reshape({k})}),
                            run_op(Dot(), {a, col}).astype(DType::Float64)));
}

TEST(Dot, IntegerAndBoolProductsFollowNumPy) {
  expect_close(run_op(Dot(), {load_npy("blas", "Pi"), load_npy("blas", "Qi")}), load_npy("blas", "exp_mm_i32"));
  EXPECT_EQ(run_op(Dot(), {load_npy("blas", "Pi"), load_npy("blas", "Qi")}).dtype(), DType::Int32);
  // int8 wraps in int8, as NumPy's dot does.
  Tensor i8 = run_op(Dot(), {Tensor::from_vector(std::vector<int8_t>{100, 100}), Tensor::from_vector(std::vector<int8_t>{2, 1})});
  EXPECT_EQ(i8.dtype(), DType::Int8);
  EXPECT_EQ(i8.item<int8_t>(), 44);  // 300 - 256
  // uint8 . int8 -> int16.
  Tensor mixed = run_op(Dot(), {Tensor::from_vector(std::vector<uint8_t>{200, 1}), Tensor::from_vector(std::vector<int8_t>{-1, 3})});
  EXPECT_EQ(mixed.dtype(), DType::Int16);
  EXPECT_EQ(mixed.item<int16_t>(), -197);
  // bool: OR of ANDs.
  Tensor bm = Tensor::from_vector(std::vector<bool>{true, false, true, true}, {2, 2});
  Tensor bv = Tensor::from_vector(std::vector<bool>{false, true});
  Tensor bres = run_op(Dot(), {bm, bv});
  EXPECT_EQ(bres.dtype(), DType::Bool);
  EXPECT_THAT(bres.to_vector<bool>(), ElementsAre(false, true));
  // int64 with a reversed (negative-stride) operand.
  Tensor x = Tensor::from_vector(std::vector<int64_t>{1, 2, 3});
  Tensor y = Tensor::from_vector(std::vector<int64_t>{4, 5, 6}).view({3}, {-1}, 2);  // [6, 5, 4]
  EXPECT_EQ(run_op(Dot(), {x, y}).item<int64_t>(), 6 + 10 + 12);
  // int16 matrix . vector with a stride-0 (broadcast) matrix.
  Tensor row = Tensor::from_vector(std::vector<int16_t>{1, -2, 3});
  Tensor bc = row.broadcast_to({2, 3});
  EXPECT_THAT(run_op(Dot(), {bc, Tensor::from_vector(std::vector<int16_t>{1, 1, 1})}).to_vector<int16_t>(), ElementsAre(2, 2));
}

TEST(Dot, MixedDtypesArePromoted) {
  Tensor got = run_op(Dot(), {load_npy("blas", "Pi").astype(DType::Int32),
                              slice_view(load_npy("blas", "v").astype(DType::Float32), 0, 0, 5)});
  EXPECT_EQ(got.dtype(), DType::Float32);
  expect_close(got, load_npy("blas", "exp_mv_i32_f32"), 1e-5, 1e-3);
  Tensor f = run_op(Dot(), {Tensor::from_vector(std::vector<float>{0.5f, 2}), Tensor::from_vector(std::vector<double>{4, 0.25})});
  EXPECT_EQ(f.dtype(), DType::Float64);
  EXPECT_EQ(f.item<double>(), 2.5);
  Tensor s = run_op(Dot(), {Tensor::from_vector(std::vector<bool>{true, true}), Tensor::from_vector(std::vector<double>{1.5, 2})});
  EXPECT_EQ(s.item<double>(), 3.5);
}

TEST(Dot, BroadcastOperandsAreCopiedForBlas) {
  Tensor row = Tensor::from_vector(std::vector<double>{1, 2, 3});
  Tensor m = row.broadcast_to({4, 3});  // strides (0, 1): not a BLAS layout
  EXPECT_FALSE(blas_reads_in_place(m));
  EXPECT_THAT(run_op(Dot(), {m, Tensor::from_vector(std::vector<double>{1, 0, 2})}).to_vector<double>(),
              ElementsAre(7, 7, 7, 7));
  Tensor ones = Tensor::full(DType::Float32, {1}, 2.0f).broadcast_to({3});  // stride 0 vector
  EXPECT_EQ(run_op(Dot(), {ones, Tensor::from_vector(std::vector<float>{1, 2, 3})}).item<float>(), 12.0f);
  Tensor mm = run_op(Dot(), {Tensor::from_vector(std::vector<double>{1, 2}, {2, 1}), row.view({1, 3}, {0, 1}, 0)});
  EXPECT_THAT(mm.to_vector<double>(), ElementsAre(1, 2, 3, 2, 4, 6));
}

TEST(Dot, EmptyDimensions) {
  for (DType t : {DType::Float32, DType::Float64, DType::Int32, DType::Bool}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    Tensor z = run_op(Dot(), {Tensor::zeros(t, {3, 0}), Tensor::zeros(t, {0, 2})});
    EXPECT_EQ(z.shape(), (Shape{3, 2}));
    EXPECT_TRUE(tensors_equal(z, Tensor::zeros(t, {3, 2})));
    EXPECT_EQ(run_op(Dot(), {Tensor::zeros(t, {0}), Tensor::zeros(t, {0})}).item<double>(), 0.0);
    EXPECT_EQ(run_op(Dot(), {Tensor::zeros(t, {0, 4}), Tensor::zeros(t, {4, 2})}).shape(), (Shape{0, 2}));
    EXPECT_EQ(run_op(Dot(), {Tensor::zeros(t, {4}), Tensor::zeros(t, {4, 0})}).shape(), (Shape{0}));
  }
  // A reused output that held values must be zeroed for k == 0.
  Dot op;
  std::vector<Tensor> out(1);
  op.perform({Tensor::full(DType::Float64, {2, 3}, 1.0), Tensor::full(DType::Float64, {3, 2}, 1.0)}, out);
  op.perform({Tensor::zeros(DType::Float64, {2, 0}), Tensor::zeros(DType::Float64, {0, 2})}, out);
  EXPECT_THAT(out[0].to_vector<double>(), ElementsAre(0, 0, 0, 0));
}

TEST(Dot, StaticTypes) {
  Dot op;
  EXPECT_EQ(op.infer_types({Type(DType::Float32, {kUnknownDim, 784}), Type(DType::Float32, {784, 10})})[0],
            Type(DType::Float32, {kUnknownDim, 10}));
  EXPECT_EQ(op.infer_types({Type(DType::Float64, {5}), Type(DType::Float64, {kUnknownDim})})[0], Type(DType::Float64, {}));
  EXPECT_EQ(op.infer_types({Type(DType::Int32, {3, 4}), Type(DType::Float32, {4})})[0], Type(DType::Float32, {3}));
  EXPECT_EQ(op.infer_types({Type(DType::Int8, {4}), Type(DType::Int16, {4, kUnknownDim})})[0],
            Type(DType::Int16, {kUnknownDim}));
  EXPECT_EQ(op.infer_shapes({{2, 3}, {3}})[0], (Shape{2}));
  EXPECT_EQ(op.name(), "Dot");
  EXPECT_EQ(op.op_class(), "Dot");
  EXPECT_EQ(op.user_name(), "dot");
  EXPECT_TRUE(Dot("matmul").equals(Dot()));
}

TEST(Dot, MisalignedShapesErrorInNumPyStyle) {
  Dot op;
  try {
    op.infer_types({Type(DType::Float32, {400, 784}), Type(DType::Float32, {785})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(), "dot: shapes (400, 784) and (785,) are not aligned (dim 1 != dim 0)");
    EXPECT_THAT(e.hint(), HasSubstr("784"));
    EXPECT_THAT(e.hint(), HasSubstr("785"));
  }
  try {
    op.infer_types({Type(DType::Float32, {kUnknownDim, 784}), Type(DType::Float32, {10, 785})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(), "dot: shapes (?, 784) and (10, 785) are not aligned (dim 1 != dim 0)");
  }
  try {
    op.infer_types({Type(DType::Float32, {3}), Type(DType::Float32, {4, 2})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(), "dot: shapes (3,) and (4, 2) are not aligned (dim 0 != dim 0)");
  }
  // At run time, with dims that were unknown statically.
  try {
    run_op(op, {Tensor::zeros(DType::Float64, {2, 3}), Tensor::zeros(DType::Float64, {4})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(), "dot: shapes (2, 3) and (4,) are not aligned (dim 1 != dim 0)");
  }
  EXPECT_THROW(op.infer_shapes({{2, 3}, {2, 3}}), ShapeError);
}

TEST(Dot, RankErrorsPointAtTheRightFunction) {
  Dot op;
  try {
    op.infer_types({Type(DType::Float32, {2, 3, 4}), Type(DType::Float32, {4, 5})});
    ADD_FAILURE() << "no error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("dot: operands of rank 3 and 2"));
    EXPECT_THAT(e.hint(), HasSubstr("batched_dot"));
    EXPECT_THAT(e.hint(), HasSubstr("matmul"));
  }
  try {
    op.infer_types({Type(DType::Float32, {}), Type(DType::Float32, {4})});
    ADD_FAILURE() << "no error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("0-d operand"));
    EXPECT_THAT(e.hint(), HasSubstr("x * y"));
  }
  try {
    Dot("matmul").infer_types({Type(DType::Float32, {2, 3}), Type(DType::Float32, {4, 5})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("matmul: shapes (2, 3) and (4, 5) are not aligned"));
  }
}

TEST(BlasLayout, ChoosesFlagsLeadingDimsOrACopy) {
  auto l = [](int64_t r, int64_t c, int64_t rs, int64_t cs) { return blas_matrix_layout(r, c, rs, cs); };
  ASSERT_TRUE(l(3, 4, 4, 1));
  EXPECT_FALSE(l(3, 4, 4, 1)->trans);
  EXPECT_EQ(l(3, 4, 4, 1)->ld, 4);
  EXPECT_EQ(l(3, 4, 10, 1)->ld, 10);  // a column slice of a wider matrix
  ASSERT_TRUE(l(3, 4, 1, 3));         // transpose of a contiguous (4, 3)
  EXPECT_TRUE(l(3, 4, 1, 3)->trans);
  EXPECT_EQ(l(3, 4, 1, 3)->ld, 3);
  EXPECT_EQ(l(3, 4, 1, 8)->ld, 8);    // transpose of a row slice
  EXPECT_FALSE(l(3, 4, 20, 3));       // stepped in both dims: copy
  EXPECT_FALSE(l(3, 4, 0, 1));        // broadcast rows: copy
  EXPECT_FALSE(l(3, 4, -4, 1));       // reversed rows: copy
  EXPECT_FALSE(l(3, 4, 2, 1));        // overlapping rows (ld < cols): copy
  EXPECT_FALSE(l(3, 4, 1, 1));
  // Length-1 dims: their stride does not matter.
  EXPECT_TRUE(l(1, 4, 0, 1));
  EXPECT_EQ(l(1, 4, 0, 1)->ld, 4);
  ASSERT_TRUE(l(1, 4, 99, 5));  // a strided row vector as a matrix: Trans with ld 5
  EXPECT_TRUE(l(1, 4, 99, 5)->trans);
  EXPECT_TRUE(l(4, 1, 7, 0));
  EXPECT_FALSE(l(4, 1, 7, 0)->trans);
  EXPECT_EQ(l(4, 1, 7, 0)->ld, 7);
  EXPECT_FALSE(l(3, 4, int64_t(1) << 33, 1));  // leading dim beyond 32-bit BLAS ints
  EXPECT_EQ(blas_vector_increment(5, 3), 3);
  EXPECT_EQ(blas_vector_increment(5, -1), std::nullopt);
  EXPECT_EQ(blas_vector_increment(5, 0), std::nullopt);
  EXPECT_EQ(blas_vector_increment(1, 0), 1);
}

}  // namespace
}  // namespace tgc
