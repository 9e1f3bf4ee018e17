// The ScanOp codec, through the graph codec: loops built with scan() (sequences with several
// taps, fed-back results with several taps, per-step outputs, until, n_steps, go_backwards,
// non-sequences, shared variables read and updated, nested loops, gradient loops, the
// optimizer's rewritten loops) are written and read back as loops with the same spec and
// step graph that compute the same values; malformed specs are IOErrors.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <tgc/tgc.h>

#include "backends/backend_registry.h"
#include "compiler/scan/scan_op.h"
#include "compiler/serialize/graph_codec.h"
#include "nested_loops.h"
#include "ops/core/node.h"
#include "support/catch_error.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

// -- graphs ----------------------------------------------------------------------------

// The nodes computing `outputs`, producers first, in an order that depends on the graph's
// structure only (so a graph and its copy list corresponding nodes at the same positions).
std::vector<const Node*> nodes_of(const std::vector<VarPtr>& outputs) {
  std::vector<const Node*> order;
  std::unordered_set<const Node*> seen;
  std::function<void(const Node*)> visit = [&](const Node* n) {
    if (!n || !seen.insert(n).second) return;
    for (const VarPtr& in : n->inputs()) visit(in->owner());
    order.push_back(n);
  };
  for (const VarPtr& out : outputs) visit(out->owner());
  return order;
}

std::vector<const ScanOp*> loops_in(const std::vector<VarPtr>& outputs) {
  std::vector<const ScanOp*> loops;
  for (const Node* n : nodes_of(outputs))
    if (const auto* op = dynamic_cast<const ScanOp*>(&n->op())) loops.push_back(op);
  return loops;
}

// A listing of the graph: every node's op, arguments (numbered), output types and names.
std::string listing(const std::vector<VarPtr>& inputs, const std::vector<VarPtr>& outputs) {
  std::unordered_map<const Variable*, std::string> label;
  for (size_t k = 0; k < inputs.size(); ++k)
    label[inputs[k].get()] = "in" + std::to_string(k) + " '" + inputs[k]->name() + "' " + inputs[k]->type().str();
  auto ref = [&](const VarPtr& v) -> std::string {
    if (auto it = label.find(v.get()); it != label.end()) return it->second;
    switch (v->kind()) {
      case Variable::Kind::Constant: return "constant " + v->type().str() + " " + v->constant_value().str();
      case Variable::Kind::Shared: return "shared '" + v->storage()->name() + "' " + v->type().str();
      case Variable::Kind::Input: return "a free input '" + v->name() + "'";
      case Variable::Kind::Result: break;
    }
    return "a result of no listed node";
  };
  std::string s;
  int next = 0;
  for (const Node* n : nodes_of(outputs)) {
    std::string line;
    for (int k = 0; k < n->num_outputs(); ++k) {
      const Variable* out = n->output_raw(k);
      label[out] = "v" + std::to_string(next++);
      line += (k ? ", " : "") + label[out] + " '" + out->name() + "' " + out->type().str();
    }
    line += " = " + n->op().name() + "(";
    for (size_t i = 0; i < n->inputs().size(); ++i) line += (i ? ", " : "") + ref(n->inputs()[i]);
    s += line + ")\n";
  }
  s += "outputs:";
  for (const VarPtr& out : outputs) s += " " + ref(out) + ";";
  return s;
}

// The outputs' values, each node run by its op's reference perform(). (GraphEval would also
// check infer_shapes, which a loop cannot answer without running.)
std::vector<Tensor> evaluate(const std::vector<VarPtr>& inputs, const std::vector<Tensor>& values,
                             const std::vector<VarPtr>& outputs) {
  std::unordered_map<const Variable*, Tensor> memo;
  for (size_t k = 0; k < inputs.size(); ++k) memo[inputs[k].get()] = values.at(k);
  std::function<Tensor(const Variable*)> value = [&](const Variable* v) -> Tensor {
    if (auto it = memo.find(v); it != memo.end()) return it->second;
    switch (v->kind()) {
      case Variable::Kind::Constant: return memo[v] = v->constant_value();
      case Variable::Kind::Shared: return memo[v] = v->storage()->current();
      case Variable::Kind::Input: ADD_FAILURE() << "no value for the input " << v->label(); return Tensor();
      case Variable::Kind::Result: break;
    }
    const Node* n = v->owner();
    std::vector<Tensor> args;
    for (const VarPtr& in : n->inputs()) args.push_back(value(in.get()));
    std::vector<Tensor> out(n->num_outputs());
    n->op().perform(args, out);
    for (int k = 0; k < n->num_outputs(); ++k) memo[n->output_raw(k)] = out[k];
    return memo.at(v);
  };
  std::vector<Tensor> out;
  for (const VarPtr& o : outputs) out.push_back(value(o.get()));
  return out;
}

