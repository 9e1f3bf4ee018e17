// The builtin table: every row parses and can be called (one snippet per builtin, so a new
// builtin needs a snippet here), names are unique, and docs/language.md holds exactly the
// reference the table generates.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "frontend/lang/builtins.h"
#include "frontend/lang/evaluator.h"
#include "lang_test_util.h"

namespace tgc::lang {
namespace {

const char* kPreamble =
    "x = vector('x')\nm = matrix('m')\nt3 = tensor3('t3')\ni = lvector('i')\n"
    "w = shared(ones(3), name='w')\nv3 = tensor('float64', shape=(3,))\n";

// One call per builtin; typed input constructors are checked by name below.
std::map<std::string, std::string> snippets(const std::string& npy_path) {
  std::map<std::string, std::string> s = {
      {"tensor", "tensor('float32', 2)"}, {"shared", "shared(ones(2))"}, {"get_value", "w.get_value()"},
      {"rand", "rand(2, 3, seed=1)"}, {"randn", "randn(2)"}, {"random_sample", "random_sample((2, 3))"},
      {"randint", "randint(3, size=2)"}, {"uniform", "uniform(size=3)"}, {"normal", "normal(size=3)"},
      {"RandomState", "RandomState(1)"}, {"zeros", "zeros(2)"}, {"ones", "ones(2)"}, {"full", "full(3, 1.5)"},
      {"arange", "arange(3)"}, {"eye", "eye(2)"}, {"array", "array([1, 2])"},
      {"asarray", "asarray(ones(2), 'float32')"}, {"load", "load('" + npy_path + "')"},
      {"clip", "clip(x, 0, 1)"}, {"where", "where(x > 0, x, 0)"}, {"switch", "switch(x > 0, x, 0)"},
      {"cast", "cast(x, 'int32')"}, {"astype", "x.astype('int32')"},
      {"dot", "dot(m, x)"}, {"matmul", "matmul(m, m)"}, {"batched_dot", "batched_dot(t3, t3)"}, {"outer", "outer(x, x)"},
      {"softmax", "softmax(m)"}, {"log_softmax", "log_softmax(m, axis=0)"},
      {"reshape", "reshape(m, -1)"}, {"flatten", "flatten(t3, 2)"}, {"dimshuffle", "dimshuffle(x, 'x', 0)"},
      {"transpose", "transpose(m, 1, 0)"}, {"squeeze", "squeeze(dimshuffle(x, 'x', 0))"},
      {"expand_dims", "expand_dims(x, 0)"},
      {"shape_of", "shape_of(x)"},
      {"set_subtensor", "set_subtensor(x[0], 1)"}, {"inc_subtensor", "inc_subtensor(x[1:], x[:-1])"},
      {"take", "take(x, i)"}, {"ifelse", "ifelse(x.sum() > 0, x, -x)"},
      {"concatenate", "concatenate([x, x])"}, {"stack", "stack([x, x], axis=1)"}, {"split", "split(x, [1, 2])"},
      {"alloc", "alloc(0.0, 2, 3)"}, {"zeros_like", "zeros_like(x)"}, {"ones_like", "ones_like(x)"},
      {"fill", "fill(x, 2.0)"},
      {"grad", "grad(sum(x * w), w)"}, {"stop_gradient", "stop_gradient(x)"}, {"Lop", "Lop(x * 2, x, x)"},
      {"jacobian", "jacobian(v3 * 2, v3)"}, {"hessian", "hessian(sum(v3 ** 2), v3)"},
      {"function", "function([x], [x + 1])"}, {"gpu_from_host", "gpu_from_host(x)"},
      {"all_reduce", "all_reduce(x, op='mean')"}, {"all_gather", "all_gather(m, axis=1)"},
      {"reduce_scatter", "reduce_scatter(x)"}, {"broadcast", "broadcast(x)"}, {"rank", "rank()"},
      {"world_size", "world_size()"}, {"local_rank", "local_rank()"},
      {"scan", "scan(lambda a, acc: acc + a, sequences=[x], outputs_info=[zeros_like(x[0])])"},
      {"until", "until(x[0] > 0)"},
      {"RandomStreams", "RandomStreams(1)"}, {"RandomStreams.uniform", "RandomStreams(1).uniform((2, 3), -1, 1)"},
      {"RandomStreams.normal", "RandomStreams(1).normal(x, std=2.0)"},
      {"RandomStreams.binomial", "RandomStreams(1).binomial(3, n=4, p=0.5)"},
      {"RandomStreams.randint", "RandomStreams(1).randint(3, 0, 5)"},
      {"RandomStreams.choice", "RandomStreams(1).choice(2, 5, replace=false)"},
      {"RandomStreams.permutation", "RandomStreams(1).permutation(4)"},
      {"RandomStreams.seed", "RandomStreams(1).seed(3)"},
      {"conv2d", "conv2d(tensor4('a'), tensor4('k'), padding='same')"},
      {"conv2d_grad_input", "conv2d_grad_input(tensor4('d'), tensor4('k'), tensor4('a'))"},
      {"conv2d_grad_weights", "conv2d_grad_weights(tensor4('a'), tensor4('d'), tensor4('k'))"},
      {"conv_transpose2d", "conv_transpose2d(tensor4('a'), tensor4('k'), stride=2, output_padding=1)"},
      {"max_pool2d", "max_pool2d(tensor4('a'), 2)"}, {"avg_pool2d", "avg_pool2d(tensor4('a'), [3, 2], padding=1)"},
      {"batch_normalization_train", "batch_normalization_train(m, x, x, w, w)"},
      {"batch_normalization_test", "batch_normalization_test(m, x, x, x, x)"},
      {"save", "save(load_function('" + npy_path + ".tgf'), '" + npy_path + ".save.tgf')"},
      {"load_function", "load_function('" + npy_path + ".tgf')"},
      {"save_shared", "save_shared([w], '" + npy_path + ".save.tgc')"},
      {"load_shared", "load_shared([w], '" + npy_path + ".tgc')"},
      {"op", "op('StopGradient', '{}', x)"},
      {"empty", "empty(2, 3)"}, {"to_device", "to_device(ones(2), 'cpu')"}, {"to", "ones(2).to('cpu')"},
      {"get", "(ones(2) * 2).get()"}, {"to_host", "to_host(ones(2))"}, {"print", "print()"},
      {"range", "range(1, 5)"}, {"len", "len([x, x])"}, {"zip", "zip([1, 2], [x, x])"}, {"enumerate", "enumerate([x])"},
  };
  for (const Builtin& b : builtins()) {
    if (s.count(b.name)) continue;
    if (b.family == Family::Inputs) s[b.name] = b.name + "()";
    if (b.family == Family::Reductions) s[b.name] = b.name + "(m, axis=0)";
    if (b.family == Family::Math) s[b.name] = b.params.size() == 1 ? b.name + "(x)" : b.name + "(x, x)";
  }
  return s;
}

TEST(Builtins, EveryBuiltinCanBeCalled) {
  const std::string npy = ::testing::TempDir() + "/lang_builtins_test.npy";
  write_npy(npy, Tensor::from_vector<float>({1, 2}));
  // The files the snippets of load_function and load_shared read.
  {
    Var x = vector("x");
    save(function({x}, {x * 2}, {}, {.name = "twice"}), npy + ".tgf");
    save_shared({shared(Tensor::full(DType::Float64, {3}, 2.0), "w")}, npy + ".tgc");
  }
  const auto calls = snippets(npy);
  for (const Builtin& b : builtins()) {
    SCOPED_TRACE(b.name);
    auto it = calls.find(b.name);
    ASSERT_NE(it, calls.end()) << "add a snippet for " << b.name;
    EXPECT_NO_THROW(test::load(std::string(kPreamble) + "r = " + it->second + "\n"));
  }
}

TEST(Builtins, MethodsCallTheirBuiltin) {
  TgProgram p = test::load(std::string(kPreamble) +
                           "a = m.sum(axis=0)\nb = m.argmax(axis=1, keepdims=true)\nc = m.flatten()\nd = x.take(i)\n"
                           "rng = RandomState(0)\ne = rng.uniform(size=2)\nf = rng.normal(size=2)\n");
  EXPECT_EQ(p.variables.at("a").ndim(), 1);
  EXPECT_EQ(p.variables.at("b").ndim(), 2);
}

TEST(Builtins, NamesAreUniqueAndRowsComplete) {
  std::set<std::string> seen;
  for (const Builtin& b : builtins()) {
    EXPECT_TRUE(seen.insert(b.name).second) << "duplicate builtin " << b.name;
    EXPECT_FALSE(b.doc.empty()) << b.name;
    EXPECT_TRUE(b.call) << b.name;
    int variadic = 0;
    for (const Param& p : b.params) variadic += p.variadic;
    EXPECT_LE(variadic, 1) << b.name;
  }
  EXPECT_GT(builtins().size(), 150u);
}

TEST(Builtins, DefaultsAreParsedFromTheSignature) {
  const Builtin* sum = find_builtin("sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->signature(), "sum(x, axis=None, keepdims=false)");
  ASSERT_EQ(sum->params.size(), 3u);
  EXPECT_TRUE(sum->params[0].required);
  EXPECT_TRUE(sum->params[1].default_value.is_none());
  EXPECT_FALSE(sum->params[2].default_value.as_bool());
  const Builtin* softmax = find_builtin("softmax");
  EXPECT_EQ(softmax->params[1].default_value.as_int(), -1);
  const Builtin* rand = find_builtin("rand");
  EXPECT_TRUE(rand->params[0].variadic);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// docs/language.md holds the generated reference between two markers. Run the test with
// TGC_UPDATE_DOCS=1 to rewrite that part of the file after changing the table.
TEST(Builtins, LanguageReferenceMatchesTheTable) {
  const std::string path = std::string(TGC_SOURCE_DIR) + "/docs/language.md";
  std::string doc = read_file(path);
  const std::string begin = "<!-- builtins:begin (generated from frontend/lang/builtins*.cpp) -->\n";
  const std::string end = "<!-- builtins:end -->";
  const size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << path << " lacks the marker " << begin;
  ASSERT_NE(e, std::string::npos) << path << " lacks the marker " << end;
  const std::string generated = "\n" + builtin_reference_markdown() + "\n";
  const std::string current = doc.substr(b + begin.size(), e - b - begin.size());
  if (current != generated && std::getenv("TGC_UPDATE_DOCS")) {
    doc.replace(b + begin.size(), e - b - begin.size(), generated);
    std::ofstream(path) << doc;
    return;
  }
  EXPECT_EQ(current, generated) << "docs/language.md is out of date: run frontend_lang_tests with TGC_UPDATE_DOCS=1";
}

TEST(Builtins, PredefinedNamesAreDocumented) {
  const std::string doc = read_file(std::string(TGC_SOURCE_DIR) + "/docs/language.md");
  for (const auto& [name, what] : predefined_names()) EXPECT_THAT(doc, ::testing::HasSubstr("`" + name + "`")) << name;
  for (const char* attr : {"`x.T`", "`x.ndim`", "`x.dtype`", "`x.shape`"}) EXPECT_THAT(doc, ::testing::HasSubstr(attr));
}

}  // namespace
}  // namespace tgc::lang
