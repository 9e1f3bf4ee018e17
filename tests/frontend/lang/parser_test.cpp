// The .tg parser: Python's precedence and associativity (printed as S-expressions),
// every syntactic construct, and positions of operator nodes.
#include <gtest/gtest.h>

#include "frontend/lang/parser.h"

namespace tgc::lang {
namespace {

std::string op_str(Tok t) {
  std::string s = tok_name(t);
  return s.substr(1, s.size() - 2);
}

// (op a b) for operators, f(args) for calls, [..] lists, (.. ,) tuples.
std::string sexpr(const Expr& e) {
  using K = Expr::Kind;
  auto items = [&](size_t from, const char* sep) {
    std::string s;
    for (size_t i = from; i < e.items.size(); ++i) {
      if (i > from) s += sep;
      s += e.items[i] ? sexpr(*e.items[i]) : "_";
    }
    return s;
  };
  switch (e.kind) {
    case K::Name: return e.text;
    case K::Int: case K::Float: return e.text;
    case K::String: return "'" + e.text + "'";
    case K::Bool: return e.bool_value ? "True" : "False";
    case K::None: return "None";
    case K::List: return "[" + items(0, " ") + "]";
    case K::Tuple: return "(" + items(0, " ") + " ,)";
    case K::Dict: return "{" + items(0, " ") + "}";
    case K::Unary: return "(" + op_str(e.op) + " " + sexpr(*e.items[0]) + ")";
    case K::Binary: return "(" + op_str(e.op) + " " + sexpr(*e.items[0]) + " " + sexpr(*e.items[1]) + ")";
    case K::Call: {
      std::string s = sexpr(*e.items[0]) + "(";
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) s += " ";
        if (!e.args[i].keyword.empty()) s += e.args[i].keyword + "=";
        s += sexpr(*e.args[i].value);
      }
      return s + ")";
    }
    case K::Attribute: return sexpr(*e.items[0]) + "." + e.text;
    case K::Subscript: return sexpr(*e.items[0]) + "[" + items(1, ", ") + "]";
    case K::Slice: return items(0, ":");
    case K::Comprehension: return "[" + sexpr(*e.items[0]) + " " + items(1, " ") + "]";
    case K::CompFor: return "(for " + sexpr(*e.items[0]) + " " + sexpr(*e.items[1]) + ")";
    case K::CompIf: return "(if " + sexpr(*e.items[0]) + ")";
    case K::Lambda: {
      std::string params;
      for (const std::string& p : e.params) params += (params.empty() ? "" : " ") + p;
      return "(lambda (" + params + ") " + sexpr(*e.items[0]) + ")";
    }
  }
  return "?";
}

std::string parse(const std::string& text) {
  SourceText src("t.tg", text);
  return sexpr(*parse_expression(src));
}

TEST(Parser, PowerBindsTighterThanUnaryMinusOnItsLeft) {
  EXPECT_EQ(parse("-x**2"), "(- (** x 2))");
  EXPECT_EQ(parse("2**-1"), "(** 2 (- 1))");
  EXPECT_EQ(parse("-2**-x**2"), "(- (** 2 (- (** x 2))))");
}

// A comprehension: its element, then its for and if clauses in order; a dict comprehension's
// element is the (key, value) pair.
TEST(Parser, ComprehensionsKeepTheirClausesInOrder) {
  EXPECT_EQ(parse("[x * 2 for x in xs]"), "[(* x 2) (for x xs)]");
  EXPECT_EQ(parse("[a + b for a, b in zip(p, q) if a > 0 for c in r]"),
            "[(+ a b) (for (a b ,) zip(p q)) (if (> a 0)) (for c r)]");
  EXPECT_EQ(parse("[x for (i, x) in enumerate(l)]"), "[x (for (i x ,) enumerate(l))]");
  EXPECT_EQ(parse("[a for i, (a, b) in enumerate(zip(p, q))]"), "[a (for (i (a b ,) ,) enumerate(zip(p q)))]");
  EXPECT_EQ(parse("{w: w - g for w, g in u}"), "[(w (- w g) ,) (for (w g ,) u)]");
  EXPECT_EQ(parse("[x, y]"), "[x y]");  // a list stays a list
}

TEST(Parser, LambdaTakesTheLoosestBinding) {
  EXPECT_EQ(parse("lambda x, h: h + x * 2"), "(lambda (x h) (+ h (* x 2)))");
  EXPECT_EQ(parse("f(lambda: 1, 2)"), "f((lambda () 1) 2)");
  EXPECT_EQ(parse("lambda a: (a, a)"), "(lambda (a) (a a ,))");
}