std::string spec_str(const ScanSpec& s) {
  std::string out = "name=" + s.name + " sequences=[";
  for (const ScanSequence& q : s.sequences) out += fmt::format("{} {} {}; ", q.name, q.offsets, q.spans_steps);
  out += "] states=[";
  for (const ScanState& st : s.states) out += fmt::format("{} {} {}; ", st.taps, st.keep_history, st.init_is_single);
  out += "] accumulations=[";
  for (const ScanAccumulation& a : s.accumulations) out += fmt::format("{} {}; ", a.name, a.offsets);
  return out + fmt::format("] per_step={} non_sequences={} until={} reverse={} n_steps={} n_steps_input={} "
                           "steps_from={}-{} truncate={} truncate_gradient={}",
                           s.num_outputs_per_step, s.num_non_sequences, s.has_until, s.reverse,
                           s.n_steps ? std::to_string(*s.n_steps) : "none", s.n_steps_input, s.steps_from_input,
                           s.steps_from_sub, s.truncate, s.truncate_gradient);
}

void expect_same_loop(const ScanOp& want, const ScanOp& got) {
  SCOPED_TRACE(want.name());
  EXPECT_EQ(got.name(), want.name());
  EXPECT_TRUE(got.spec() == want.spec()) << spec_str(got.spec()) << "\nexpected\n" << spec_str(want.spec());
  EXPECT_EQ(listing(got.inner_inputs(), got.inner_outputs()), listing(want.inner_inputs(), want.inner_outputs()));
  const std::vector<const ScanOp*> w = loops_in(want.inner_outputs()), g = loops_in(got.inner_outputs());
  ASSERT_EQ(g.size(), w.size());
  for (size_t i = 0; i < w.size(); ++i) expect_same_loop(*w[i], *g[i]);
}

struct RoundTrip {
  GraphWriter writer;
  Json written;
  std::unique_ptr<GraphReader> reader;
  OpReadContext::Subgraph read;
};

// Writes the graph from `inputs` to `outputs`, prints and parses the JSON as a file holds
// it, and reads it back.
std::unique_ptr<RoundTrip> round_trip(const std::vector<VarPtr>& inputs, const std::vector<VarPtr>& outputs) {
  auto rt = std::make_unique<RoundTrip>();
  rt->written = Json::parse(rt->writer.write(inputs, outputs).dump());
  const GraphWriter& w = rt->writer;
  rt->reader = std::make_unique<GraphReader>(Json::parse(w.shared_table().dump()),
                                             [&w](size_t i) { return std::string_view(w.blobs().at(i)); });
  rt->read = rt->reader->read(rt->written);
  return rt;
}

