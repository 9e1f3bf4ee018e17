// The optimizer's property test: thousands of random graphs (tests/support/random_graph.h),
// each compiled with the default optimizer (fast_run) and with optimizer=none, must give the
// same results on the same inputs: same dtypes and shapes, integers and bools exactly,
// floats within a tolerance suited to their type (NaN matches NaN, infinities must match).
//
// Some rewrites change results on purpose: stabilisation (finite where the naive formula
// overflows), the canonical rules documented to assume a domain (exp(log(x)) -> x assumes
// x >= 0, x - x -> 0 assumes x finite, ...), and float32 casting (a float64 constant that
// meets float32 values is narrowed, so that arithmetic happens in float32). So each seed is
// checked twice: fast_run without those rewrites (kValueChangingRewrites) on every seed,
// with each output's own tolerance; and the whole fast_run pipeline wherever the graph as
// built computes no inf or NaN anywhere (there the domain rules are exact), with float32's
// tolerance for every float output of a graph that computes in float32 anywhere. Every
// fourth seed also checks fast_compile, both ways. A failure prints the seed and both
// graphs; random_graph(seed) rebuilds the case, TGC_PROPERTY_SEEDS=N searches longer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <tgc/tgc.h>

#include "ops/core/graph.h"
#include "support/graph_eval.h"
#include "support/op_test_util.h"
#include "support/random_graph.h"

