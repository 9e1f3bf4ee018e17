// The placement pass: where nodes run, one transfer per value and direction, the user's
// gpu_from_host markers (cancelled on the device, removed on the host), output routing,
// shared variables living on the device, and Theano's printing of placed nodes.
#include "compiler/passes/placement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

#include <unordered_map>

#include "canon_test_util.h"
#include "compiler/kernel/composite_op.h"
#include "compiler/passes/fuse_elemwise.h"
#include "compiler/passes/inplace.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;

// A device that implements fused kernels and dots only (as a GPU backend would), so the
// cases below have both device and host nodes.
PassContext device_context(std::vector<DeviceKind> outputs = {}) {
  PassContext ctx;
  ctx.placement.device = DeviceKind::Cuda;
  ctx.placement.runs_on_device = [](const Node& n) {
    return n.op().op_class() == "Composite" || n.op().op_class() == "Dot";
  };
  ctx.placement.output_locations = std::move(outputs);
  return ctx;
}

// fuse_elemwise then placement, as the pipeline runs them.
Graph placed(const std::vector<Var>& inputs, const std::vector<Var>& outputs, const PassContext& ctx) {
  Graph g = Graph::clone_of(to_ptrs(inputs), to_ptrs(outputs));
  fuse_elemwise(g, ctx);
  place_on_device(g, ctx);
  verify_graph(g, "placement");
  return g;
}

std::vector<std::string> placed_names(const Graph& g) {
  std::vector<std::string> names;
  for (Node* n : g.toposort()) names.push_back(placed_op_name(*n));
  return names;
}

Shared float32_shared(const std::string& name) {
  return shared(Tensor::from_vector(std::vector<float>{1, 2, 3}), name);
}

TEST(Placement, Check1RunsExpOnTheDeviceAndCopiesTheResultBackOnce) {
  Shared x = float32_shared("x");
  Graph g = placed({}, {exp(x)}, device_context());
  EXPECT_THAT(placed_names(g), ElementsAre("GpuElemwise{exp}", "HostFromGpu"));
}

TEST(Placement, Check2LeavesTheResultOnTheDeviceWithNoTransferAtAll) {
  Shared x = float32_shared("x");
  Graph g = placed({}, {gpu_from_host(exp(x))}, device_context());
  EXPECT_THAT(placed_names(g), ElementsAre("GpuElemwise{exp}"));
  EXPECT_EQ(g.toposort()[0]->placement(), DeviceKind::Cuda);
}

TEST(Placement, DeviceResultOptionKeepsOutputsOnTheDevice) {
  Shared x = float32_shared("x");
  Graph g = placed({}, {exp(x)}, device_context({DeviceKind::Cuda}));
  EXPECT_THAT(placed_names(g), ElementsAre("GpuElemwise{exp}"));
}

TEST(Placement, AnInputReadByTwoDeviceNodesCrossesOnce) {
  Var a = vector("a", DType::Float32);
  Var b = vector("b", DType::Float32);
  // exp(a) and dot(a, b): a fused kernel and a dot, both on the device, both reading a.
  Graph g = placed({a, b}, {exp(a), dot(a, b)}, device_context());
  int to_device = 0, to_host = 0;
  for (Node* n : g.toposort()) {
    to_device += placed_op_name(*n) == "GpuFromHost";
    to_host += placed_op_name(*n) == "HostFromGpu";
  }
  EXPECT_EQ(to_device, 2) << g.str();  // a once, b once
  EXPECT_EQ(to_host, 2) << g.str();    // each output once
}

TEST(Placement, HostNodesReadADeviceValueThroughOneTransfer) {
  Shared x = float32_shared("x");
  Var e = exp(x);
  // argmax has no device implementation here: both host readers share one HostFromGpu.
  Graph g = placed({}, {argmax(e, 0), argmin(e, 0)}, device_context());
  int to_host = 0;
  for (Node* n : g.toposort()) {
    to_host += placed_op_name(*n) == "HostFromGpu";
    if (n->op().op_class() != "Composite" && !n->op().is_transfer()) {
      EXPECT_EQ(n->placement(), DeviceKind::Host);
    }
  }
  EXPECT_EQ(to_host, 1) << g.str();
}