// The loops of the graph come back with the same spec and step, and the graph read back
// computes the same values: by each op's perform() exactly, and compiled.
std::vector<const ScanOp*> expect_loops_round_trip(const std::vector<VarPtr>& inputs, const std::vector<VarPtr>& outputs,
                                                   const std::vector<Tensor>& values) {
  std::unique_ptr<RoundTrip> rt = round_trip(inputs, outputs);
  const std::vector<const ScanOp*> want = loops_in(outputs), got = loops_in(rt->read.outputs);
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) expect_same_loop(*want[i], *got[i]);
  EXPECT_EQ(listing(rt->read.inputs, rt->read.outputs), listing(inputs, outputs));

  const std::vector<Tensor> expected = evaluate(inputs, values, outputs);
  const std::vector<Tensor> read_values = evaluate(rt->read.inputs, values, rt->read.outputs);
  for (size_t k = 0; k < expected.size(); ++k) {
    SCOPED_TRACE("output " + std::to_string(k));
    test::expect_same(read_values[k], expected[k]);
  }
  std::vector<Var> in_vars, out_vars;
  for (const VarPtr& v : rt->read.inputs) in_vars.emplace_back(v);
  for (const VarPtr& v : rt->read.outputs) out_vars.emplace_back(v);
  ForcedBackendForTests reference("reference");
  Function f = function(in_vars, out_vars);
  const std::vector<Tensor> compiled = f(values);
  for (size_t k = 0; k < expected.size(); ++k) {
    SCOPED_TRACE("compiled output " + std::to_string(k));
    test::expect_close(compiled[k], expected[k]);
  }
  return want;
}

Tensor values(RandomState& rng, const Shape& shape, double scale = 1.0) { return rng.uniform(-scale, scale, shape); }

// -- loops -----------------------------------------------------------------------------

TEST(ScanCodec, SequencesWithTapsFedBackResultsPerStepOutputsAndNonSequences) {
  Var x = matrix("x", DType::Float64), y = vector("y", DType::Float64);
  Var h0 = matrix("h0", DType::Float64), s0 = scalar("s0", DType::Float64), w = matrix("w", DType::Float64);
  ScanResult r = scan(
      [&](const std::vector<Var>& a) {  // x[t-1], x[t+1], y[t], h[t-2], h[t-1], s[t-1], w
        Var h = tanh(dot(a[0] + a[1], a[6]) * 0.1 + a[3] * 0.5 + a[4] * a[2]);
        Var s = a[5] + h.sum();
        return ScanStep{{h, s, a[2] * 2.0 + s}};
      },
      {Sequence(x, {-1, 1}), y}, {OutputInfo(h0, {-2, -1}), OutputInfo(s0), OutputInfo::none()}, {w},
      {.truncate_gradient = 3, .name = "mixed"});
  RandomState rng(1);
  const std::vector<const ScanOp*> loops =
      expect_loops_round_trip(to_ptrs({x, y, h0, s0, w}), to_ptrs(r.outputs),
                              {values(rng, {6, 3}), values(rng, {6}), values(rng, {2, 3}), values(rng, {}),
                               values(rng, {3, 3})});
  ASSERT_EQ(loops.size(), 1u);
  const ScanSpec& spec = loops[0]->spec();
  EXPECT_EQ(spec.name, "mixed");
  EXPECT_EQ(spec.sequences.size(), 2u);
  EXPECT_FALSE(spec.states.at(0).init_is_single);
  EXPECT_EQ(spec.num_outputs_per_step, 1);
  EXPECT_EQ(spec.truncate_gradient, 3);
}

TEST(ScanCodec, UntilAndStepCounts) {
  Var x0 = scalar("x0", DType::Float64);
  ScanResult until = scan(
      [](const std::vector<Var>& a) {
        Var next = a[0] * 2.0;
        return ScanStep({next}, {}, next > 20.0);
      },
      {}, {OutputInfo(x0)}, {}, {.n_steps = 100, .name = "doubling"});
  const std::vector<const ScanOp*> loops =
      expect_loops_round_trip(to_ptrs({x0}), to_ptrs(until.outputs), {Tensor::scalar(1.0)});
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_TRUE(loops[0]->spec().has_until);
  EXPECT_EQ(loops[0]->spec().n_steps.value_or(-1), 100);

  Var n = scalar("n", DType::Int64);
  ScanResult counted = scan([](const std::vector<Var>& a) { return ScanStep{a[0] + 1.0}; }, {}, {OutputInfo(x0)}, {},
                            {.n_steps_var = n});
  const std::vector<const ScanOp*> symbolic = expect_loops_round_trip(
      to_ptrs({n, x0}), to_ptrs(counted.outputs), {Tensor::scalar(int64_t{3}), Tensor::scalar(0.5)});
  ASSERT_EQ(symbolic.size(), 1u);
  EXPECT_TRUE(symbolic[0]->spec().n_steps_input);
}

