// <tgc/printing.h>: a Function's graph as tgc show prints it, through the public API (the
// formats themselves are tested in graph_format_test.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include "cli/dot_check.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(PrintingApi, TextNamesTheOutputsAndTheUpdatesValues) {
  Var x = vector("x", DType::Float64);
  Shared n = shared(Tensor::scalar<double>(0), "n");
  Function f = function({x}, {exp(x)}, {{n, n + 1.0}}, {.name = "step"});
  EXPECT_EQ(f.num_outputs(), 1u);
  const std::string text = graph_text(f);
  EXPECT_THAT(text, StartsWith("inputs: x: float64 vector"));
  EXPECT_THAT(text, HasSubstr("out0 = "));
  EXPECT_THAT(text, HasSubstr("update 0 = "));
  EXPECT_THAT(graph_text(f, GraphStage::Raw), HasSubstr("Elemwise{exp}(x)"));
}

TEST(PrintingApi, DotIsAWellFormedDigraphTitledWithTheFunctionAndStage) {
  Var x = matrix("x"), w = matrix("w");
  Function f = function({x, w}, {dot(x, w).sum()}, {}, {.name = "cost"});
  const std::string dot = graph_dot(f);
  EXPECT_THAT(dot, StartsWith("digraph \"cost: optimized graph\" {\n"));
  EXPECT_TRUE(test::well_formed_dot(dot));
  EXPECT_THAT(graph_dot(f, GraphStage::Raw), StartsWith("digraph \"cost: raw graph\" {\n"));
}

}  // namespace
}  // namespace tgc
