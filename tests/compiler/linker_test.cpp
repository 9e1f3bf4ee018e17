// The linker: slots, thunk order and metadata, last-use points, inplace buffer handovers.
#include "compiler/linker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>

#include "backends/reference/reference_backend.h"
#include "ops/core/apply.h"
#include "ops/shape/dimshuffle.h"
#include "ops/elemwise/elemwise.h"
#include "runtime/executor.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using testing::AddConst;

using testing::add_const;

TEST(Linker, OneThunkPerNodeWithUserLabelsAndCpuKind) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto a = add_const(x, 1);
  a->set_name("a");
  auto b = add_const(a, 2);
  Graph g = Graph::clone_of({x}, {b});
  LinkedProgram lp = link(g, ReferenceBackend());
  const Program& p = lp.program;
  ASSERT_EQ(p.thunks.size(), 2u);
  EXPECT_EQ(p.thunks[0].label, "a = add_const(x)");
  EXPECT_EQ(p.thunks[1].label, "add_const(a)");
  EXPECT_EQ(p.thunks[0].op_class, "AddConst");
  EXPECT_EQ(p.thunks[0].kind, ThunkKind::Cpu);
  EXPECT_EQ(p.num_slots, 3);
  EXPECT_EQ(lp.input_slots, (std::vector<int>{0}));
  // `a` dies after its only reader; the input and the output are never freed.
  EXPECT_TRUE(p.thunks[0].frees.empty());
  EXPECT_EQ(p.thunks[1].frees, (std::vector<int>{p.thunks[0].outputs[0]}));
}

TEST(Linker, ConstantsAndSharedValuesGetSlots) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto c = Variable::constant(Tensor::from_vector(std::vector<double>{1, 2}));
  auto w = Variable::shared(std::make_shared<SharedValue>(Tensor::from_vector(std::vector<double>{3}), "w", false));
  Graph g = Graph::clone_of({x}, {add_const(c, 1), add_const(w, 1), add_const(x, 1)});
  LinkedProgram lp = link(g, ReferenceBackend());
  EXPECT_EQ(lp.program.constants.size(), 1u);
  ASSERT_EQ(lp.shared_slots.size(), 1u);
  EXPECT_EQ(lp.shared_slots[0].second->name(), "w");
  EXPECT_EQ(lp.program.bound_slots.size(), 2u);  // x and w
}

TEST(Linker, LinkedProgramRunsThroughTheExecutor) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  Graph g = Graph::clone_of({x}, {add_const(add_const(x, 1), 10)});
  LinkedProgram lp = link(g, ReferenceBackend());
  std::vector<Tensor> slots(lp.program.num_slots);
  slots[lp.input_slots[0]] = Tensor::from_vector(std::vector<double>{1, 2});
  execute(lp.program, slots, ExecOptions{}, nullptr);
  EXPECT_EQ(slots[lp.program.output_slots[0]].to_vector<double>(), (std::vector<double>{12, 13}));
}


// --- inplace handovers ---

// An Elemwise node of `kind`; `inplace` >= 0 makes it overwrite that input.
VarPtr ew(ScalarOpKind kind, std::vector<VarPtr> in, int inplace = -1) {
  return apply1(std::make_shared<Elemwise>(kind, std::nullopt, std::nullopt, inplace), std::move(in));
}

Tensor vec(std::vector<double> v) { return Tensor::from_vector<double>(v); }