TEST(ScanCodec, GoBackwards) {
  Var x = vector("x", DType::Float64), z = vector("z", DType::Float64);
  ScanResult back = scan([](const std::vector<Var>& a) { return ScanStep{{a[0] * a[1] + a[2], a[1] - 1.0}}; }, {x, z},
                         {OutputInfo(zeros_like(x[0])), OutputInfo::none()}, {}, {.go_backwards = true});
  RandomState rng(2);
  // The builder reverses the sequences' rows (the loop's own `reverse` is the gradient's).
  expect_loops_round_trip(to_ptrs({x, z}), to_ptrs(back.outputs), {values(rng, {5}), values(rng, {5})});
}

TEST(ScanCodec, SharedVariablesReadAndUpdatedInsideTheStep) {
  Shared scale = shared(Tensor::scalar(3.0), "scale");
  Shared count = shared(Tensor::scalar(10.0), "count");
  Var x = vector("x", DType::Float64);
  ScanResult r = scan(
      [&](const std::vector<Var>& a) { return ScanStep({a[0] * count * scale}, {{count, count + 1.0}}); }, {x});
  ASSERT_EQ(r.updates.size(), 1u);
  std::vector<VarPtr> outputs = to_ptrs(r.outputs);
  outputs.push_back(r.updates[0].second.ptr());
  expect_loops_round_trip(to_ptrs({x}), outputs, {Tensor::from_vector(std::vector<double>{1, 2, 3})});
  // The file holds each shared variable once, with its value.
  std::unique_ptr<RoundTrip> rt = round_trip(to_ptrs({x}), outputs);
  ASSERT_EQ(rt->reader->num_shared(), 2u);
  std::vector<std::string> names;
  for (size_t i = 0; i < rt->reader->num_shared(); ++i) names.push_back(rt->reader->shared(i)->name());
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("scale", "count"));
}

TEST(ScanCodec, NestedLoops) {
  Var m = matrix("m", DType::Float64);
  ScanResult outer = test::nested_row_sums(m);
  const std::vector<const ScanOp*> loops = expect_loops_round_trip(
      to_ptrs({m}), to_ptrs(outer.outputs), {Tensor::from_vector(std::vector<double>{1, 2, 3, 4, 5, 6}, {3, 2})});
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops_in(loops[0]->inner_outputs()).size(), 1u);  // compared by expect_same_loop too
}

// The gradient loop: reversed, accumulations (a sequence's gradient), windows (carries),
// step counts from a history's length, truncation.
TEST(ScanCodec, GradientLoops) {
  Var x = matrix("x", DType::Float64), h0 = vector("h0", DType::Float64), w = matrix("w", DType::Float64);
  ScanResult r = scan([&](const std::vector<Var>& a) { return ScanStep{tanh(dot(a[0] + a[1], w) + a[2])}; },
                      {Sequence(x, {0, 1})}, {OutputInfo(h0)}, {}, {.truncate_gradient = 2});
  Var cost = (r[0] * r[0]).sum();
  std::vector<Var> g = grad(cost, {x, h0, w});
  RandomState rng(4);
  const std::vector<const ScanOp*> loops =
      expect_loops_round_trip(to_ptrs({x, h0, w}), to_ptrs({cost, g[0], g[1], g[2]}),
                              {values(rng, {5, 3}), values(rng, {3}), values(rng, {3, 3}, 0.5)});
  bool accumulation = false, window = false, truncated = false, spans = false, reversed = false;
  for (const ScanOp* op : loops) {
    reversed = reversed || op->spec().reverse;
    accumulation = accumulation || !op->spec().accumulations.empty();
    truncated = truncated || op->spec().truncate >= 0;
    spans = spans || op->spec().steps_from_input >= 0;
    for (const ScanState& st : op->spec().states) window = window || !st.keep_history;
    for (const ScanSequence& s : op->spec().sequences) spans = spans || s.spans_steps;
  }
  EXPECT_TRUE(accumulation);
  EXPECT_TRUE(window);
  EXPECT_TRUE(truncated);
  EXPECT_TRUE(spans);
  EXPECT_TRUE(reversed);
}

