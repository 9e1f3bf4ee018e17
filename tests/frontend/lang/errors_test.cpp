// Errors in .tg files: each is a SourceError with the exact line:col, the source line with
// a caret under the column, and a one-line hint. Syntax, names, arity and keywords, types
// and shapes from the C++ API, values and files, limits and encodings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "lang_test_util.h"

namespace tgc::lang {
namespace {

using ::testing::HasSubstr;
using test::load_error;

// The caret line SourceError prints for `col` under an untabbed line.
std::string caret_at(int col) { return "\n    " + std::string(col - 1, ' ') + "^\n"; }

void expect_error(const std::string& source, int line, int col, const std::string& message,
                  const std::string& hint = "") {
  SCOPED_TRACE(source);
  SourceError e = load_error(source);
  EXPECT_EQ(e.loc().file, "test.tg");
  EXPECT_EQ(e.loc().line, line);
  EXPECT_EQ(e.loc().col, col);
  EXPECT_THAT(e.message(), HasSubstr(message));
  // A line longer than the report shows whole (150 characters) is cut around the column
  // (LongSourceLinesAndNamesAreCutInReports checks that caret).
  std::string error_line = source;
  for (int l = 1; l < line && error_line.find('\n') != std::string::npos; ++l) error_line.erase(0, error_line.find('\n') + 1);
  error_line = error_line.substr(0, error_line.find('\n'));
  if (error_line.size() <= 150) EXPECT_THAT(std::string(e.what()), HasSubstr(caret_at(col)));
  EXPECT_THAT(std::string(e.what()), HasSubstr("test.tg:" + std::to_string(line) + ":" + std::to_string(col) + ": error: "));
  EXPECT_FALSE(e.hint().empty());
  EXPECT_EQ(e.hint().find('\n'), std::string::npos) << "the hint is one line";
  if (!hint.empty()) {
    EXPECT_THAT(e.hint(), HasSubstr(hint));
  }
}

TEST(Errors, TheWholeReport) {
  SourceError e = load_error("x = vector()\ny = expp(x)\n");
  EXPECT_STREQ(e.what(),
               "test.tg:2:5: error: unknown function 'expp'\n"
               "    y = expp(x)\n"
               "        ^\n"
               "  hint: did you mean 'exp'?");
  // A SourceError is a tgc::Error: the CLI catches one kind.
  const Error& base = e;
  EXPECT_EQ(base.hint(), "did you mean 'exp'?");
}

TEST(Errors, CaretKeepsTabs) {
  SourceError e = load_error("\ty = expp(1)\n");
  EXPECT_EQ(e.loc().col, 6);
  EXPECT_THAT(std::string(e.what()), HasSubstr("\n    \ty = expp(1)\n    \t    ^\n"));
}

TEST(Errors, UnbalancedBrackets) {
  expect_error("x = vector()\ny = exp(x\n", 2, 8, "'(' was never closed", "add the matching ')'");
  expect_error("y = 1)\n", 1, 6, "unmatched ')'");
  expect_error("y = [1)\n", 1, 7, "closing ')' does not match '[' at line 1, column 5");
  expect_error("f = function([x], [y]\nz = 2\n", 1, 13, "'(' was never closed");
}

TEST(Errors, UnknownNamesSuggestTheClosest) {
  expect_error("x = vector()\ny = exp(xx)\n", 2, 9, "unknown name 'xx'", "did you mean 'x'?");
  expect_error("y = exp(q)\n", 1, 9, "unknown name 'q'", "assign it before using it");
  expect_error("x = vector()\ny = sigmoidd(x)\n", 2, 5, "unknown function 'sigmoidd'", "did you mean 'sigmoid'?");
  expect_error("x = matrix()\ny = x.summ()\n", 2, 7, "has no method 'summ'", "did you mean 'sum'?");
  expect_error("x = matrix()\ny = x.Tt\n", 2, 7, "has no attribute 'Tt'", "did you mean 'T'?");
  expect_error("x = vector()\ny = x(1)\n", 2, 5, "'x' is not a function");
  expect_error("y = exp\n", 1, 5, "'exp' is a function", "call it: exp(...)");
}

TEST(Errors, WrongArityNamesTheSignature) {
  expect_error("x = vector()\ny = exp(x, x)\n", 2, 12, "exp() takes 1 positional argument but 2 were given",
               "the signature is exp(x)");
  expect_error("y = dot(vector())\n", 1, 5, "dot() is missing the argument 'b'", "the signature is dot(a, b)");
  expect_error("x = vector()\ny = sum(x, 0, true, 1)\n", 2, 21, "sum() takes 3 positional arguments but 4 were given");
}

TEST(Errors, UnknownOrRepeatedKeyword) {
  expect_error("x = matrix()\ny = sum(x, axes=1)\n", 2, 12, "sum() has no parameter 'axes'",
               "did you mean 'axis'? the signature is sum(x, axis=None, keepdims=false)");
  expect_error("x = matrix()\ny = sum(x, 1, axis=1)\n", 2, 15, "sum() got two values for 'axis'");
  expect_error("x = matrix()\ny = sum(x, axis=1, axis=0)\n", 2, 20, "keyword argument 'axis' repeated");
}

TEST(Errors, ShapeMismatchOfStaticShapes) {
  expect_error("a = tensor(shape=(400, 784))\nb = tensor(shape=(785,))\nc = dot(a, b)\n", 3, 5, "not aligned");
  expect_error("a = tensor(shape=(2, 3))\nb = tensor(shape=(4, 3))\nc = a +\\\n b\n", 3, 7, "");
}

TEST(Errors, TypeErrorsOfTheApiAtTheOperator) {
  expect_error("x = matrix()\ny = x & x\n", 2, 7, "needs bool operands", "compare first");
  expect_error("x = vector()\ny = x + 'a'\n", 2, 7, "operator + is not defined for a symbolic");
  expect_error("x = vector()\ny = x[0, 0]\n", 2, 6, "");
  expect_error("x = vector()\ny = sum(x, axis=3)\n", 2, 5, "");
  expect_error("x = vector()\ny = cast(x, 'float8')\n", 2, 13, "unknown dtype 'float8'");
}

TEST(Errors, MixedPrecisionNamesAHalfType) {
  expect_error("x = vector()\nf = function([x], x, mixed_precision='half')\n", 2, 22,
               "must be \"none\", \"bfloat16\" or \"float16\", got \"half\"", "docs/precision.md");
}

TEST(Errors, WrongArgumentTypes) {
  expect_error("x = matrix()\ny = sum(x, axis='a')\n", 2, 12, "argument 'axis' of sum must be an integer or a list of integers");
  expect_error("x = matrix()\ny = sum(x, keepdims=1)\n", 2, 12, "argument 'keepdims' of sum must be true or false");
  expect_error("y = exp('x')\n", 1, 9, "argument 'x' of exp must be a tensor, got a string");
  expect_error("y = reshape(matrix(), 2, 'a')\n", 1, 26, "must be integers");
}

TEST(Errors, BadNpyAndMissingFile) {
  const std::string dir = ::testing::TempDir();
  {
    std::FILE* f = std::fopen((dir + "/lang_bad.npy").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("this is not a npy file", f);
    std::fclose(f);
  }
  SourceError bad = load_error("x = vector()\nw = shared(load('lang_bad.npy'))\n", dir + "/prog.tg");
  EXPECT_EQ(bad.loc().line, 2);
  EXPECT_EQ(bad.loc().col, 17);
  EXPECT_THAT(bad.message(), HasSubstr("lang_bad.npy"));
  EXPECT_THAT(std::string(bad.what()), HasSubstr(caret_at(17)));
  SourceError missing = load_error("w = load('no_such.npy')\n", dir + "/prog.tg");
  EXPECT_EQ(missing.loc().col, 10);
  EXPECT_THAT(missing.message(), HasSubstr("no such file"));
  EXPECT_THAT(missing.hint(), HasSubstr("relative paths start at the .tg file's folder"));
}

TEST(Errors, HugeLiterals) {
  expect_error("x = 1e999\n", 1, 5, "number 1e999 is out of range");
  expect_error("x = 99999999999999999999\n", 1, 5, "integer 99999999999999999999 does not fit in 64 bits");
  expect_error("x = 0xFFFFFFFFFFFFFFFFFF\n", 1, 5, "does not fit in 64 bits");
  expect_error("n = 2 ** 63\n", 1, 7, "integer overflow");
  expect_error("n = 9223372036854775807 + 1\n", 1, 25, "integer overflow");
  expect_error("v = zeros(10**12, 10**12)\n", 1, 11, "more than the limit");
  expect_error("v = rand(-1)\n", 1, 10, "negative dimension");
}

TEST(Errors, NonUtf8Bytes) {
  SourceError e = load_error("x = 1\ny = \xff\n");
  EXPECT_EQ(e.loc().line, 2);
  EXPECT_EQ(e.loc().col, 5);
  EXPECT_THAT(e.message(), HasSubstr("invalid UTF-8 byte 0xFF"));
  EXPECT_THAT(std::string(e.what()), HasSubstr("\n    y = ?\n" + std::string(4 + 4, ' ') + "^\n"));
  // A truncated multi-byte sequence, after a valid one: columns count code points.
  SourceError t = load_error("s = 'é\xc3'\n");
  EXPECT_EQ(t.loc().col, 7);
  expect_error("# comment \xc0\xaf\n", 1, 11, "invalid UTF-8 byte 0xC0");  // overlong '/'
}

TEST(Errors, ControlCharactersPrintAsQuestionMarks) {
  SourceError nul = load_error(std::string("x = 1\0\n", 7));
  EXPECT_EQ(nul.loc().col, 6);
  EXPECT_THAT(nul.message(), HasSubstr("unexpected character U+0000"));
  EXPECT_THAT(std::string(nul.what()), HasSubstr("\n    x = 1?\n         ^\n"));
  SourceError escape = load_error("x = vector()\ny = cast(x, 'a\\0b')\n");
  EXPECT_EQ(std::string(escape.what()).find('\0'), std::string::npos);
  EXPECT_THAT(escape.message(), HasSubstr("a?b"));
}

TEST(Errors, EmptyFileIsValid) {
  EXPECT_NO_THROW(load_source("", "empty.tg"));
  EXPECT_NO_THROW(load_source("\n\n   \n# only comments\n", "empty.tg"));
}

TEST(Errors, DeepNestingIsAnErrorNotAStackOverflow) {
  expect_error("y = " + std::string(300, '(') + "1" + std::string(300, ')') + "\n", 1, 205, "nested too deeply");
  expect_error("y = " + std::string(300, '-') + "1\n", 1, 205, "nested too deeply");
  std::string power = "y = 2";
  for (int i = 0; i < 300; ++i) power += "**2";
  SourceError e = load_error(power + "\n");
  EXPECT_THAT(e.message(), HasSubstr("nested too deeply"));
  // 200 levels are fine.
  EXPECT_NO_THROW(test::load("y = " + std::string(150, '(') + "1" + std::string(150, ')') + "\n"));
}

TEST(Errors, AFlatChainIsNotNestingButHasABound) {
  // a + b + c + ... is one level however long (evaluated in a loop): 300 terms are fine.
  std::string sum = "1.0";
  for (int i = 0; i < 300; ++i) sum += " + 1.0";
  TgProgram p = test::load("x = scalar()\nf = function([x], [x + " + sum + "])\n");
  EXPECT_EQ(p.find("f")->function(Tensor::scalar(0.0f))[0].item<float>(), 301.0f);
  // Past 5000 operators it is an error at the 5001st, not a deep recursion.
  std::string chain = "y = 1";
  for (int i = 0; i < 6000; ++i) chain += "+1";
  SourceError e = load_error(chain + "\n");
  EXPECT_EQ(e.loc().line, 1);
  EXPECT_EQ(e.loc().col, 10006);
  EXPECT_THAT(e.message(), HasSubstr("more than 5000 operators in one expression"));
}

TEST(Errors, LongSourceLinesAndNamesAreCutInReports) {
  // An unknown 40,000-character name: the report quotes a bounded part of it, fast.
  SourceError e = load_error("y = 1\nz = " + std::string(40000, 'q') + "\n");
  EXPECT_THAT(e.message(), HasSubstr("more characters)"));
  EXPECT_LT(std::string(e.what()).size(), 2000u);
  EXPECT_EQ(e.loc().line, 2);
  EXPECT_EQ(e.loc().col, 5);
  // A long line is shown as a window around the column, the caret under the error.
  std::string line = "y = " + std::string(3000, ' ') + "$\n";
  SourceError w = load_error(line);
  const std::string text = w.what();
  EXPECT_LT(text.size(), 800u);
  const size_t shown = text.find("\n    ");
  const size_t caret = text.find("\n    ", shown + 1);
  ASSERT_NE(caret, std::string::npos);
  const size_t dollar = text.find('$', shown);
  EXPECT_EQ(dollar - shown, text.find('^', caret) - caret) << text;
}

TEST(Errors, ValuesTheProgramBuildsAreBounded) {
  std::string doubling = "a = [1]\n";
  for (int i = 0; i < 40; ++i) doubling += "a = a + a\n";
  // 2^22 items are allowed; the 23rd doubling is the error, at its '+'.
  expect_error(doubling, 24, 7, "this list would have 8388608 items, more than the limit of 4194304");
}

TEST(Errors, SourceLargerThanTheLimitIsRefused) {
  LoadLimits limits;
  limits.max_source_bytes = 1000;
  EXPECT_THROW(load_source(std::string(1001, ' '), "big.tg", FunctionOptions{}, limits), IOError);
  EXPECT_NO_THROW(load_source(std::string(1000, ' '), "ok.tg", FunctionOptions{}, limits));
  // A device file never ends: reading stops one byte past the limit.
  EXPECT_THROW(load_file("/dev/zero"), IOError);
}

TEST(Errors, SyntaxErrors) {
  expect_error("s = 'abc\n", 1, 5, "unterminated string");
  expect_error("y = 2 $ 2\n", 1, 7, "unexpected character '$'");
  expect_error("y = 3x\n", 1, 5, "invalid number literal '3x'");
  expect_error("y = 1 < 2 < 3\n", 1, 11, "chained comparisons are not supported", "(a < b) & (b < c)");
  expect_error("y = \n", 1, 5, "expected an expression after '='");
  expect_error("y = (1 2)\n", 1, 8, "expected ')', found an integer '2'");
  expect_error("y = f(1 2)\n", 1, 9, "expected ',' or ')'");
  expect_error("y = x[]\n", 1, 7, "empty index");
  expect_error("y = f(a=1, 2)\n", 1, 12, "positional argument follows keyword argument");
  expect_error("y = “x”\n", 1, 5, "unexpected character '“'", "plain quotes");
}

TEST(Errors, PythonConstructsTheLanguageLacks) {
  expect_error("import numpy\n", 1, 1, "'import' is not supported", "no imports");
  expect_error("for i in x:\n", 1, 1, "'for' is not supported", "no loop statements");
  // Comprehensions: where one may stand, and what their clauses take.
  expect_error("y = f(x for x in [1])\n", 1, 9, "a comprehension must be the only item inside [...] or {...}");
  expect_error("y = [1, x for x in [1]]\n", 1, 11, "a comprehension must be the only item");
  expect_error("y = [x for 1 in [1]]\n", 1, 12, "expected a loop variable's name");
  expect_error("y = [x for x, x in [(1, 2)]]\n", 1, 15, "loop variable 'x' is listed twice");
  expect_error("y = [x for x of [1]]\n", 1, 14, "expected 'in'");
  expect_error("y = [x for x in 3]\n", 1, 17, "iterates over a list or tuple, not");
  expect_error("y = [x for x in [1] if vector()]\n", 1, 24, "condition must be a number or a bool");
  expect_error("y = [x for x, z in [1, 2]]\n", 1, 12, "cannot unpack");
  expect_error("y = [x for x in [1] y]\n", 1, 21, "expected 'for', 'if' or ']'");
  expect_error("def f(x):\n", 1, 1, "'def' is not supported", "a step of scan() is a lambda");
  expect_error("x = vector()\ny = x > 0 and x < 1\n", 2, 11, "'and' is not an elementwise operator", "&");
  expect_error("y = not x\n", 1, 5, "'not' is not supported", "~x");
  expect_error("x = 1\nx += 1\n", 2, 3, "augmented assignment '+=' is not supported");
  expect_error("y = 1 if x else 2\n", 1, 7, "conditional expressions are not supported", "where(");
  expect_error("y = 1 << 2\n", 1, 7, "shift operators are not supported");
}

TEST(Errors, Assignments) {
  expect_error("a, b = 1, 2, 3\n", 1, 1, "cannot unpack 3 values into 2 names");
  expect_error("a, b = 1\n", 1, 1, "cannot unpack an integer into 2 names");
  expect_error("f(x) = 1\n", 1, 1, "cannot assign to a function call");
  expect_error("x = vector()\nx[0] = 1\n", 2, 2, "cannot assign to an indexed tensor", "set_subtensor");
  expect_error("x = vector()\nexp(x)\n", 2, 1, "this expression's value is not used", "assign it to a name");
}

TEST(Errors, Functions) {
  expect_error("w = shared(zeros(2))\nf = function([w], w)\n", 2, 15, "a function input must be a symbolic input variable",
               "shared variables are implicit inputs");
  expect_error("x = vector()\ny = vector()\nf = function([x], x + y)\n", 3, 5, "y");
  expect_error("x = vector()\nf = function([x], x)\nf = function([x], x)\n", 3, 5, "a function named 'f' is already defined");
  expect_error("x = vector()\nfs = [function([x], x)]\n", 2, 7, "function() must be assigned to a name");
  expect_error("x = vector()\nf = function([x], x, updates=[(x, x + 1)])\n", 2, 31, "first item must be a shared variable");
  expect_error("w = shared(zeros(2))\nf = function([], w, updates=[(w, w.sum())])\n", 2, 5, "");
}

TEST(Errors, FunctionDevices) {
  expect_error("x = matrix()\nf = function([x], x, devices=5)\n", 2, 22, "argument 'devices' of function must be a list of device names");
  expect_error("x = matrix()\nf = function([x], x, devices=[\"cpu\"])\n", 2, 22, "split= names no input", "split=[x, y]");
  expect_error("x = matrix()\nf = function([x], x, split=[x], devices=[\"cpu\", 1])\n", 2, 49, "a device must be a name");
  expect_error("x = matrix()\nf = function([x], x, split=[x], devices=\"cpu,\")\n", 2, 33, "empty device name");
}

TEST(Errors, Values) {
  expect_error("r = rand(3, seed=-1)\n", 1, 13, "seed -1 is out of range");
  expect_error("n = 1 // 0\n", 1, 7, "integer division by zero");
  expect_error("n = 1.0 / 0\n", 1, 9, "division by zero");
  expect_error("x = vector()\nw = shared(x * 2)\n", 2, 12, "depends on the input variable 'x'");
  expect_error("a = array([[1, 2], [3]])\n", 1, 11, "ragged");
  expect_error("r = randint(5, 5)\n", 1, 13, "low (5) must be less than high (5)");
  expect_error("l = [1, 2][5]\n", 1, 12, "list index 5 is out of range");
}

TEST(Errors, LimitsOfLoadSource) {
  LoadLimits limits;
  limits.max_elements = 100;
  limits.allow_load = false;
  limits.max_function_nodes = 30;
  auto error = [&](const std::string& source) {
    try {
      load_source(source, "test.tg", FunctionOptions{}, limits);
    } catch (const SourceError& e) {
      return e;
    }
    ADD_FAILURE() << "expected a SourceError from " << source;
    return SourceError(SourceLoc{}, "", "", "");
  };
  SourceError big = error("v = zeros(10, 11)\n");
  EXPECT_EQ(big.loc().col, 11);
  EXPECT_THAT(big.message(), HasSubstr("110 elements, more than the limit of 100"));
  EXPECT_THAT(error("v = load('x.npy')\n").message(), HasSubstr("load() is disabled here"));
  // Nested grad() calls grow graphs geometrically: the limit stops them before they explode.
  std::string nested = "x = dvector()\na0 = sum(exp(x) * x)\n";
  for (int k = 1; k <= 8; ++k)
    nested += "a" + std::to_string(k) + " = sum(grad(a" + std::to_string(k - 1) + ", x) ** 2)\n";
  SourceError g = error(nested);
  EXPECT_THAT(g.message(), HasSubstr("more than 30 nodes"));
  std::string wide = "x = dvector()\ny = x";
  for (int i = 0; i < 40; ++i) wide += " + exp(x)";
  SourceError f = error(wide + "\nf = function([x], y)\n");
  EXPECT_EQ(f.loc().line, 3);
  EXPECT_THAT(f.message(), HasSubstr("function 'f' has more than 30 nodes"));
}

TEST(Errors, FileNameInTheReport) {
  SourceError e = load_error("y = expp(1)\n", "dir/prog.tg");
  EXPECT_THAT(std::string(e.what()), ::testing::StartsWith("dir/prog.tg:1:5: error: "));
  EXPECT_EQ(e.loc().file, "dir/prog.tg");
}

}  // namespace
}  // namespace tgc::lang