TEST(Placement, AShapeIsReadWhereTheTensorIsWithoutATransfer) {
  Shared x = float32_shared("x");
  Var e = exp(x);
  // x.shape of a device value: the Shape node runs on the host and reads the device value's
  // metadata; nothing brings e to the host.
  Graph g = placed({}, {shape_of(e)}, device_context());
  int transfers = 0;
  for (Node* n : g.toposort()) {
    transfers += n->op().is_transfer();
    if (n->op().op_class() == "Shape") {
      EXPECT_EQ(n->placement(), DeviceKind::Host);
      EXPECT_EQ(placed_op_name(*n->inputs()[0]->owner()), "GpuElemwise{exp}") << g.str();
    }
  }
  EXPECT_EQ(transfers, 0) << g.str();
}

TEST(Placement, SharedUpdatesStayOnTheDevice) {
  Shared w = float32_shared("w");
  // Outputs: the user's (host) and the update of w (device, where w lives).
  Graph g = placed({}, {sum(w), w * 2.0f}, device_context({DeviceKind::Host, DeviceKind::Cuda}));
  const Variable* update = g.outputs()[1].get();
  ASSERT_NE(update->owner(), nullptr);
  EXPECT_EQ(placed_op_name(*update->owner()).rfind("GpuElemwise", 0), 0u) << g.str();
  const Variable* result = g.outputs()[0].get();
  EXPECT_EQ(placed_op_name(*result->owner()), "HostFromGpu") << g.str();
}

TEST(Placement, Float64SharedVariablesStayOnTheHost) {
  Shared d = shared(Tensor::from_vector(std::vector<double>{1, 2}), "d");
  Graph g = placed({}, {exp(d)}, device_context());
  // d is read on the device through one transfer, and the result comes back.
  EXPECT_THAT(placed_names(g), ElementsAre("GpuFromHost", "GpuElemwise{exp}", "HostFromGpu"));
}

// A shared variable of another dtype that the function reads only on the device (token ids
// of an embedding lookup) lives there too, when the caller lets it move: no transfer per call.
TEST(Placement, SharedVariablesReadOnlyOnTheDeviceMayMoveThere) {
  auto ints = [] { return shared(Tensor::from_vector(std::vector<int32_t>{0, 2}), "ids"); };
  Shared x = float32_shared("x");
  {
    Shared ids = ints();
    PassContext ctx = device_context();
    ctx.placement.may_move_shared = [](const Variable&) { return true; };
    Graph g = placed({}, {exp(x) * ids}, ctx);
    EXPECT_THAT(placed_names(g), ElementsAre("GpuElemwise{Composite{mul(exp(i0),Cast{float32}(i1))}}", "HostFromGpu"))
        << g.str();
    std::vector<const Variable*> shared_vars;
    for (Variable* v : g.roots())
      if (v->kind() == Variable::Kind::Shared) shared_vars.push_back(v);
    EXPECT_THAT(shared_on_device(g, shared_vars, ctx.placement), ElementsAre(true, true));
  }
  {
    Shared ids = ints();  // the caller says no (it updates ids): read through a transfer
    PassContext ctx = device_context();
    ctx.placement.may_move_shared = [](const Variable&) { return false; };
    Graph g = placed({}, {exp(x) * ids}, ctx);
    EXPECT_EQ(placed_names(g)[0], "GpuFromHost") << g.str();
    std::vector<const Variable*> shared_vars;
    for (Variable* v : g.roots())
      if (v->kind() == Variable::Kind::Shared) shared_vars.push_back(v);
    std::vector<bool> want;
    for (const Variable* v : shared_vars) want.push_back(v->type().dtype == DType::Float32);
    EXPECT_EQ(shared_on_device(g, shared_vars, ctx.placement), want);
  }
  {
    Shared ids = ints();  // also read on the host (an argmax this device does not do): stays there
    PassContext ctx = device_context();
    ctx.placement.may_move_shared = [](const Variable&) { return true; };
    Graph g = placed({}, {exp(x) * ids, argmax(ids, 0)}, ctx);
    EXPECT_THAT(placed_names(g), ::testing::Contains("GpuFromHost")) << g.str();
  }
}