// Loops as the optimizer leaves them (the save-memory rewrite keeps only the last rows).
TEST(ScanCodec, OptimizedLoops) {
  Var x = tensor3("x", DType::Float64), h0 = matrix("h0", DType::Float64), w = matrix("w", DType::Float64);
  ScanResult r = scan([&](const std::vector<Var>& a) { return ScanStep{tanh(dot(a[0], w) + a[1])}; }, {x},
                      {OutputInfo(h0)});
  ForcedBackendForTests reference("reference");
  Function last = function({x, h0, w}, {r[0][-1]});
  const Graph& graph = last.graph();
  RandomState rng(3);
  const std::vector<const ScanOp*> loops = expect_loops_round_trip(
      graph.inputs(), graph.outputs(), {values(rng, {4, 2, 3}), values(rng, {2, 3}), values(rng, {3, 3})});
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_FALSE(loops[0]->spec().states[0].keep_history);
}

// -- malformed files -------------------------------------------------------------------

TEST(ScanCodec, MalformedSpecsAreIOErrors) {
  Var x = vector("x", DType::Float64), c = scalar("c", DType::Float64);
  ScanResult r = scan([](const std::vector<Var>& a) { return ScanStep{a[0] * a[2] + a[1]}; }, {x},
                      {OutputInfo(zeros_like(x[0]))}, {c});
  std::unique_ptr<RoundTrip> rt = round_trip(to_ptrs({x, c}), to_ptrs(r.outputs));
  const Json& nodes = rt->written.at("nodes");
  size_t at = 0;
  while (at < nodes.size() && nodes[at].at("op").at("op") != "ScanOp") ++at;
  ASSERT_LT(at, nodes.size());
  auto io_error_with = [&](const std::function<void(Json&)>& damage) -> std::string {
    Json j = rt->written;
    damage(j["nodes"][at]["op"]["fields"]);
    return test::catch_error<IOError>([&] { rt->reader->read(j); }).what();
  };
  EXPECT_NO_THROW(rt->reader->read(rt->written));
  EXPECT_THAT(io_error_with([](Json& f) { f["states"][0]["taps"] = {1}; }), HasSubstr("taps"));
  EXPECT_THAT(io_error_with([](Json& f) { f["states"][0]["taps"] = {-2, -1}; }), HasSubstr("single initial value"));
  EXPECT_THAT(io_error_with([](Json& f) { f["sequences"][0]["offsets"] = {1, 0}; }), HasSubstr("offsets"));
  EXPECT_THAT(io_error_with([](Json& f) { f["sequences"][0]["offsets"] = Json::array(); }), HasSubstr("offsets"));
  EXPECT_THAT(io_error_with([](Json& f) { f["num_non_sequences"] = 2; }), HasSubstr("layout"));
  EXPECT_THAT(io_error_with([](Json& f) { f["num_non_sequences"] = -1; }), HasSubstr("negative"));
  EXPECT_THAT(io_error_with([](Json& f) { f["steps_from_input"] = 9; }), HasSubstr("steps from input 9"));
  // Node input 2 is the scalar non-sequence c: no length to count steps by.
  EXPECT_THAT(io_error_with([](Json& f) { f["steps_from_input"] = 2; }), HasSubstr("may be a scalar"));
  EXPECT_THAT(io_error_with([](Json& f) {
                f["has_until"] = true;
                f["reverse"] = true;
              }),
              HasSubstr("until"));
  EXPECT_THAT(io_error_with([](Json& f) { f["n_steps"] = -4; }), HasSubstr("n_steps is -4"));
  EXPECT_THAT(io_error_with([](Json& f) { f["n_steps"] = "many"; }), HasSubstr("the field 'n_steps' holds no"));
  EXPECT_THAT(io_error_with([](Json& f) { f.erase("reverse"); }), HasSubstr("reverse"));
  EXPECT_THAT(io_error_with([](Json& f) { f["sequences"] = Json::array(); }), HasSubstr("no step count"));
  EXPECT_THAT(io_error_with([](Json& f) { f["step"]["inputs"] = Json::array(); }), HasSubstr("the step has 0 inputs"));
}

}  // namespace
}  // namespace tgc
