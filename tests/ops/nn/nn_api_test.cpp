// The nn API (<tgc/nn.h>): softmax/log_softmax nodes, default axis, errors with the
// user's names, and a compiled run on inputs that overflow a naive formula.
#include <tgc/nn.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <tgc/function.h>
#include <tgc/reductions.h>

#include "support/graph_eval.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using test::op_name;

TEST(NnApi, BuildsNodes) {
  Var x = matrix("x");
  EXPECT_EQ(op_name(softmax(x)), "Softmax{axis=1}");
  EXPECT_EQ(op_name(softmax(x, 0)), "Softmax{axis=0}");
  EXPECT_EQ(op_name(log_softmax(x, -2)), "LogSoftmax{axis=0}");
  EXPECT_EQ(softmax(matrix("i", DType::Int32)).dtype(), floatX());
  EXPECT_EQ(softmax(matrix("d", DType::Float64)).dtype(), DType::Float64);
  EXPECT_EQ(op_name(softmax(scalar("s"))), "Softmax{axis=0}");
  try {
    softmax(x, 2);
    ADD_FAILURE() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("softmax: axis 2 is out of bounds for a 2-d tensor in softmax(x)"));
  }
}

TEST(NnApi, CompiledFunctionIsStable) {
  Var x = matrix("x", DType::Float32);
  Function f = function({x}, {softmax(x), log_softmax(x), logsumexp(x, 1)});
  std::vector<Tensor> r = f(Tensor::from_vector(std::vector<float>{1000, 1000, -1000, -1000}, {2, 2}));
  for (float v : r[0].to_vector<float>()) EXPECT_FLOAT_EQ(v, 0.5f);
  for (float v : r[1].to_vector<float>()) EXPECT_FLOAT_EQ(v, -std::log(2.0f));
  EXPECT_FLOAT_EQ(r[2].to_vector<float>()[0], 1000 + std::log(2.0f));
  EXPECT_FLOAT_EQ(r[2].to_vector<float>()[1], -1000 + std::log(2.0f));
}

}  // namespace
}  // namespace tgc
