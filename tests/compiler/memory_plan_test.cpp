// Memory planning: which dead buffers the linker hands to later outputs (with gc and
// without), the peak memory the profiler measures with and without the plan and the inplace
// pass, and results identical under every combination of inplace, planning and allow_gc.
#include "compiler/memory_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include <tgc/tgc.h>

#include "backends/reference/reference_backend.h"
#include "compiler/linker.h"
#include "compiler/passes/pipeline.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "ops/shape/dimshuffle.h"
#include "runtime/executor.h"
#include "runtime/profiler.h"

namespace tgc {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

VarPtr exp_of(const VarPtr& x) { return apply1(std::make_shared<Elemwise>(ScalarOpKind::Exp), {x}); }

// x -> exp -> exp -> ... (n nodes), x of static shape `shape` (float64).
Graph exp_chain(int n, std::vector<int64_t> shape) {
  auto x = Variable::input(Type(DType::Float64, std::move(shape)), "x");
  VarPtr y = x;
  for (int i = 0; i < n; ++i) y = exp_of(y);
  return Graph::clone_of({x}, {y});
}

struct Measured {
  std::vector<Tensor> outputs;
  int64_t peak_with_gc = 0, peak_without_gc = 0;
};

// Links `g` and runs it `calls` times on x = 0.001 * (0, 1, 2, ...), profiling memory.
Measured run_linked(const Graph& g, const LinkOptions& options, int calls = 2) {
  LinkedProgram lp = link(g, ReferenceBackend(), options);
  Profiler prof("plan", lp.program);
  std::vector<Tensor> slots(lp.program.num_slots);
  Measured r;
  for (int c = 0; c < calls; ++c) {
    Shape shape;
    for (int64_t d : g.inputs()[0]->type().shape) shape.push_back(d == kUnknownDim ? 100 : d);
    std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.001 * static_cast<double>(i);
    slots[lp.input_slots[0]] = Tensor::from_vector(v, shape);
    execute(lp.program, slots, ExecOptions{.allow_gc = options.allow_gc}, &prof);
    r.outputs.clear();
    for (int s : lp.program.output_slots) {
      r.outputs.push_back(slots[s]);
      slots[s] = Tensor();  // the caller takes the results, as Function does
    }
  }
  r.peak_with_gc = prof.peak_bytes_with_gc();
  r.peak_without_gc = prof.peak_bytes_without_gc();
  return r;
}

TEST(MemoryPlan, WithGcABufferGoesToTheNextThunksOutput) {
  // a = exp(x) dies at thunk 1 and goes to c (thunk 2); b to d.
  Graph g = exp_chain(4, {kUnknownDim});
  LinkedProgram lp = link(g, ReferenceBackend(), {.plan_memory = true, .allow_gc = true});
  const auto& t = lp.program.thunks;
  const int a = t[0].outputs[0], b = t[1].outputs[0];
  EXPECT_THAT(t[0].reuse, IsEmpty());
  EXPECT_THAT(t[1].reuse, IsEmpty());
  EXPECT_THAT(t[2].reuse, ElementsAre(Handover{0, a}));
  EXPECT_THAT(t[3].reuse, ElementsAre(Handover{0, b}));
  EXPECT_THAT(t[1].frees, IsEmpty());  // a is kept for c, not freed
  EXPECT_THAT(t[2].frees, IsEmpty());

  LinkedProgram off = link(g, ReferenceBackend(), {.plan_memory = false, .allow_gc = true});
  for (const Thunk& th : off.program.thunks) EXPECT_THAT(th.reuse, IsEmpty());
}

TEST(MemoryPlan, WithGcThePeakIsNoHigherAndFewerBuffersAreAllocated) {
  Graph g = exp_chain(8, {kUnknownDim});
  Measured plain = run_linked(g, {.plan_memory = false, .allow_gc = true});
  Measured planned = run_linked(g, {.plan_memory = true, .allow_gc = true});
  EXPECT_EQ(planned.peak_with_gc, plain.peak_with_gc);  // 2 buffers of 800 bytes either way
  EXPECT_EQ(plain.peak_with_gc, 1600);
  // Bytes newly allocated in a call: 8 buffers without the plan, 2 with it.
  EXPECT_EQ(plain.peak_without_gc, 8 * 800);
  EXPECT_EQ(planned.peak_without_gc, 2 * 800);
  EXPECT_TRUE(tensors_equal(planned.outputs[0], plain.outputs[0]));
}

TEST(MemoryPlan, WithoutGcSlotsOfDisjointLifetimesShareBuffersAcrossCalls) {
  // allow_gc=false keeps every intermediate for the next call: 8 buffers without the plan;
  // with it, the chain ping-pongs between two (the result takes one of them, and the next
  // call starts again from the buffer the chain's last slot kept).
  Graph g = exp_chain(8, {1000});
  Measured plain = run_linked(g, {.plan_memory = false, .allow_gc = false}, 3);
  Measured planned = run_linked(g, {.plan_memory = true, .allow_gc = false}, 3);
  EXPECT_EQ(plain.peak_without_gc, 8 * 8000);
  EXPECT_LE(planned.peak_without_gc, 3 * 8000);
  EXPECT_LT(planned.peak_without_gc, plain.peak_without_gc);
  EXPECT_TRUE(tensors_equal(planned.outputs[0], plain.outputs[0]));
}

TEST(MemoryPlan, WithoutGcLaterCallsAllocateOnlyTheResult) {
  // The buffers each thunk writes, call after call: with the loops closed, every call but the
  // first writes the same two intermediate buffers again; only the result (which the caller
  // takes) is new.
  Graph g = exp_chain(6, {1000});
  for (bool plan : {false, true}) {
    LinkedProgram lp = link(g, ReferenceBackend(), {.plan_memory = plan, .allow_gc = false});
    std::vector<std::vector<const void*>> written(lp.program.thunks.size());
    for (size_t i = 0; i < lp.program.thunks.size(); ++i) {
      ThunkFn inner = lp.program.thunks[i].run;
      lp.program.thunks[i].run = [inner, &written, i](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
        inner(in, out);
        written[i].push_back(out[0].raw_data());
      };
    }
    std::vector<Tensor> slots(lp.program.num_slots);
    std::vector<Tensor> results;
    for (int call = 0; call < 4; ++call) {
      slots[lp.input_slots[0]] = Tensor::zeros(DType::Float64, {1000});
      execute(lp.program, slots, ExecOptions{.allow_gc = false}, nullptr);
      results.push_back(slots[lp.program.output_slots[0]]);
      slots[lp.program.output_slots[0]] = Tensor();
    }
    std::set<const void*> intermediates;
    for (size_t i = 0; i + 1 < written.size(); ++i) {
      EXPECT_EQ(written[i][1], written[i][2]) << "thunk " << i << " plan=" << plan;
      EXPECT_EQ(written[i][2], written[i][3]) << "thunk " << i << " plan=" << plan;
      intermediates.insert(written[i][3]);
    }
    EXPECT_EQ(intermediates.size(), plan ? 2u : 5u);
  }
}

TEST(MemoryPlan, WithoutGcUnknownSizesAreNotGuessed) {
  Graph g = exp_chain(4, {kUnknownDim});
  LinkedProgram lp = link(g, ReferenceBackend(), {.plan_memory = true, .allow_gc = false});
  for (const Thunk& t : lp.program.thunks) EXPECT_THAT(t.reuse, IsEmpty()) << t.label;
}

TEST(MemoryPlan, ViewsKeepTheirBaseAlive) {
  // a = exp(x); v = a.T is read by the last node: a's buffer is not dead before it (the
  // schedule runs b and c first, then a, v and the sum).
  auto x = Variable::input(Type(DType::Float64, {kUnknownDim, kUnknownDim}), "x");
  VarPtr a = exp_of(x);
  VarPtr v = apply1(std::make_shared<DimShuffle>(std::vector<int>{1, 0}), {a});
  VarPtr b = exp_of(x);
  VarPtr c = exp_of(b);
  VarPtr out = apply1(std::make_shared<Elemwise>(ScalarOpKind::Add), {c, v});
  Graph g = Graph::clone_of({x}, {out});
  LinkedProgram lp = link(g, ReferenceBackend(), {.plan_memory = true, .allow_gc = true});
  int a_slot = -1, v_slot = -1;
  for (const Thunk& t : lp.program.thunks)
    if (t.op_class == "DimShuffle") a_slot = t.inputs[0], v_slot = t.outputs[0];
  ASSERT_GE(a_slot, 0);
  int handovers = 0;
  for (const Thunk& t : lp.program.thunks)
    for (const Handover& h : t.reuse) {
      EXPECT_NE(h.slot, a_slot) << t.label;
      EXPECT_NE(h.slot, v_slot) << t.label;
      ++handovers;
    }
  EXPECT_EQ(handovers, 1);  // b's buffer, dead after c, goes to a
}

TEST(MemoryPlan, InplaceLowersThePeakWithGc) {
  // The same chain through function(): fusion left out so that every exp is its own node.
  Var x = vector("x", DType::Float64);
  Var y = x;
  for (int i = 0; i < 8; ++i) y = exp(y * 0.5);
  auto peak = [&](const std::string& excluding) {
    Function f = function({x}, {y}, {}, {.config = {{"optimizer_excluding", excluding}, {"profile", "true"}}});
    f(Tensor::zeros(DType::Float64, {1000}));
    return std::pair{f.profiler()->peak_bytes_with_gc(), f(Tensor::zeros(DType::Float64, {1000}))[0]};
  };
  auto [with_both, r1] = peak("fuse_elemwise");
  auto [plan_only, r2] = peak("fuse_elemwise:inplace");
  auto [neither, r3] = peak("fuse_elemwise:inplace:memory_plan");
  EXPECT_EQ(with_both, 8000);   // one buffer: every op overwrites its input
  EXPECT_EQ(plan_only, 16000);  // input and output of one op: the plan cannot go below that
  EXPECT_EQ(neither, 16000);
  EXPECT_TRUE(tensors_equal(r1, r3));
  EXPECT_TRUE(tensors_equal(r2, r3));
}

TEST(MemoryPlan, EnabledByTheOptimizerModeAndExcludable) {
  Config c;
  EXPECT_TRUE(memory_plan_enabled(c));
  c.optimizer_excluding = "memory_plan";
  EXPECT_FALSE(memory_plan_enabled(c));
  c.optimizer_excluding = "";
  c.optimizer = "fast_compile";
  EXPECT_FALSE(memory_plan_enabled(c));
  c.optimizer = "none";
  EXPECT_FALSE(memory_plan_enabled(c));
  EXPECT_THAT(optimizer_names(), Contains("memory_plan"));
}

// Every combination of inplace, memory planning and allow_gc gives the same results, call
// after call, on a graph with views, shared values, updates and several outputs.
TEST(MemoryPlan, ResultsIdenticalUnderEveryCombination) {
  RandomState rng(11);
  const Tensor w0 = rng.randn({4, 5});
  const Tensor xs = rng.randn({5, 4}), ys = rng.randn({4});
  const Tensor x_before = xs.copy();
  std::vector<std::vector<Tensor>> results;
  for (const char* excluding : {"", "inplace", "memory_plan", "inplace:memory_plan", "fuse_elemwise",
                                "fuse_elemwise:inplace:memory_plan"})
    for (const char* gc : {"true", "false"}) {
      Shared w = shared(w0, "w");
      Var x = matrix("x", DType::Float64), y = vector("y", DType::Float64);
      Var h = tanh(dot(x, y) + 1);
      Var z = exp(x.T() * 2) - 1;
      Function f = function({x, y}, {h * 2, z, sum(exp(h) * h), x + 0},
                            {{w, w - 0.1 * (dot(x.T(), h).dimshuffle({0, -1}) * exp(w.T()).T())}},
                            {.config = {{"optimizer_excluding", excluding}, {"allow_gc", gc}}});
      std::vector<Tensor> all;
      for (int call = 0; call < 3; ++call)
        for (Tensor& t : f(xs, ys)) all.push_back(t);
      all.push_back(w.get_value());
      results.push_back(all);
    }
  for (size_t k = 1; k < results.size(); ++k) {
    ASSERT_EQ(results[k].size(), results[0].size());
    for (size_t i = 0; i < results[0].size(); ++i)
      EXPECT_TRUE(tensors_allclose(results[k][i], results[0][i], 1e-12, 1e-12)) << "configuration " << k << " value " << i;
  }
  EXPECT_TRUE(tensors_equal(xs, x_before));  // no configuration wrote into the argument
}

}  // namespace
}  // namespace tgc