namespace tgc {
namespace {

// Seeds 0 .. kSeeds-1; TGC_PROPERTY_SEEDS=N runs N seeds instead (a longer local search).
constexpr int kSeeds = 2400;
int seed_count() {
  const char* env = std::getenv("TGC_PROPERTY_SEEDS");
  return env && std::atoi(env) > 0 ? std::atoi(env) : kSeeds;
}
constexpr int kShards = 8;
constexpr int kDetailedFailures = 5;  // per shard; the others are listed by seed

// The rewrites documented (docs/optimizations.md) to change results where the graph as
// built computes inf or NaN.
constexpr const char* kValueChangingRewrites = "exp_log:log_exp:sub_self:pow_half:stabilize:float32_casting";

// Reassociation, fusion and stabilisation may round differently; float32 keeps ~7 digits.
double rtol_for(DType d) { return d == DType::Float32 ? 1e-3 : 1e-8; }
double atol_for(DType d) { return d == DType::Float32 ? 1e-4 : 1e-10; }

struct Run {
  std::optional<Function> function;
  std::optional<std::vector<Tensor>> results;
  std::string error;  // what was thrown, when the function could not be built or run
};

// float32_math=double: the optimizer's property is about rewrites, so the compiled kernels
// keep the reference's float32 bits (the float libmvec functions' ulps are the conformance
// suite's subject).
Run compile_and_run(const test::RandomGraph& g, std::map<std::string, std::string> config) {
  Run r;
  config.emplace("float32_math", "double");
  try {
    r.function.emplace(function(g.inputs, g.outputs, {}, {.config = config}));
    r.results = (*r.function)(g.values);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

std::string inputs_str(const test::RandomGraph& g) {
  std::string s;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    s += "  " + g.inputs[i].name() + ": " + g.inputs[i].type().str() + " = " + g.values[i].str() + "\n";
  return s;
}

// Whether some node of the graph as built computes an inf or a NaN on the seed's inputs.
bool computes_non_finite(const Graph& raw, const test::RandomGraph& g) {
  std::vector<std::pair<Var, Tensor>> givens;
  for (size_t i = 0; i < raw.inputs().size(); ++i) givens.push_back({Var(raw.inputs()[i]), g.values[i]});
  test::GraphEval eval(givens);
  for (Node* n : raw.toposort())
    for (int k = 0; k < n->num_outputs(); ++k) {
      Tensor t = eval(Var(n->output(k)));
      if (!is_float(t.dtype())) continue;
      for (double v : t.astype(DType::Float64).to_vector<double>())
        if (!std::isfinite(v)) return true;
    }
  return false;
}

bool has_float32(const Graph& raw) {
  for (const VarPtr& v : raw.inputs())
    if (v->type().dtype == DType::Float32) return true;
  for (Node* n : raw.toposort()) {
    for (const VarPtr& v : n->inputs())
      if (v->type().dtype == DType::Float32) return true;
    for (int k = 0; k < n->num_outputs(); ++k)
      if (n->output_raw(k)->type().dtype == DType::Float32) return true;
  }
  return false;
}

struct Seed {
  int seed;
  test::RandomGraph graph;
  Run reference;
  bool non_finite = false;
  bool has_float32 = false;  // some value of the graph as built is float32
};

// "" when the function compiled with `config` agrees with the reference; otherwise the report.
// `float32_tolerance`: every float output is compared with float32's tolerance.
std::string compare(const Seed& s, const std::map<std::string, std::string>& config, bool float32_tolerance) {
  Run opt = compile_and_run(s.graph, config);
  std::string header = "seed " + std::to_string(s.seed) + ",";
  for (auto& [k, v] : config) header += " " + k + "=" + v;
  header += ": ";
  auto graphs = [&] {
    std::string text = "inputs:\n" + inputs_str(s.graph);
    text += "graph (optimizer=none):\n" + s.reference.function->graph().str();
    text += "graph (optimized):\n" + (opt.function ? opt.function->graph().str() : std::string("  (not compiled)\n"));
    return text;
  };
  if (!opt.results) return header + "fails: " + opt.error + "\n" + graphs();
  const std::vector<Tensor>& want_all = *s.reference.results;
  if (opt.results->size() != want_all.size()) return header + "wrong number of outputs\n" + graphs();
  for (size_t o = 0; o < want_all.size(); ++o) {
    const Tensor& want = want_all[o];
    const Tensor& got = (*opt.results)[o];
    const DType tol = float32_tolerance && is_float(want.dtype()) ? DType::Float32 : want.dtype();
    if (auto same = test::same_values(got, want, rtol_for(tol), atol_for(tol)); !same)
      return header + "output " + std::to_string(o) + ": " + same.message() + "\ngot\n" + got.str() + "\nexpected\n" +
             want.str() + "\n" + graphs();
  }
  return "";
}

// Checks seeds shard, shard + kShards, ... below n_seeds, drawn with `options`.
void check_shard(int shard, int n_seeds, const test::RandomGraphOptions& options) {
  std::vector<std::string> failed;
  int detailed = 0, compared_whole = 0, seeds = 0;
  auto expect_same = [&](const Seed& s, const std::map<std::string, std::string>& config) {
    const bool whole = !config.count("optimizer_excluding");
    std::string report = compare(s, config, whole && s.has_float32);
    if (report.empty()) return;
    failed.push_back(std::to_string(s.seed) + " (" + config.at("optimizer") + (config.size() > 1 ? ", strict" : "") + ")");
    if (detailed++ < kDetailedFailures) ADD_FAILURE() << report;
  };
  for (int seed = shard; seed < n_seeds; seed += kShards, ++seeds) {
    Seed s{seed, test::random_graph(static_cast<uint64_t>(seed), options), {}, false, false};
    s.reference = compile_and_run(s.graph, {{"optimizer", "none"}});
    // The generator keeps every operation in its domain: the graph as built always runs.
    if (!s.reference.results) {
      failed.push_back(std::to_string(seed) + " (generator)");
      ADD_FAILURE() << "seed " << seed << ": the graph as built fails (a generator bug): " << s.reference.error
                    << "\n" << inputs_str(s.graph)
                    << (s.reference.function ? s.reference.function->graph().str() : std::string());
      continue;
    }
    s.non_finite = computes_non_finite(s.reference.function->graph(), s.graph);
    s.has_float32 = has_float32(s.reference.function->graph());
    expect_same(s, {{"optimizer", "fast_run"}, {"optimizer_excluding", kValueChangingRewrites}});
    if (seed % 4 == 0) expect_same(s, {{"optimizer", "fast_compile"}, {"optimizer_excluding", kValueChangingRewrites}});
    if (!s.non_finite) {
      ++compared_whole;
      expect_same(s, {{"optimizer", "fast_run"}});
      if (seed % 4 == 0) expect_same(s, {{"optimizer", "fast_compile"}});
    }
  }
  std::string list;
  for (const std::string& f : failed) list += "\n  " + f;
  EXPECT_TRUE(failed.empty()) << failed.size() << " checks fail (seed, optimizer):" << list
                              << "\n(rebuild a graph with tgc::test::random_graph(seed"
                              << (options.foldable_percent ? ", {.foldable_percent = " + std::to_string(options.foldable_percent) + "}" : "")
                              << "))";
  // Most graphs compute finite values throughout, so the whole pipeline is checked on them.
  EXPECT_GT(compared_whole, seeds / 2) << "only " << compared_whole << " of " << seeds << " seeds are all finite";
}

class OptimizerProperty : public ::testing::TestWithParam<int> {};

TEST_P(OptimizerProperty, OptimizedGraphsComputeWhatTheGraphAsBuiltComputes) {
  check_shard(GetParam(), seed_count(), {});
}

// Graphs a quarter of whose operations are what the constant and fill rules fold (chains of
// constant scalings and shifts, where on constant conditions, fills; random_graph.h).
TEST_P(OptimizerProperty, FoldableGraphsComputeWhatTheGraphAsBuiltComputes) {
  check_shard(GetParam(), seed_count() / 8, {.foldable_percent = 25});
}

INSTANTIATE_TEST_SUITE_P(Shards, OptimizerProperty, ::testing::Range(0, kShards));

// The generator is deterministic: the same seed gives the same graph and values.
TEST(RandomGraph, IsDeterministicPerSeed) {
  for (uint64_t seed : {0u, 17u, 999u}) {
    test::RandomGraph a = test::random_graph(seed), b = test::random_graph(seed);
    Graph ga = Graph::clone_of(to_ptrs(a.inputs), to_ptrs(a.outputs));
    Graph gb = Graph::clone_of(to_ptrs(b.inputs), to_ptrs(b.outputs));
    EXPECT_EQ(ga.str(), gb.str());
    ASSERT_EQ(a.values.size(), b.values.size());
    for (size_t i = 0; i < a.values.size(); ++i) EXPECT_TRUE(test::same_values(a.values[i], b.values[i]));
  }
}

// The graphs cover what the property is about: every dtype, ranks 0 to 3, reductions, dots,
// shape ops, several outputs.
TEST(RandomGraph, CoversDtypesRanksAndOpKinds) {
  std::set<DType> dtypes;
  std::set<int> ranks;
  std::set<std::string> classes;
  size_t multi_output = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    test::RandomGraph g = test::random_graph(seed);
    multi_output += g.outputs.size() > 1;
    Graph graph = Graph::clone_of(to_ptrs(g.inputs), to_ptrs(g.outputs));
    for (Node* n : graph.toposort()) {
      classes.insert(n->op().op_class());
      for (int k = 0; k < n->num_outputs(); ++k) {
        dtypes.insert(n->output_raw(k)->type().dtype);
        ranks.insert(n->output_raw(k)->type().ndim());
      }
    }
  }
  for (DType d : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool})
    EXPECT_TRUE(dtypes.count(d)) << dtype_name(d);
  for (int r = 0; r <= 3; ++r) EXPECT_TRUE(ranks.count(r)) << r;
  for (const char* c : {"Elemwise", "CAReduce", "Dot", "DimShuffle", "Reshape", "Subtensor"})
    EXPECT_TRUE(classes.count(c)) << c << " missing; have " << ::testing::PrintToString(classes);
  EXPECT_GT(multi_output, 50u);
}

}  // namespace
}  // namespace tgc
