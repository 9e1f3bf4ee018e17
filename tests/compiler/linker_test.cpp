// The linker: slots, thunk order and metadata, last-use points.
#include "compiler/linker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/reference/reference_backend.h"
#include "ops/core/apply.h"
#include "runtime/executor.h"
#include "support/test_ops.h"

namespace tgc {
namespace {

using testing::AddConst;

VarPtr add_const(const VarPtr& x, double c) { return apply1(std::make_shared<AddConst>(c), {x}); }

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

}  // namespace
}  // namespace tgc
