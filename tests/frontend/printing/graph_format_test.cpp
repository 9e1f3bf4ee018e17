// tgc show's formats (frontend/printing/) on graphs built with the C++ API: the text listing
// (one line per node, inputs and outputs named) and the Graphviz dot text (structure and
// escaping).
#include <gtest/gtest.h>


#include <tgc/tgc.h>

#include "cli/dot_check.h"
#include "frontend/printing/graph_dot.h"
#include "frontend/printing/graph_text.h"
#include "ops/core/graph.h"

namespace tgc::printing {
namespace {

Graph two_outputs_graph() {
  Var x = vector("x");
  Var y = vector("y");
  return Graph::clone_of({x.ptr(), y.ptr()}, {(x + y).ptr(), (x - y).ptr()});
}

const std::vector<OutputLabel> kLabels = {{"out0", "x + y"}, {"out1", "x - y"}};

TEST(GraphText, OneLinePerNodeWithInputsAndOutputs) {
  EXPECT_EQ(graph_text(two_outputs_graph(), kLabels),
            "inputs: x: float32 vector (?,), y: float32 vector (?,)\n"
            "t0 = Elemwise{add}(x, y)   # float32 vector (?,)\n"
            "t1 = Elemwise{sub}(x, y)   # float32 vector (?,)\n"
            "outputs:\n"
            "  out0 = t0   # x + y\n"
            "  out1 = t1   # x - y\n");
}

TEST(GraphText, UserNamesAndConstantsAndNoInputs) {
  Var x = vector("x");
  Var z = (exp(x) * 2.0).as("z");
  std::string text = graph_text(Graph::clone_of({x.ptr()}, {z.ptr()}), {{"out0", "exp(x) * 2"}});
  EXPECT_NE(text.find("z = Elemwise{mul}(t0, 2.0)"), std::string::npos) << text;
  EXPECT_NE(text.find("t0 = Elemwise{exp}(x)"), std::string::npos) << text;
  EXPECT_NE(text.find("  out0 = z   # exp(x) * 2\n"), std::string::npos) << text;

  Shared s = shared(Tensor::zeros(DType::Float32, {3}), "s");
  std::string no_inputs = graph_text(Graph::clone_of({}, {exp(s).ptr()}), {});
  EXPECT_TRUE(no_inputs.starts_with("inputs: (none)\n")) << no_inputs;
  EXPECT_NE(no_inputs.find("t0 = Elemwise{exp}(s)"), std::string::npos) << no_inputs;
  EXPECT_NE(no_inputs.find("  out0 = t0\n"), std::string::npos) << no_inputs;  // unlabelled
}

TEST(GraphText, TwoVariablesWithOneNameStayApart) {
  Var a = vector("x");
  Var b = vector("x");
  std::string text = graph_text(Graph::clone_of({a.ptr(), b.ptr()}, {(a * b).ptr()}), {});
  EXPECT_NE(text.find("inputs: x: float32 vector (?,), x_2: float32 vector (?,)"), std::string::npos) << text;
  EXPECT_NE(text.find("Elemwise{mul}(x, x_2)"), std::string::npos) << text;
}

TEST(GraphDot, EscapesQuotesBackslashesAndNewlines) {
  EXPECT_EQ(dot_escape("a\"b\\c\nd\te"), "a\\\"b\\\\c\\nde");
}

TEST(GraphDot, DeclaresEveryNodeBeforeItsEdges) {
  std::string dot = graph_dot(two_outputs_graph(), "two_outputs(x, y): raw \"graph\"", kLabels);
  ASSERT_TRUE(dot.starts_with("digraph \"two_outputs(x, y): raw \\\"graph\\\"\" {\n")) << dot;
  test::DotCounts counts;
  ASSERT_TRUE(test::well_formed_dot(dot, &counts)) << dot;
  EXPECT_EQ(counts.ops, 2);
  EXPECT_EQ(counts.variables, 4);  // x, y, x + y, x - y
  EXPECT_EQ(counts.edges, 6);      // two inputs and one output per node
  // Inputs are green, outputs blue and labelled with their expression.
  EXPECT_NE(dot.find("fillcolor=palegreen, label=\"x\\nfloat32 vector (?,)\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("fillcolor=lightblue, label=\"t0\\nfloat32 vector (?,)\\nout0 = x + y\""),
            std::string::npos)
      << dot;
}

TEST(GraphDot, AnOutputThatIsAnInputIsDeclaredOnce) {
  Var x = vector("x");
  std::string dot = graph_dot(Graph::clone_of({x.ptr()}, {x.ptr()}), "id", {{"out0", "x"}});
  EXPECT_EQ(dot.find("[shape=box"), dot.rfind("[shape=box")) << dot;
}

}  // namespace
}  // namespace tgc::printing