TEST(Parser, PowerIsRightAssociative) { EXPECT_EQ(parse("a**b**c"), "(** a (** b c))"); }

TEST(Parser, ArithmeticPrecedence) {
  EXPECT_EQ(parse("a+b*c**2"), "(+ a (* b (** c 2)))");
  EXPECT_EQ(parse("a-b-c"), "(- (- a b) c)");
  EXPECT_EQ(parse("a/b//c%d@e"), "(@ (% (// (/ a b) c) d) e)");
  EXPECT_EQ(parse("(a+b)*c"), "(* (+ a b) c)");
}

TEST(Parser, ComparisonsAreLooserThanArithmeticAndBitwise) {
  EXPECT_EQ(parse("a + 1 < b * 2"), "(< (+ a 1) (* b 2))");
  EXPECT_EQ(parse("x == y"), "(== x y)");
  EXPECT_EQ(parse("a & b == c"), "(== (& a b) c)");
  EXPECT_EQ(parse("a | b ^ c & d"), "(| a (^ b (& c d)))");
  EXPECT_EQ(parse("(x > 0) & (x < 1)"), "(& (> x 0) (< x 1))");
  EXPECT_EQ(parse("~m | n"), "(| (~ m) n)");
}

TEST(Parser, CallsWithKeywordsAndMethods) {
  EXPECT_EQ(parse("sum(x, axis=1, keepdims=true)"), "sum(x axis=1 keepdims=True)");
  EXPECT_EQ(parse("x.sum(axis=0).T"), "x.sum(axis=0).T");
  EXPECT_EQ(parse("f(a, b,)"), "f(a b)");
  EXPECT_EQ(parse("x.dimshuffle('x', 0)"), "x.dimshuffle('x' 0)");
}

TEST(Parser, IndexingAndSlices) {
  EXPECT_EQ(parse("x[1:, ::2]"), "x[1:_:_, _:_:2]");
  EXPECT_EQ(parse("x[:, None]"), "x[_:_:_, None]");
  EXPECT_EQ(parse("x[-1]"), "x[(- 1)]");
  EXPECT_EQ(parse("x[a:b:c]"), "x[a:b:c]");
  EXPECT_EQ(parse("x[0][1]"), "x[0][1]");
}

TEST(Parser, ListsTuplesDicts) {
  EXPECT_EQ(parse("[a, b]"), "[a b]");
  EXPECT_EQ(parse("(a, b)"), "(a b ,)");
  EXPECT_EQ(parse("(a,)"), "(a ,)");
  EXPECT_EQ(parse("()"), "( ,)");
  EXPECT_EQ(parse("[]"), "[]");
  EXPECT_EQ(parse("a, b"), "(a b ,)");
  EXPECT_EQ(parse("{w: w - 1}"), "{w (- w 1)}");
  EXPECT_EQ(parse("[(w, w - 0.1 * g)]"), "[(w (- w (* 0.1 g)) ,)]");
}

TEST(Parser, Literals) {
  EXPECT_EQ(parse("[true, True, false, False, None, 'a', 1.5]"), "[True True False False None 'a' 1.5]");
}

TEST(Parser, Statements) {
  SourceText src("t.tg", "x = matrix('x')\ngw, gb = grad(c, [w, b]); y = z = 1\n\n(a, b) = t\n");
  Module m = parse_module(src);
  ASSERT_EQ(m.statements.size(), 4u);
  EXPECT_EQ(m.statements[0].targets.size(), 1u);
  EXPECT_EQ(m.statements[1].targets[0]->kind, Expr::Kind::Tuple);
  EXPECT_EQ(m.statements[2].targets.size(), 2u);  // y = z = 1
  EXPECT_EQ(m.statements[3].pos.line, 4);
}

TEST(Parser, OperatorNodesPointAtTheOperator) {
  SourceText src("t.tg", "a + b * c");
  ExprPtr e = parse_expression(src);
  EXPECT_EQ(e->pos.col, 3);
  EXPECT_EQ(e->items[1]->pos.col, 7);
  EXPECT_EQ(e->begin, 0);
  EXPECT_EQ(e->end, 9);
}

TEST(Parser, EmptyModule) {
  SourceText src("t.tg", "");
  EXPECT_TRUE(parse_module(src).statements.empty());
  SourceText comments("t.tg", "# nothing\n\n");
  EXPECT_TRUE(parse_module(comments).statements.empty());
}

}  // namespace
}  // namespace tgc::lang
