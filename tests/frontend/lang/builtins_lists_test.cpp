// The .tg list builtins (frontend/lang/builtins_lists.cpp): range, len, zip and enumerate as
// Python's, read through functions whose outputs they shape, and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using test::load;
using test::load_error;
using testing::HasSubstr;

// The outputs of the program's only function called without inputs, as doubles.
std::vector<double> outputs(const std::string& source) {
  TgProgram p = load(source);
  std::vector<double> out;
  for (const Tensor& t : p.default_function()->function({})) out.push_back(t.astype(DType::Float64).item<double>());
  return out;
}

TEST(ListBuiltins, RangeCountsAsPythonsDoes) {
  EXPECT_EQ(outputs("f = function([], [asarray(i, 'float64') for i in range(4)])\n"), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(outputs("f = function([], [asarray(i, 'float64') for i in range(1, 7, 2)])\n"), (std::vector<double>{1, 3, 5}));
  EXPECT_EQ(outputs("f = function([], [asarray(i, 'float64') for i in range(3, 0, -1)])\n"), (std::vector<double>{3, 2, 1}));
  EXPECT_EQ(outputs("n = len(range(5, 5))\nf = function([], asarray(n, 'float64'))\n"), (std::vector<double>{0}));
}

TEST(ListBuiltins, LenZipAndEnumerate) {
  EXPECT_EQ(outputs("n = len([1, 2, 3]) + len(zeros(4, 2)) + len(tensor(shape=(5, None)))\n"
                    "f = function([], asarray(n, 'float64'))\n"),
            (std::vector<double>{12}));
  // zip stops at the shortest list; enumerate counts from start.
  EXPECT_EQ(outputs("f = function([], [asarray(a * 10 + b, 'float64') for a, b in zip([1, 2, 3], (4, 5))])\n"),
            (std::vector<double>{14, 25}));
  EXPECT_EQ(outputs("f = function([], [asarray(i * 10 + v, 'float64') for i, v in enumerate([7, 8], start=1)])\n"),
            (std::vector<double>{17, 28}));
}

TEST(ListBuiltins, ErrorsPointAtTheArgument) {
  SourceError e = load_error("r = range(0, 10, 0)\n");
  EXPECT_THAT(e.message(), HasSubstr("step must not be zero"));
  EXPECT_EQ(e.loc().col, 18);
  e = load_error("r = range(10 ** 9)\n");
  EXPECT_THAT(e.message(), HasSubstr("more than a program's lists and loops may hold"));
  EXPECT_THAT(e.hint(), HasSubstr("arange"));
  // Nested loops multiply: the program's loop budget ends them, even when nothing is kept.
  e = load_error("a = range(2048)\nr = [i for i in a for j in a if false]\n");
  EXPECT_THAT(e.message(), HasSubstr("loop more than 4194304 times in all"));
  EXPECT_EQ(e.loc().line, 2);
  EXPECT_EQ(e.loc().col, 19);  // the inner for
  // One comprehension's list is bounded as any list is (a small limit here, to reach it).
  LoadLimits small;
  small.max_list_items = 4;
  try {
    load_source("r = [i for i in range(3) for j in range(3)]\n", "test.tg", {}, small);
    ADD_FAILURE() << "a 9-item comprehension passed a 4-item limit";
  } catch (const SourceError& limit) {
    EXPECT_THAT(limit.message(), HasSubstr("a comprehension gives more than 4 items"));
    EXPECT_EQ(limit.loc().col, 5);
  }
  // Ranges count against the same budget.
  e = load_error("r = [range(2 ** 20) for i in range(8)]\n");
  EXPECT_THAT(e.message(), HasSubstr("more than a program's lists and loops may hold"));
  e = load_error("n = len(vector())\n");
  EXPECT_THAT(e.message(), HasSubstr("not known until it is computed"));
  e = load_error("n = len(scalar())\n");
  EXPECT_THAT(e.message(), HasSubstr("0-d"));
  e = load_error("z = zip([1], 2)\n");
  EXPECT_THAT(e.message(), HasSubstr("zip() takes lists or tuples"));
  EXPECT_EQ(e.loc().col, 14);
  e = load_error("z = enumerate(3)\n");
  EXPECT_THAT(e.message(), HasSubstr("enumerate() takes a list"));
}

}  // namespace
}  // namespace tgc::lang
