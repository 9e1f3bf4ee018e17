// The inplace pass: which inputs a node may overwrite (intermediates dying at it, of the
// output's dtype and shape; a shared variable whose update it computes, when nothing reads the
// old value after it and its errors are all raised by Op::validate) and which never (graph
// inputs, other shared values, constants, graph outputs, values read later, views of any of
// these, broadcast inputs), and that compiled functions give identical results with and
// without it.
#include "compiler/passes/inplace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/backend_registry.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/opencl/opencl_backend.h"
#include "canon_test_util.h"
#include "compiler/kernel/composite_op.h"
#include "compiler/passes/fuse_elemwise.h"

namespace tgc {
namespace {

using ::testing::ElementsAre;
using test::expect_same_results;
using test::op_names;

constexpr DType f64 = DType::Float64;

test::PassRun run_inplace(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  return test::run_pass(inplace, inputs, outputs);
}

TEST(Inplace, AChainOfElementwiseOpsRunsInOneBuffer) {
  Var x = vector("x", f64);
  auto r = run_inplace({x}, {exp(log(exp(x)) + 1)});
  EXPECT_TRUE(r.changed);
  // exp(x) may not overwrite the argument x; everything after it overwrites its input.
  EXPECT_THAT(op_names(r.after), ElementsAre("Elemwise{exp}", "Elemwise{log,inplace}", "Elemwise{add,inplace}",
                                             "Elemwise{exp,inplace}"));
  expect_same_results(r, 0);
}

TEST(Inplace, NeverOverwritesArgumentsSharedValuesOrConstants) {
  Var x = vector("x", f64);
  Shared w = shared(Tensor::from_vector(std::vector<double>{1, 2, 3}), "w");
  Var c = constant(Tensor::from_vector(std::vector<double>{4, 5, 6}));
  auto r = run_inplace({x}, {x + 1, w * 2, exp(c), x + w});
  EXPECT_FALSE(r.changed);
}

TEST(Inplace, NeverOverwritesAGraphOutputOrAValueReadLater) {
  Var x = vector("x", f64);
  Var t = exp(x);
  Var u = t + 1;  // t is read again below: not here
  auto r = run_inplace({x}, {t * u, exp(x) - 1, exp(exp(x) * 3)});
  // t + 1 may not overwrite t (read again by t * u, which overwrites t); each other exp(x)
  // is a node of its own whose reader overwrites it.
  std::vector<std::string> names = op_names(r.after);
  EXPECT_EQ(std::count(names.begin(), names.end(), "Elemwise{add}"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "Elemwise{mul,inplace}"), 2);
  EXPECT_EQ(std::count(names.begin(), names.end(), "Elemwise{sub,inplace}"), 1);
  expect_same_results(r, 0);

  // A value that is itself returned is never overwritten by its reader.
  Var a = exp(x);
  auto r2 = run_inplace({x}, {a, a + 1});
  EXPECT_FALSE(r2.changed);
}

TEST(Inplace, ViewsShareTheirBasesFate) {
  Var m = matrix("m", f64);
  Var t = exp(m);
  auto r = run_inplace({m}, {m.T() + 1, t.T() * 2, t + t.T()});
  std::vector<std::string> names = op_names(r.after);
  // m.T is a view of the argument: never. t.T() * 2: t is read later by t + t.T(): never.
  // t + t.T() reads two views of one buffer: never. Nothing changes.
  EXPECT_FALSE(r.changed) << r.after.str();

  Var t2 = exp(m);
  auto r3 = run_inplace({m}, {t2.T() * 2});
  // The whole buffer dies at the multiplication: allowed (at run time a transposed buffer is
  // not the output's layout, so the op allocates; the decision is still safe).
  EXPECT_THAT(op_names(r3.after), ElementsAre("Elemwise{exp}", "DimShuffle{1,0}", "Elemwise{mul,inplace}"));
  expect_same_results(r3, 0);
}

TEST(Inplace, DtypeRankAndBroadcastMustFit) {
  Var m = matrix("m", f64), row = tensor("row", f64, {1, 3}), v = vector("v", DType::Float32);
  auto r = run_inplace({m, row, v}, {exp(row) + exp(m), cast(exp(v), f64), exp(v) > 0.5f, exp(v) + exp(m)});
  std::vector<std::string> names = op_names(r.after);
  // exp(row) (1, 3) broadcasts: the add overwrites exp(m) (input 1) instead; a cast or a
  // comparison changes the dtype; a float32 vector cannot hold a float64 matrix.
  EXPECT_EQ(std::count(names.begin(), names.end(), "Elemwise{add,inplace=1}"), 2) << r.after.str();
  EXPECT_EQ(std::count(names.begin(), names.end(), "Elemwise{Cast{float64}}"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "Elemwise{gt}"), 1);
  expect_same_results(r, 0);
}

TEST(Inplace, GemmWritesIntoADyingAddend) {
  Var x = matrix("x", f64), y = matrix("y", f64), c = matrix("c", f64);
  Function f = function({x, y, c}, {dot(x, y) + exp(c)});
  std::vector<std::string> ops = f.toposort();
  ASSERT_FALSE(ops.empty());
  EXPECT_THAT(ops.back(), ::testing::StartsWith("Gemm{inplace}"));
}

// Functions compiled with and without the inplace pass give bit-identical results, and the
// arguments and shared values they read are left as they were.
TEST(Inplace, CompiledResultsIdenticalAndInputsUntouched) {
  RandomState rng(7);
  Var x = matrix("x", f64), y = matrix("y", f64);
  Shared w = shared(rng.randn({4, 3}), "w");
  std::vector<Var> outs{exp(x * 2) + 1, sigmoid(x + w) * tanh(y), sum(exp(y) * 3, {0})};
  Updates updates{{w, w - 0.1 * (exp(w) * x)}};
  // Fusion left out: its Composite nodes do not offer inplace variants (yet), Elemwise does.
  Function with = function({x, y}, outs, updates, {.config = {{"optimizer_excluding", "fuse_elemwise"}}});
  Function without = function({x, y}, outs, updates, {.config = {{"optimizer_excluding", "fuse_elemwise:inplace"}}});
  bool any_inplace = false;
  for (const std::string& s : with.toposort()) any_inplace = any_inplace || s.find("inplace") != std::string::npos;
  EXPECT_TRUE(any_inplace);
  Tensor xs = rng.randn({4, 3}), ys = rng.randn({4, 3});
  const Tensor x_copy = xs.copy(), y_copy = ys.copy();
  const Tensor w0 = w.get_value();
  const Tensor w_borrowed = w.get_value(/*borrow=*/true);
  std::vector<Tensor> a = with(xs, ys);
  w.set_value(w0);
  std::vector<Tensor> b = without(xs, ys);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(tensors_equal(a[i], b[i])) << "output " << i;
  EXPECT_TRUE(tensors_equal(xs, x_copy));
  EXPECT_TRUE(tensors_equal(ys, y_copy));
  EXPECT_TRUE(tensors_equal(w_borrowed, w0));  // the old value a caller borrowed is unchanged
}

// The inplace pass on the graph of `outputs` followed by the updates' values, with
// PassContext::updates naming their variables; `device` places every node on a GPU first.
test::PassRun run_with_updates(const std::vector<Var>& inputs, std::vector<Var> outputs, const Updates& updates,
                               bool device = false) {
  PassContext ctx;
  ctx.updates.assign(outputs.size(), nullptr);
  for (const auto& [var, value] : updates) {
    outputs.push_back(value);
    ctx.updates.push_back(var.ptr()->storage().get());
  }
  test::PassRun r;
  r.before = Graph::clone_of(to_ptrs(inputs), to_ptrs(outputs));
  r.after = Graph::clone_of(r.before.inputs(), r.before.outputs());
  if (device)
    for (Node* n : r.after.toposort()) n->set_placement(DeviceKind::Cuda);
  r.changed = inplace(r.after, ctx);
  verify_graph(r.after, "inplace");
  return r;
}

// The op of the node computing graph output o.
std::string op_of(const test::PassRun& r, size_t o) { return r.after.outputs()[o]->owner()->op().name(); }

TEST(Inplace, AnUpdateIsWrittenIntoItsVariable) {
  Shared w = shared(Tensor::from_vector(std::vector<double>{1, 2}), "w");
  Shared m = shared(Tensor::from_vector(std::vector<double>{1, 2, 3, 4}).reshape({2, 2}), "m");
  Shared e = shared(Tensor::from_vector(std::vector<double>{1, 2, 3}), "e");
  Var x = vector("x", f64), idx = vector("idx", DType::Int64);
  auto r = run_with_updates({x, idx}, {}, {{w, w - x}, {e, inc_subtensor(e[idx], 1.0)}, {m, m * 2}});
  EXPECT_EQ(op_of(r, 0), "Elemwise{sub,inplace}");
  EXPECT_EQ(op_of(r, 1), "IncSubtensor{Inc;array;inplace}");  // on the host: validate reads idx
  EXPECT_EQ(op_of(r, 2), "Elemwise{mul,inplace}");
  // Without PassContext::updates no variable is ever overwritten.
  auto plain = run_inplace({x, idx}, {w - x, inc_subtensor(e[idx], 1.0)});
  EXPECT_FALSE(plain.changed) << plain.after.str();
}

TEST(Inplace, AnUpdateNeverOverwritesAnOldValueReadLaterOrReturned) {
  Shared a = shared(Tensor::from_vector(std::vector<double>{1, 2}), "a");
  Shared b = shared(Tensor::from_vector(std::vector<double>{3, 4}), "b");
  Shared c = shared(Tensor::from_vector(std::vector<double>{5, 6}), "c");
  Shared d = shared(Tensor::from_vector(std::vector<double>{7, 8}), "d");
  Var x = vector("x", f64);
  Var d_new = d - x;
  auto r = run_with_updates({x}, {c, d_new},
                            {{a, a - x},         // a is read again below, by b's update
                             {b, b * a},         // b: fine (it is the last node reading b)
                             {c, c + x},         // c's old value is returned
                             {d, d_new}});       // d's new value is also a result
  EXPECT_EQ(op_of(r, 2), "Elemwise{sub}") << r.after.str();
  EXPECT_EQ(op_of(r, 3), "Elemwise{mul,inplace}");
  EXPECT_EQ(op_of(r, 4), "Elemwise{add}");
  EXPECT_EQ(op_of(r, 5), "Elemwise{sub}");
}

TEST(Inplace, AnUpdateThatCanRaiseAfterWritingIsNotInPlace) {
  // Integer floor division raises on a zero divisor, element by element.
  Shared n = shared(Tensor::from_vector(std::vector<int64_t>{6, 8}), "n");
  Var k = vector("k", DType::Int64);
  auto r = run_with_updates({k}, {}, {{n, floor_div(n, k)}});
  EXPECT_FALSE(r.changed) << r.after.str();

  // On a device, an increment's index arrays are read by its kernels only, which write the
  // rows of good indices: in place only when a gather with the same index checked them.
  Shared emb = shared(Tensor::from_vector(std::vector<double>{1, 2, 3, 4, 5, 6}).reshape({3, 2}), "emb");
  Var idx = vector("idx", DType::Int64), other = vector("other", DType::Int64), v = matrix("v", f64);
  auto unchecked = run_with_updates({idx, v}, {}, {{emb, inc_subtensor(emb[idx], v)}}, /*device=*/true);
  EXPECT_FALSE(unchecked.changed) << unchecked.after.str();
  auto checked_elsewhere = run_with_updates({idx, other, v}, {sum(take(emb, other, 0))},
                                            {{emb, inc_subtensor(emb[idx], v)}}, /*device=*/true);
  EXPECT_EQ(op_of(checked_elsewhere, 1), "IncSubtensor{Inc;array}") << checked_elsewhere.after.str();
  auto checked = run_with_updates({idx, v}, {sum(emb[idx])}, {{emb, inc_subtensor(emb[idx], v)}}, /*device=*/true);
  EXPECT_EQ(op_of(checked, 1), "IncSubtensor{Inc;array;inplace}") << checked.after.str();
}

// Fusion then inplace, as fast_run orders them.
bool fuse_then_inplace(Graph& g, const PassContext& ctx) {
  const bool fused = fuse_elemwise(g, ctx);
  return inplace(g, ctx) || fused;
}

TEST(Inplace, CompositeWritesIntoADyingInput) {
  Var x = matrix("x", f64), w = matrix("w", f64);
  Var t = dot(x, w);  // a buffer of the function's own, dying at the kernel below
  auto r = test::run_pass(fuse_then_inplace, {x, w}, {exp(t) * 2.0 + t});
  std::vector<std::string> names = op_names(r.after);
  ASSERT_EQ(names.size(), 2u) << r.after.str();
  EXPECT_EQ(names[0], "Dot");
  EXPECT_THAT(names[1], ::testing::StartsWith("Composite{"));
  EXPECT_THAT(names[1], ::testing::EndsWith("}{inplace=[o0<-i0]}"));
  EXPECT_EQ(r.after.outputs()[0]->owner()->op().inplace_input(0), 0);
  expect_same_results(r, 0);
}

TEST(Inplace, CompositeNeverOverwritesReductionOrBroadcastInputs) {
  Var x = matrix("x", f64), w = matrix("w", f64), v = vector("v", f64), row = tensor("row", f64, {1, 3});
  Var t = dot(x, w);
  Var u = dot(v, w);         // a vector: broadcast against the matrix
  Var s = dot(row, w.T());   // (1, ?): a known 1 may stretch
  auto r = test::run_pass(fuse_then_inplace, {x, w, v, row},
                          {sum(exp(t), {1}),           // a reduction kernel reads t over a wider space
                           exp(u) + dot(x, w) * 2.0,   // may overwrite dot(x, w), never u
                           exp(s) + exp(x)});          // never s
  int inplace_outputs = 0;
  for (Node* n : r.after.toposort()) {
    const auto* c = dynamic_cast<const Composite*>(&n->op());
    if (!c) continue;
    for (int k = 0; k < n->num_outputs(); ++k) {
      const int j = c->inplace_input(k);
      if (j < 0) continue;
      ++inplace_outputs;
      EXPECT_FALSE(c->kernel().is_reduction()) << n->describe();
      const Type& in = n->inputs()[j]->type();
      EXPECT_EQ(in.ndim(), 2) << n->describe();
      EXPECT_NE(in.shape[0], 1) << n->describe();
    }
  }
  EXPECT_EQ(inplace_outputs, 1) << r.after.str();  // only into dot(x, w)
  expect_same_results(r, 0);
}

TEST(Inplace, CompositeMakeInplaceRefusesWhatItCannotDo) {
  Var a = matrix("a", f64), b = matrix("b", DType::Int64), c = matrix("c", f64);
  auto r = test::run_pass(fuse_elemwise, {a, c}, {exp(a) + c});
  const auto* comp = dynamic_cast<const Composite*>(&r.after.outputs()[0]->owner()->op());
  ASSERT_NE(comp, nullptr) << r.after.str();
  EXPECT_NE(comp->make_inplace(0, 0), nullptr);
  EXPECT_EQ(comp->make_inplace(1, 0), nullptr);   // no output 1
  EXPECT_EQ(comp->make_inplace(0, 5), nullptr);   // no input 5
  auto once = std::dynamic_pointer_cast<const Composite>(comp->make_inplace(0, 0));
  ASSERT_NE(once, nullptr);
  EXPECT_EQ(once->make_inplace(0, 1), nullptr);   // output 0 already overwrites input 0
  EXPECT_FALSE(once->equals(*comp));
  EXPECT_NE(once->name(), comp->name());

  // An integer floor division can raise (division by zero): the compiled kernel then hands
  // over to the interpreter, which must read the inputs intact.
  auto div = test::run_pass(fuse_elemwise, {b}, {floor_div(b, b - 1)});
  const auto* d = dynamic_cast<const Composite*>(&div.after.outputs()[0]->owner()->op());
  ASSERT_NE(d, nullptr) << div.after.str();
  EXPECT_EQ(d->make_inplace(0, 0), nullptr);
}

// fast_run as function() runs it: fused kernels overwrite dying inputs, results stay
// bit-identical to the same function without the inplace pass, on the LLVM backend (when
// built) and on the interpreter, and arguments and shared values stay untouched.
TEST(Inplace, FusedKernelsComputeInPlaceWithIdenticalResults) {
  RandomState rng(11);
  Var x = matrix("x", f64), y = matrix("y", f64);
  Shared w = shared(rng.randn({3, 3}), "w");
  Var h = dot(x, w);
  std::vector<Var> outs{tanh(h) * 2.0 - h, sum(exp(dot(h, w)) + 1.0), sigmoid(dot(y, w)) * y};
  Updates updates{{w, w - 0.1 * dot(x.T(), tanh(h))}};
  std::vector<std::string> backends{"reference"};
  if (llvm_backend_available()) backends.push_back("llvm");
  for (const std::string& backend : backends) {
    ForcedBackendForTests forced(backend);
    const Tensor w0 = w.get_value();
    Function with = function({x, y}, outs, updates);
    Function without = function({x, y}, outs, updates, {.config = {{"optimizer_excluding", "inplace"}}});
    int inplace_kernels = 0;
    for (const std::string& op : with.toposort())
      inplace_kernels += op.starts_with("Composite") && op.find("inplace") != std::string::npos;
    EXPECT_GE(inplace_kernels, 1) << backend;
    Tensor xs = rng.randn({4, 3}), ys = rng.randn({4, 3});
    const Tensor x_copy = xs.copy(), y_copy = ys.copy();
    for (int call = 0; call < 2; ++call) {  // the second call reuses last call's buffers
      w.set_value(w0);
      std::vector<Tensor> a = with(xs, ys);
      const Tensor wa = w.get_value();
      w.set_value(w0);
      std::vector<Tensor> b = without(xs, ys);
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(tensors_equal(a[i], b[i])) << backend << " output " << i;
      EXPECT_TRUE(tensors_equal(wa, w.get_value())) << backend << " update";
    }
    EXPECT_TRUE(tensors_equal(xs, x_copy));
    EXPECT_TRUE(tensors_equal(ys, y_copy));
    w.set_value(w0);
  }
}

// The conformance suite's logistic-regression step, whose gradient came out wrong when
// multi-output kernels first went in place: fast_run now makes multi-output kernels that
// write into dying inputs (each output into an input it reads), and every result is
// bit-identical to the same function without the inplace pass, on the interpreter, on the
// LLVM backend and on OpenCL where present, over calls that reuse the previous call's buffers.
TEST(Inplace, MultiOutputKernelsComputeInPlaceWithIdenticalResults) {
  RandomState rng(61);
  Var x = matrix("x", f64), y = vector("y", f64), w = vector("w", f64), b = scalar("b", f64);
  Var p = sigmoid(dot(x, w) + b);
  Var cost = mean(-y * log(p) - (1.0 - y) * log(1.0 - p)) + 0.01 * sum(square(w));
  std::vector<Var> g = grad(cost, {w, b});
  std::vector<Var> outs{cost, g[0], g[1], w - 0.1 * g[0]};
  std::vector<std::string> backends{"reference"};
  if (llvm_backend_available()) backends.push_back("llvm");
  if (opencl_available()) backends.push_back("opencl");  // the GPU Composite thunk, on PoCL
  const std::vector<Tensor> args{rng.randn({40, 7}), rng.uniform(0, 1, {40}), rng.randn({7}), Tensor::scalar(0.25)};
  for (const std::string& backend : backends) {
    ForcedBackendForTests forced(backend);
    const std::string device = backend == "opencl" ? "opencl" : "cpu";
    // Without rematerialize: its copies leave one multi-output kernel fewer in this graph.
    Function with = function({x, y, w, b}, outs, {}, {.config = {{"device", device}, {"optimizer_excluding", "rematerialize"}}});
    Function without = function({x, y, w, b}, outs, {},
                                {.config = {{"device", device}, {"optimizer_excluding", "inplace:rematerialize"}}});
    int multi_output_inplace = 0;
    for (Node* n : with.graph().toposort()) {
      const auto* c = dynamic_cast<const Composite*>(&n->op());
      if (!c || n->num_outputs() < 2) continue;
      for (int k = 0; k < n->num_outputs(); ++k) multi_output_inplace += c->inplace_input(k) >= 0;
    }
    EXPECT_GE(multi_output_inplace, 2) << backend << "\n" << with.graph().str();
    for (int call = 0; call < 2; ++call) {
      std::vector<Tensor> a = with(args[0], args[1], args[2], args[3]);
      std::vector<Tensor> e = without(args[0], args[1], args[2], args[3]);
      ASSERT_EQ(a.size(), e.size());
      for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(tensors_equal(a[i], e[i])) << backend << " output " << i;
    }
  }
}

}  // namespace
}  // namespace tgc