TEST(Placement, OnTheHostMarkersAreRemovedAndNothingMoves) {
  Shared x = float32_shared("x");
  PassContext host;
  test::PassRun r = test::run_pass(place_on_device, {}, {gpu_from_host(exp(x))}, host);
  EXPECT_TRUE(r.changed);
  EXPECT_THAT(test::op_names(r.after), ElementsAre("Elemwise{exp}"));
  EXPECT_EQ(placed_op_name(*r.after.toposort()[0]), "Elemwise{exp}");
}

TEST(Placement, ReductionsAndMultiOpKernelsPrintTheirComposite) {
  Shared x = float32_shared("x");
  Graph g = placed({}, {gpu_from_host(sum(exp(x) * 2.0f))}, device_context());
  ASSERT_EQ(g.toposort().size(), 1u) << g.str();
  EXPECT_EQ(placed_op_name(*g.toposort()[0]).rfind("GpuCAReduce{Composite{", 0), 0u) << placed_names(g)[0];
  Graph h = placed({}, {gpu_from_host(exp(x) * 2.0f)}, device_context());
  EXPECT_EQ(placed_op_name(*h.toposort()[0]).rfind("GpuElemwise{Composite{", 0), 0u) << placed_names(h)[0];
}

TEST(Placement, InplaceVariantsMadeAfterPlacementKeepTheirDevice) {
  Var a = vector("a", DType::Float32);
  // exp(a) dies at the add: the inplace pass may rewrite the add's kernel to write into it.
  Graph g = placed({a}, {gpu_from_host(exp(a) + 1.0f)}, device_context());
  inplace(g, device_context());
  for (Node* n : g.toposort()) {
    if (!n->op().is_transfer()) {
      EXPECT_EQ(n->placement(), DeviceKind::Cuda) << n->describe();
    }
  }
}

// Every node of a GPU function left on the host gets its reason: the backend's own, or the
// fallback naming the op class; device nodes and transfers get none.
TEST(Placement, HostNodesRecordWhyTheyStayOnTheHost) {
  Var x = matrix("x", DType::Float32), w = matrix("w", DType::Float32);
  PassContext ctx = device_context();
  ctx.placement.host_reason = [](const Node& n) {
    return n.op().op_class() == "Argmin" ? std::string("argmin waits for its index kernel") : std::string();
  };
  std::unordered_map<const Node*, std::string> reasons;
  ctx.host_reasons = &reasons;
  Graph g = placed({x, w}, {argmax(dot(x, w), 1), argmin(x, 0), exp(x)}, ctx);
  int host = 0;
  for (Node* n : g.toposort()) {
    auto it = reasons.find(n);
    if (n->placement() == DeviceKind::Host && !n->op().is_transfer()) {
      ++host;
      ASSERT_NE(it, reasons.end()) << n->describe();
      EXPECT_EQ(it->second, n->op().op_class() == "Argmax" ? "no device implementation of Argmax"
                                                            : "argmin waits for its index kernel");
    } else {
      EXPECT_EQ(it, reasons.end()) << n->describe();
    }
  }
  EXPECT_EQ(host, 2);
  EXPECT_EQ(reasons.size(), 2u);
}

TEST(Placement, InplaceVariantsOfHostNodesKeepTheirReason) {
  Var a = vector("a", DType::Float32);
  PassContext ctx = device_context();
  ctx.placement.runs_on_device = [](const Node& n) { return n.op().op_class() == "Dot"; };
  std::unordered_map<const Node*, std::string> reasons;
  ctx.host_reasons = &reasons;
  Graph g = placed({a}, {exp(a) + 1.0f, exp(a) * 2.0f}, ctx);
  inplace(g, ctx);
  for (Node* n : g.toposort()) {
    if (n->op().is_transfer()) continue;
    ASSERT_TRUE(reasons.count(n)) << n->describe();
    EXPECT_EQ(reasons.at(n), "no device implementation of Composite");
  }
}

}  // namespace
}  // namespace tgc