TEST(Linker, InplaceOpsGetOnlyBuffersThatAreTheirsAndDead) {
  // Every node below is an inplace op, as a wrong decision upstream would make it; the
  // linker hands each one its input's buffer only where that is safe.
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto w = Variable::shared(std::make_shared<SharedValue>(vec({1, 2, 3}), "w", false));
  auto c = Variable::constant(vec({4, 5, 6}));
  VarPtr on_arg = ew(ScalarOpKind::Neg, {x}, 0);         // a graph input
  VarPtr on_shared = ew(ScalarOpKind::Neg, {w}, 0);      // a shared value
  VarPtr on_const = ew(ScalarOpKind::Neg, {c}, 0);       // a constant
  VarPtr returned = ew(ScalarOpKind::Exp, {x});
  VarPtr on_result = ew(ScalarOpKind::Neg, {returned}, 0);  // a returned result
  VarPtr later = ew(ScalarOpKind::Exp, {x});
  VarPtr on_later = ew(ScalarOpKind::Neg, {later}, 0);   // a value read again below
  VarPtr reads_later = ew(ScalarOpKind::Add, {later, on_later});
  VarPtr dying = ew(ScalarOpKind::Exp, {x});
  VarPtr on_dying = ew(ScalarOpKind::Neg, {dying}, 0);   // the one safe case
  Graph g = Graph::clone_of({x}, {on_arg, on_shared, on_const, returned, on_result, reads_later, on_dying});
  LinkedProgram lp = link(g, ReferenceBackend(), {.plan_memory = false});
  const Program& p = lp.program;
  int handovers = 0;
  for (const Thunk& t : p.thunks) handovers += static_cast<int>(t.inplace.size());
  EXPECT_EQ(handovers, 1);
  // on_dying's thunk (neg(w), an op writing a shared variable, runs last: update_in_place.h).
  const Thunk& last = *std::find_if(p.thunks.begin(), p.thunks.end(),
                                    [&](const Thunk& t) { return t.outputs[0] == p.output_slots[6]; });
  ASSERT_EQ(last.inplace.size(), 1u) << last.label;
  EXPECT_EQ(last.inplace[0], (Handover{0, last.inputs[0]}));

  std::vector<Tensor> slots(p.num_slots);
  const Tensor arg = vec({0.5, 1, 2});
  slots[lp.input_slots[0]] = arg;
  for (auto& [s, storage] : lp.shared_slots) slots[s] = storage->current();
  for (auto& [s, t] : p.constants) slots[s] = t;
  execute(p, slots, {}, nullptr);
  auto out = [&](int i) { return slots[p.output_slots[i]].to_vector<double>(); };
  EXPECT_EQ(arg.to_vector<double>(), (std::vector<double>{0.5, 1, 2}));
  EXPECT_EQ(w->storage()->current().to_vector<double>(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(c->constant_value().to_vector<double>(), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(out(0), (std::vector<double>{-0.5, -1, -2}));
  EXPECT_EQ(out(1), (std::vector<double>{-1, -2, -3}));
  EXPECT_EQ(out(2), (std::vector<double>{-4, -5, -6}));
  EXPECT_EQ(out(3), vec({std::exp(0.5), std::exp(1.0), std::exp(2.0)}).to_vector<double>());
  EXPECT_EQ(out(5), (std::vector<double>{0, 0, 0}));  // exp(x) + -exp(x): later was intact
  EXPECT_EQ(out(6), vec({-std::exp(0.5), -std::exp(1.0), -std::exp(2.0)}).to_vector<double>());
}
// A device backend that keeps what the linker told its prepare() and makes the reference's
// thunks (the nodes are placed on "its device": only a device backend is told expectations).
class PrepareRecorder final : public Backend {
 public:
  std::string name() const override { return "prepare-recorder"; }
  DeviceKind device_kind() const override { return DeviceKind::Cuda; }
  void prepare(const std::vector<const Node*>& /*nodes*/, const ExpectedInputShapes& expected) const override {
    seen = expected;
  }
  ThunkFn make_thunk(const Node& node) const override { return reference.make_thunk(node); }
  // The expectation for the node that computes `v` (nullopt per unknown input); none: left out.
  std::optional<std::vector<std::optional<Shape>>> for_node_of(const Graph& g, size_t output) const {
    for (const auto& [node, shapes] : seen)
      if (node->output_raw(0) == g.outputs()[output].get()) return shapes;
    return std::nullopt;
  }
  mutable ExpectedInputShapes seen;
  ReferenceBackend reference;
};

// Backend::prepare learns the input shapes the static types and the shape facts give, except
// for a view's (its strides are its producer's), and nothing of the inputs no one knows.
TEST(Linker, PrepareLearnsTheShapesTheTypesAndFactsExpect) {
  auto x = Variable::input(Type::unknown(DType::Float64, 1), "x");
  auto k = Variable::input(Type(DType::Float64, {2}), "k");
  auto storage = std::make_shared<SharedValue>(vec({1, 2, 3}), "w", false);
  auto w = Variable::shared(storage);
  auto view = apply1(std::make_shared<DimShuffle>(std::vector<int>{0, -1}, "expand_dims"), {w});
  Graph g = Graph::clone_of({x, k}, {add_const(x, 1), add_const(k, 1), add_const(w, 1),
                                      apply1(std::make_shared<DimShuffle>(std::vector<int>{0}, "squeeze"), {view})});
  for (Node* n : g.toposort()) n->set_placement(DeviceKind::Cuda);
  const SharedShapeFacts facts{{storage.get(), Shape{3}}};
  PrepareRecorder with_facts, without, host;
  const ReferenceBackend reference;
  link(g, reference, LinkOptions{.device_backend = &with_facts, .shape_facts = &facts});
  link(g, reference, LinkOptions{.device_backend = &without});
  for (Node* n : g.toposort()) n->set_placement(DeviceKind::Host);
  link(g, host, LinkOptions{.shape_facts = &facts});
  EXPECT_TRUE(host.seen.empty());  // a host backend builds one variant: it is told nothing
  EXPECT_FALSE(with_facts.for_node_of(g, 0));  // x: nothing known
  EXPECT_EQ(with_facts.for_node_of(g, 1), (std::vector<std::optional<Shape>>{Shape{2}}));  // k's type
  EXPECT_EQ(with_facts.for_node_of(g, 2), (std::vector<std::optional<Shape>>{Shape{3}}));  // w's fact
  EXPECT_FALSE(with_facts.for_node_of(g, 3));  // reads a view of w: its strides are unknown
  EXPECT_EQ(without.for_node_of(g, 1), (std::vector<std::optional<Shape>>{Shape{2}}));
  EXPECT_FALSE(without.for_node_of(g, 2));  // w's type alone says (?)
}

}  // namespace
}  // namespace tgc
