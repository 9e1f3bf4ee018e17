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
    "SumToLike", "ReshapeLike", "SplitLike", "ReduceCount", "StopGradient", "LogSoftmaxGrad",
    // control flow
    "IfElse", "Scan",
    // random streams (the state an input here)
    "Random", "RandomPermutation",
    // convolutional layers (conv_transpose2d is ConvTranspose2d)
    "Conv2d", "Conv2dGradInput", "Conv2dGradWeights", "ConvTranspose2d", "FusedConv2d", "Pool2d",
    "Pool2dGrad",
    // batch normalization's training form and its gradient (ops/norm/)
    "BatchNormTraining", "BatchNormGrad"};

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

// The device skip list is exact: on each GPU backend built here, a family is listed exactly
// when one of its cases leaves a node other than a transfer on the host. A family the device
// work covers must leave the list (it shrinks); a family that regresses must be fixed or
// listed with its reason. Compiles every case, runs none.
TEST(ConformanceCoverage, DeviceSkipListIsExact) {
  for (const std::string& backend : suite_backends()) {
    if (backend != "cuda" && backend != "opencl") continue;
    for (const auto& [family, build] : families()) {
      std::set<std::string> host;
      bool listed = false;
      for (const Case& c : build()) {
        for (const SkipEntry& e : device_skip_list()) listed = listed || e.covers(backend, family, c.name);
        ForcedBackendForTests force(backend);
        FunctionOptions options{.config = c.config};
        options.config["assert_no_cpu_op"] = "ignore";
        Function f = function(c.inputs, c.outputs, {}, options);
        for (Node* n : f.graph().toposort())
          if (n->placement() == DeviceKind::Host && !n->op().is_transfer())
            host.insert(n->op().op_class() + " (" + f.host_reason(*n) + ")");
      }
      std::string ops;
      for (const std::string& h : host) ops += "\n  " + h;
      if (listed)
        EXPECT_FALSE(host.empty()) << "family '" << family << "' runs on " << backend
                                   << " now: remove its line from tests/conformance/device_skip_list.txt";
      else
        EXPECT_TRUE(host.empty()) << "family '" << family << "' leaves nodes on the host of " << backend << ":" << ops
                                  << "\ngive them a device implementation, or list the family with its reason in "
                                     "tests/conformance/device_skip_list.txt";
      if (listed && !host.empty()) std::printf("[conformance] %s: '%s' on the host:%s\n", backend.c_str(), family.c_str(), ops.c_str());
    }
  }
}

}  // namespace
}  // namespace tgc::conformance
