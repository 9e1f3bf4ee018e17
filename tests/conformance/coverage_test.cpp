// The suite covers the op set: every op (and every reduction kind) appears in some case, in
// the graph as built or as the optimizer leaves it. An op added to tgc joins kOpSet and gets
// a case; this test fails until it has one. Builds the cases without running them.
#include <set>

#include "backends/backend_registry.h"
#include "conformance/conformance.h"
#include "ops/core/graph.h"

namespace tgc::conformance {
namespace {

// Op names up to their parameters ("Sum{axis=[1]}" -> "Sum").
const std::set<std::string> kOpSet = {
    // elementwise (each scalar-op row: EveryScalarOpRowOverItsDtypes) and fused kernels
    "Elemwise", "Composite",
    // reductions
    "Sum", "Prod", "Max", "Min", "All", "Any", "Mean", "Argmax", "Argmin", "LogSumExp", "Softmax", "LogSoftmax",
    // products (Gemm/Gemv are made by the optimizer)
    "Dot", "BatchedDot", "Outer", "Gemm", "Gemv",
    // shape
    "DimShuffle", "Reshape", "Flatten",
    // indexing
    "Subtensor", "AdvancedSubtensor", "IncSubtensor",
    // join
    "Concatenate", "Stack", "Split",
    // creation
    "Alloc", "Fill", "Arange", "Eye",
    // made by grad()
    "SumToLike", "ReshapeLike", "SplitLike", "ReduceCount", "StopGradient"};

std::string base_name(const Node& n) {
  const std::string name = n.op().name();
  return name.substr(0, name.find('{'));
}

TEST(ConformanceCoverage, EveryOpOfTheOpSetIsInSomeCase) {
  std::set<std::string> seen;
  size_t cases = 0;
  for (const auto& [family, build] : families()) {
    for (const Case& c : build()) {
      ++cases;
      Graph raw = Graph::clone_of(to_ptrs(c.inputs), to_ptrs(c.outputs));
      for (Node* n : raw.toposort()) seen.insert(base_name(*n));
      ForcedBackendForTests force("reference");
      FunctionOptions options{.config = c.config};
      Function f = function(c.inputs, c.outputs, {}, options);
      for (Node* n : f.graph().toposort()) seen.insert(base_name(*n));
    }
  }
  std::printf("[conformance] %zu families, %zu cases\n", families().size(), cases);
  for (const std::string& op : kOpSet) EXPECT_TRUE(seen.count(op)) << op << " is in no conformance case";
  for (const std::string& op : seen) EXPECT_TRUE(kOpSet.count(op)) << op << " is missing from kOpSet";
}

}  // namespace
}  // namespace tgc::conformance
