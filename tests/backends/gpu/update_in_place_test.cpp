// Updates written into the shared variable's own device buffer (compiler/update_in_place.h) on
// each GPU API (PoCL's OpenCL in CI): an embedding's SGD step increments only the gathered
// rows of the table, in place; Gemm and elementwise updates keep their variables' buffers;
// an increment whose indices no gather checked stays out of place; and a bad index leaves
// every variable as it was. Lean: PoCL spends about a second on each kernel entry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpu_test_device.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using device_test::on;

Tensor f32(std::vector<float> v, const Shape& shape) { return Tensor::from_vector(v, shape); }
Tensor i32(std::vector<int32_t> v) { return Tensor::from_vector(v); }
const void* address(const Shared& s) { return s.get_value(/*borrow=*/true).raw_data(); }

bool any_op(const Function& f, const std::string& what) {
  for (const std::string& n : f.toposort())
    if (n.find(what) != std::string::npos) return true;
  return false;
}

TEST(GpuUpdateInPlace, AnEmbeddingStepWritesTheGatheredRowsOfTheTable) {
  TGC_REQUIRE_GPU();
  Shared emb = shared(f32({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {6, 2}), "emb");
  Var tok = vector("tok", DType::Int32);
  Var loss = sum(take(emb, tok, 0) * 2.0f);
  Function f = function({tok}, {loss}, {{emb, emb - 0.5f * grad(loss, Var(emb))}},
                        on(gpu_test::api(), {{"assert_no_cpu_op", "raise"}}));
  EXPECT_TRUE(any_op(f, "IncSubtensor{Inc;array;inplace}(emb")) << ::testing::PrintToString(f.toposort());
  f(i32({1, 1, -1}));
  const void* table = address(emb);
  f(i32({1, 1, -1}));  // row 1 twice, row 5 once: -1 per occurrence and call
  EXPECT_EQ(address(emb), table);
  EXPECT_THAT(emb.get_value().to_vector<float>(), ElementsAre(0, 1, -2, -1, 4, 5, 6, 7, 8, 9, 8, 9));
  // A bad token: the forward gather raises before any update writes.
  try {
    f(i32({0, 6}));
    ADD_FAILURE() << "no error for token 6";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("index 6 is out of bounds"));
  }
  EXPECT_THAT(emb.get_value().to_vector<float>(), ElementsAre(0, 1, -2, -1, 4, 5, 6, 7, 8, 9, 8, 9));
  EXPECT_EQ(address(emb), table);
}

TEST(GpuUpdateInPlace, GemmAndElementwiseUpdatesGoInPlaceUnlessAnIndexCheckMayComeAfterThem) {
  TGC_REQUIRE_GPU();
  Shared w = shared(f32({1, 2, 3, 4}, {2, 2}), "w");
  Shared b = shared(f32({1, 2}, {2}), "b");
  Shared e = shared(f32({0, 0, 0}, {3}), "e");
  Var x = matrix("x", DType::Float32), idx = vector("idx", DType::Int32);
  Function f = function({x, idx}, {},
                        {{w, w - 0.5f * dot(x.T(), x)}, {b, b * 2.0f + 1.0f}, {e, inc_subtensor(e[idx], 1.0f)}},
                        on(gpu_test::api(), {{"assert_no_cpu_op", "raise"}}));
  const std::vector<std::string> nodes = f.toposort();
  // The scatter's bounds check is made at the end of a call recorded as a CUDA graph, after
  // the updates: only a writer that skips its writes once the error word is set may write a
  // variable in place there, so w's and b's updates are computed apart and then copied.
  EXPECT_FALSE(any_op(f, "Gemm{transA,inplace}")) << ::testing::PrintToString(nodes);
  EXPECT_FALSE(any_op(f, "{inplace=[o0<-i0]}(b")) << ::testing::PrintToString(nodes);
  // Its kernels would skip a bad index and write the others' rows, and nothing checked idx.
  EXPECT_FALSE(any_op(f, "IncSubtensor{Inc;array;inplace}")) << ::testing::PrintToString(nodes);
  // Without an index op in the function, the same updates are written in place.
  Function g = function({x}, {}, {{w, w - 0.5f * dot(x.T(), x)}, {b, b * 2.0f + 1.0f}},
                        on(gpu_test::api(), {{"assert_no_cpu_op", "raise"}}));
  EXPECT_TRUE(any_op(g, "Gemm{transA,inplace}")) << ::testing::PrintToString(g.toposort());
  EXPECT_TRUE(any_op(g, "{inplace=[o0<-i0]}(b")) << ::testing::PrintToString(g.toposort());
  const Tensor eye = f32({1, 0, 0, 1}, {2, 2});
  f({eye, i32({2, 2})});
  EXPECT_THROW(f({eye, i32({0, 3})}), ValueError);
  EXPECT_THAT(w.get_value().to_vector<float>(), ElementsAre(0.5f, 2, 3, 3.5f));
  EXPECT_THAT(b.get_value().to_vector<float>(), ElementsAre(3, 5));
  EXPECT_THAT(e.get_value().to_vector<float>(), ElementsAre(0, 0, 2));
  f({eye, i32({0, -1})});
  EXPECT_THAT(w.get_value().to_vector<float>(), ElementsAre(0, 2, 3, 3));
  EXPECT_THAT(b.get_value().to_vector<float>(), ElementsAre(7, 11));
  EXPECT_THAT(e.get_value().to_vector<float>(), ElementsAre(1, 0, 3));
}

}  // namespace
}  // namespace tgc
