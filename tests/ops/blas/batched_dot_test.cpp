// BatchedDot: stacks of products against NumPy's matmul (equal batches, batch-1 broadcast,
// 3-d by 2-d and 2-d by 3-d, transposed entries), integer dtypes, copies for layouts BLAS
// cannot read, empty batches, static types and errors.
#include "ops/blas/batched_dot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace test;

TEST(BatchedDot, MatchesNumPyMatmul) {
  for (DType t : {DType::Float64, DType::Float32}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    const double tol = t == DType::Float64 ? 1e-12 : 1e-5;
    auto operand = [&](const char* name) { return load_npy("blas", name).astype(t); };
    Tensor Ab = operand("Ab"), Bb = operand("Bb"), Bt = operand("Bt"), Q = operand("Q");
    BatchedDot op;
    expect_close(run_op(op, {Ab, Bb}), load_npy("blas", "exp_bmm"), tol, tol);
    expect_close(run_op(op, {Ab, slice_view(Bb, 0, 0, 1)}), load_npy("blas", "exp_bmm_b1"), tol, tol);
    expect_close(run_op(op, {Ab, slice_view(slice_view(Q, 0, 0, 3), 1, 0, 5)}), load_npy("blas", "exp_bmm_2d"),
                 tol, tol);
    expect_close(run_op(op, {slice_view(slice_view(Q, 0, 0, 2), 1, 0, 3), Bb}), load_npy("blas", "exp_bmm_2d_left"),
                 tol, tol);
    Tensor bt = Bt.transpose({0, 2, 1});  // entries with strides (1, 3): BLAS Trans
    EXPECT_FALSE(bt.is_contiguous());
    expect_close(run_op(op, {Ab, bt}), load_npy("blas", "exp_bmm_t"), tol, tol);
    EXPECT_EQ(run_op(op, {Ab, Bb}).dtype(), t);
    // 1-d operands are vectors whose dim is dropped, as in NumPy's matmul.
    Tensor v = operand("v"), w = operand("w");
    expect_close(run_op(op, {Ab, slice_view(v, 0, 0, 3)}), load_npy("blas", "exp_bmv"), tol, tol);
    expect_close(run_op(op, {slice_view(w, 0, 7, 1, -2), slice_view(Bb, 2, 1, 5)}), load_npy("blas", "exp_vbm"),
                 tol, tol);
  }
}

// Entries BLAS cannot read in place (a stepped slice, a reversed batch) are copied once and
// must give the same values as the contiguous operands.
TEST(BatchedDot, LayoutsThatNeedACopyGiveTheSameValues) {
  Tensor Ab = load_npy("blas", "Ab"), Bb = load_npy("blas", "Bb");   // (4, 2, 3), (4, 3, 5)
  Tensor stepped = slice_view(Bb, 2, 0, 5, 2);                        // (4, 3, 3), column stride 2
  expect_close(run_op(BatchedDot(), {Ab, stepped}), run_op(BatchedDot(), {Ab, stepped.copy()}));
  Tensor reversed = slice_view(Ab, 0, 3, -1, -1);                     // batch order reversed
  Tensor want = run_op(BatchedDot(), {reversed.copy(), Bb});
  expect_close(run_op(BatchedDot(), {reversed, Bb}), want);
  Tensor bcast = slice_view(Ab, 0, 0, 1).broadcast_to({4, 2, 3});     // batch stride 0
  expect_close(run_op(BatchedDot(), {bcast, Bb}), run_op(BatchedDot(), {slice_view(Ab, 0, 0, 1), Bb}));
}

TEST(BatchedDot, IntegerBatchesAndPromotion) {
  Tensor a = Tensor::from_vector(std::vector<int32_t>{1, 2, 3, 4, -1, 0, 0, 1}, {2, 2, 2});
  Tensor b = Tensor::from_vector(std::vector<int32_t>{5, 6, 7, 8}, {1, 2, 2});
  Tensor r = run_op(BatchedDot(), {a, b});
  EXPECT_EQ(r.dtype(), DType::Int32);
  EXPECT_EQ(r.shape(), (Shape{2, 2, 2}));
  EXPECT_THAT(r.to_vector<int32_t>(), ElementsAre(19, 22, 43, 50, -5, -6, 7, 8));
  Tensor f = run_op(BatchedDot(), {a, b.astype(DType::Float32)});
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_THAT(f.to_vector<float>(), ElementsAre(19, 22, 43, 50, -5, -6, 7, 8));
}

