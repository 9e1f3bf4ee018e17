// The graph codec (compiler/serialize/graph_codec.h): a graph read back has the same nodes,
// types, names and placements and computes the same values; shared variables are one per file;
// a damaged graph (a forward reference, an unknown op, a type that disagrees) is an IOError.
#include "compiler/serialize/graph_codec.h"

#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/graph_eval.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

struct RoundTrip {
  GraphWriter writer;
  Json text;
  std::unique_ptr<GraphReader> reader;

  OpReadContext::Subgraph operator()(const std::vector<VarPtr>& in, const std::vector<VarPtr>& out) {
    const Json g = writer.write(in, out);
    text = Json::parse(g.dump());
    reader = std::make_unique<GraphReader>(Json::parse(writer.shared_table().dump()),
                                           [this](size_t i) { return std::string_view(writer.blobs().at(i)); });
    return reader->read(text);
  }
};

TEST(GraphCodec, AGraphReadBackPrintsAndComputesAsTheOriginal) {
  Var x = matrix("x");
  Shared w = shared(Tensor::from_vector(std::vector<float>{1, 2, 3}), "w");
  Var h = tanh(x * w + 0.5f);
  Var s = sum(h, 1);
  Var parts = concatenate({s, s * 2}, 0);
  RoundTrip rt;
  OpReadContext::Subgraph g = rt({x.ptr()}, {parts.ptr(), h.ptr()});
  ASSERT_EQ(g.inputs.size(), 1u);
  ASSERT_EQ(g.outputs.size(), 2u);
  EXPECT_EQ(g.inputs[0]->name(), "x");
  EXPECT_EQ(Graph::clone_of(g.inputs, g.outputs).str(), Graph::clone_of({x.ptr()}, {parts.ptr(), h.ptr()}).str());
  const Tensor xv = Tensor::from_vector(std::vector<float>{1, -1, 0.5f, 2, 0, -3}).reshape({2, 3});
  test::GraphEval want({{x, xv}}), got({{Var(g.inputs[0]), xv}});
  EXPECT_EQ(want(parts).to_vector<float>(), got(Var(g.outputs[0])).to_vector<float>());
  EXPECT_EQ(want(h).to_vector<float>(), got(Var(g.outputs[1])).to_vector<float>());
  // One shared variable, with its value, named.
  ASSERT_EQ(rt.reader->num_shared(), 1u);
  EXPECT_EQ(rt.reader->shared(0)->name(), "w");
  EXPECT_EQ(rt.reader->shared(0)->current().to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST(GraphCodec, AnOptimizedGraphKeepsItsPlacementsAndFusedKernels) {
  Var x = vector("x");
  Function f = function({x}, {exp(x) * 2 + 1, sum(x)});
  const Graph& opt = f.graph();
  RoundTrip rt;
  OpReadContext::Subgraph g = rt(opt.inputs(), opt.outputs());
  EXPECT_EQ(Graph::clone_of(g.inputs, g.outputs).str(), opt.str());
  EXPECT_THAT(opt.str(), HasSubstr("Composite"));
}

Json damaged(Json text, const std::function<void(Json&)>& edit) {
  edit(text);
  return text;
}

TEST(GraphCodec, DamagedGraphsAreIOErrorsSayingWhat) {
  Var x = vector("x");
  Var y = exp(x) + x;
  RoundTrip rt;
  rt({x.ptr()}, {y.ptr()});
  auto read = [&](const Json& j) { return rt.reader->read(j); };
  try {
    read(damaged(rt.text, [](Json& j) { j["nodes"][0]["inputs"][0] = 7; }));
    FAIL();
  } catch (const IOError& e) {
    EXPECT_THAT(e.what(), HasSubstr("refers to variable 7"));
  }
  try {
    read(damaged(rt.text, [](Json& j) { j["nodes"][0]["op"]["op"] = "Frobnicate"; }));
    FAIL();
  } catch (const IOError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'Frobnicate' is not known"));
  }
  try {
    read(damaged(rt.text, [](Json& j) { j["nodes"][0]["outputs"][0]["type"]["dtype"] = "int8"; }));
    FAIL();
  } catch (const IOError& e) {
    EXPECT_THAT(e.what(), HasSubstr("its op makes a"));
  }
  EXPECT_THROW(read(damaged(rt.text, [](Json& j) { j["nodes"][0]["placement"] = "tpu"; })), IOError);
  EXPECT_THROW(read(damaged(rt.text, [](Json& j) { j.erase("roots"); })), IOError);
  EXPECT_THROW(read(damaged(rt.text, [](Json& j) { j["roots"][0]["kind"] = "magic"; })), IOError);
  EXPECT_THROW(read(damaged(rt.text, [](Json& j) { j["outputs"][0] = -1; })), IOError);
}

TEST(GraphCodec, ABadSharedTableIsAnIOError) {
  GraphWriter w;
  Json bad = Json::array({Json{{"name", "w"}, {"type", type_to_json(Type(DType::Float64, {-1}))}, {"value", 0}}});
  w.blob(std::string("not a npy file"));
  EXPECT_THROW(GraphReader(bad, [&](size_t i) { return std::string_view(w.blobs().at(i)); }), IOError);
}

}  // namespace
}  // namespace tgc