TEST(BatchedDot, EmptyBatchesAndDims) {
  EXPECT_EQ(
      run_op(BatchedDot(), {Tensor::zeros(DType::Float32, {0, 2, 3}), Tensor::zeros(DType::Float32, {0, 3, 4})}).shape(),
      (Shape{0, 2, 4}));
  EXPECT_EQ(
      run_op(BatchedDot(), {Tensor::zeros(DType::Float32, {1, 2, 3}), Tensor::zeros(DType::Float32, {0, 3, 4})}).shape(),
      (Shape{0, 2, 4}));
  Tensor k0 =
      run_op(BatchedDot(), {Tensor::zeros(DType::Float64, {2, 2, 0}), Tensor::zeros(DType::Float64, {2, 0, 3})});
  EXPECT_TRUE(tensors_equal(k0, Tensor::zeros(DType::Float64, {2, 2, 3})));
}

TEST(BatchedDot, StaticTypesAndErrors) {
  BatchedDot op;
  EXPECT_EQ(op.name(), "BatchedDot");
  EXPECT_EQ(op.user_name(), "batched_dot");
  EXPECT_EQ(op.infer_types({Type(DType::Float32, {kUnknownDim, 2, 3}), Type(DType::Float32, {1, 3, 5})})[0],
            Type(DType::Float32, {kUnknownDim, 2, 5}));
  EXPECT_EQ(op.infer_types({Type(DType::Float32, {kUnknownDim, 2, 3}), Type(DType::Float32, {4, 3, 5})})[0],
            Type(DType::Float32, {4, 2, 5}));
  EXPECT_EQ(op.infer_types({Type(DType::Int8, {6, kUnknownDim, 3}), Type(DType::Float64, {3, 5})})[0],
            Type(DType::Float64, {6, kUnknownDim, 5}));
  EXPECT_EQ(op.infer_shapes({{1, 2, 3}, {7, 3, 4}})[0], (Shape{7, 2, 4}));
  try {
    op.infer_types({Type(DType::Float32, {4, 2, 3}), Type(DType::Float32, {3, 3, 5})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(), "batched_dot: batch sizes 4 and 3 differ (shapes (4, 2, 3) and (3, 3, 5))");
    EXPECT_THAT(e.hint(), HasSubstr("or 1"));
  }
  try {
    BatchedDot("matmul").infer_shapes({{4, 2, 3}, {4, 4, 5}});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(), "matmul: shapes (4, 2, 3) and (4, 4, 5) are not aligned (dim 2 != dim 1)");
  }
  try {
    op.infer_types({Type(DType::Float32, {2, 3}), Type(DType::Float32, {3, 5})});
    ADD_FAILURE() << "no error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.hint(), HasSubstr("dot(x, y)"));
  }
  try {
    op.infer_types({Type(DType::Float32, {2, 2, 2, 3}), Type(DType::Float32, {3, 5})});
    ADD_FAILURE() << "no error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("operands of rank 4 and 2"));
    EXPECT_THAT(e.hint(), HasSubstr("reshape"));
  }
  EXPECT_EQ(op.infer_types({Type(DType::Float32, {2, 2, 3}), Type(DType::Float32, {kUnknownDim})})[0],
            Type(DType::Float32, {2, 2}));
  EXPECT_EQ(op.infer_types({Type(DType::Float32, {3}), Type(DType::Float32, {kUnknownDim, 3, 5})})[0],
            Type(DType::Float32, {kUnknownDim, 5}));
  try {
    op.infer_types({Type(DType::Float32, {2, 2, 3}), Type(DType::Float32, {4})});
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.what_part(), "batched_dot: shapes (2, 2, 3) and (4,) are not aligned (dim 2 != dim 0)");
  }
  try {
    op.infer_types({Type(DType::Float32, {2, 2, 3}), Type(DType::Float32, {})});
    ADD_FAILURE() << "no error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.hint(), HasSubstr("x * y"));
  }
}

}  // namespace
}  // namespace tgc
