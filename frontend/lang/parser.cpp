// The .tg parser. Each precedence level is one function, from the loosest (comparisons)
// to the tightest (atoms); every path that recurses passes parse_unary, which bounds the
// nesting depth, and every node's depth is checked so evaluation cannot overflow the stack.
#include "frontend/lang/parser.h"

#include <algorithm>
#include <set>

namespace tgc::lang {

namespace {

using Kind = Expr::Kind;

bool is_keyword(const std::string& s) {
  static const std::set<std::string> kKeywords = {
      "and", "or", "not", "in", "is", "if", "elif", "else", "for", "while", "def", "class",
      "return", "lambda", "import", "from", "with", "as", "try", "except", "finally", "raise",
      "pass", "del", "global", "nonlocal", "yield", "assert", "break", "continue", "async", "await"};
  return kKeywords.count(s) > 0;
}

// Why a Python statement keyword has no place in a .tg file.
std::string keyword_hint(const std::string& kw) {
  if (kw == "import" || kw == "from")
    return "a .tg file needs no imports: every builtin (exp, dot, grad, function, ...) is always available";
  if (kw == "def" || kw == "class" || kw == "return")
    return "a .tg file describes graphs: it has no def; a step of scan() is a lambda: lambda x, h: tanh(x + h)";
  if (kw == "for" || kw == "while" || kw == "break" || kw == "continue")
    return "a .tg file describes graphs: it has no loop statements; build a list with a comprehension "
           "([f(x) for x in xs]), loop in the graph with scan(), and `tgc run FILE --iters N` calls a function N times";
  if (kw == "if" || kw == "elif" || kw == "else")
    return "a .tg file has no if statements; for an elementwise choice use where(cond, a, b)";
  if (kw == "and" || kw == "or" || kw == "not")
    return "for elementwise logic use & | ~ on bool tensors, or logical_and/logical_or/logical_not";
  return "this Python keyword is not part of the .tg language";
}

class Parser {
 public:
  explicit Parser(const SourceText& src) : src_(src), tokens_(tokenize(src)) {}

  Module module() {
    Module m;
    while (cur().kind != Tok::End) {
      if (cur().kind == Tok::Newline || cur().kind == Tok::Semicolon) {
        ++i_;
        continue;
      }
      m.statements.push_back(statement());
      if (cur().kind == Tok::Newline || cur().kind == Tok::Semicolon) {
        ++i_;
      } else if (cur().kind != Tok::End) {
        unexpected("the end of the statement",
                   "put each statement on its own line (or separate them with ';')");
      }
    }
    return m;
  }

  ExprPtr single_expression() {
    while (cur().kind == Tok::Newline) ++i_;
    if (cur().kind == Tok::End) throw src_.error(cur().pos, "expected an expression, found nothing",
                                                 "write a value such as randn(400, 784, seed=1), zeros(3, 4) or 2.5");
    ExprPtr e = expr_list();
    while (cur().kind == Tok::Newline) ++i_;
    if (cur().kind != Tok::End) unexpected("the end of the expression", "give exactly one expression");
    return e;
  }

 private:
  const Token& cur() const { return tokens_[i_]; }
  const Token& next() const { return tokens_[std::min(i_ + 1, tokens_.size() - 1)]; }
  int prev_end() const { return i_ > 0 ? tokens_[i_ - 1].end : 0; }
  bool at_name(const char* s) const { return cur().kind == Tok::Name && cur().text == s; }

  [[noreturn]] void unexpected(const std::string& expected, const std::string& hint) {
    const Token& t = cur();
    if (t.kind == Tok::Name && is_keyword(t.text))
      throw src_.error(t.pos, "'" + t.text + "' is not supported in .tg files", keyword_hint(t.text));
    if (t.kind == Tok::AugAssign)
      throw src_.error(t.pos, "augmented assignment '" + t.text + "' is not supported",
                       "write the full assignment, e.g. x = x + 1 (graphs are built, not modified)");
    const std::string why = !hint.empty() ? hint : "a statement reads `name = expression`; see docs/language.md";
    std::string found = tok_name(t.kind);
    if (t.kind == Tok::Name || t.kind == Tok::Int || t.kind == Tok::Float) found += " '" + t.text + "'";
    throw src_.error(t.pos, "expected " + expected + ", found " + found, why);
  }

  void expect(Tok kind, const std::string& hint) {
    if (cur().kind != kind) unexpected(tok_name(kind), hint);
    ++i_;
  }

  ExprPtr node(Kind kind, Pos pos, Pos begin) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    e->start = begin;
    e->begin = begin.offset;
    e->end = prev_end();
    return e;
  }

  // Sets e's end and depth once its children are in place.
  ExprPtr finish(ExprPtr e) {
    e->end = std::max(e->end, prev_end());
    int depth = 0;
    for (const ExprPtr& c : e->items)
      if (c) depth = std::max(depth, c->depth);
    for (const Arg& a : e->args) depth = std::max(depth, a.value->depth);
    e->depth = depth + 1;
    if (e->kind == Kind::Binary) {
      // A link of a left-deep chain adds a level to its right operand only (see Expr::depth).
      const Expr& left = *e->items[0];
      e->chain = left.kind == Kind::Binary ? left.chain + 1 : 1;
      if (e->chain > 1) e->depth = std::max(left.depth, e->items[1]->depth + 1);
      if (e->chain > kMaxChain)
        throw src_.error(e->pos, "more than " + std::to_string(kMaxChain) + " operators in one expression",
                         "split it into several assignments");
    }
    if (e->depth > kMaxNesting)
      throw src_.error(e->pos, "expression nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)",
                       "split it into several assignments");
    return e;
  }

  Stmt statement() {
    Stmt s;
    s.pos = cur().pos;
    if (cur().kind == Tok::Name && is_keyword(cur().text) && cur().text != "not") unexpected("a statement", "");
    ExprPtr e = expr_list();
    while (cur().kind == Tok::Assign) {
      check_target(*e);
      s.targets.push_back(std::move(e));
      ++i_;
      if (cur().kind == Tok::Newline || cur().kind == Tok::End || cur().kind == Tok::Semicolon)
        unexpected("an expression after '='", "write the value to assign, e.g. y = exp(x)");
      e = expr_list();
    }
    if (cur().kind == Tok::AugAssign) unexpected("", "");
    s.value = std::move(e);
    return s;
  }

  void check_target(const Expr& e) {
    switch (e.kind) {
      case Kind::Name:
        return;
      case Kind::Tuple:
      case Kind::List:
        if (e.items.empty())
          throw src_.error(e.pos, "cannot assign to an empty " + std::string(e.kind == Kind::List ? "list" : "tuple"),
                           "name the variables to assign: a, b = ...");
        for (const ExprPtr& item : e.items) check_target(*item);
        return;
      case Kind::Subscript:
        throw src_.error(e.pos, "cannot assign to an indexed tensor",
                         "tensors are immutable; build a new one with set_subtensor(x[...], value) or inc_subtensor");
      case Kind::Attribute:
        throw src_.error(e.pos, "cannot assign to an attribute", "assign to a plain name: y = ...");
      case Kind::Call:
        throw src_.error(e.pos, "cannot assign to a function call",
                         "the name goes on the left: y = f(x); to compare, use ==");
      case Kind::Int: case Kind::Float: case Kind::String: case Kind::Bool: case Kind::None:
        throw src_.error(e.pos, "cannot assign to a literal", "the name goes on the left: x = 1; to compare, use ==");
      case Kind::Dict: case Kind::Unary: case Kind::Binary: case Kind::Slice: case Kind::Lambda:
      case Kind::Comprehension: case Kind::CompFor: case Kind::CompIf:
        throw src_.error(e.pos, "cannot assign to an expression", "the name goes on the left: y = a + b; to compare, use ==");
    }
  }

  // expr (',' expr)* [','] : a tuple when there is a comma.
  ExprPtr expr_list() {
    const Pos pos = cur().pos;
    const Pos begin = cur().pos;
    ExprPtr first = expr();
    if (cur().kind != Tok::Comma) return first;
    ExprPtr t = node(Kind::Tuple, pos, begin);
    t->items.push_back(std::move(first));
    while (cur().kind == Tok::Comma) {
      ++i_;
      if (!starts_expression()) break;
      t->items.push_back(expr());
    }
    return finish(std::move(t));
  }

  bool starts_expression() const {
    switch (cur().kind) {
      case Tok::Name: return !is_keyword(cur().text) || cur().text == "not" || cur().text == "lambda";
      case Tok::Int: case Tok::Float: case Tok::String: case Tok::LParen: case Tok::LBracket:
      case Tok::LBrace: case Tok::Plus: case Tok::Minus: case Tok::Tilde:
        return true;
      default:
        return false;
    }
  }

  // `in_comprehension`: the expression may be followed by a comprehension's `for` or `if`,
  // which the caller reads (or rejects with reject_if_for()).
  ExprPtr expr(bool in_comprehension = false) {
    if (at_name("lambda")) return lambda();
    ExprPtr e = comparison();
    if (cur().kind == Tok::Name && (cur().text == "and" || cur().text == "or"))
      throw src_.error(cur().pos, "'" + cur().text + "' is not an elementwise operator",
                       cur().text == "and" ? "use & on bool tensors (e.g. (x > 0) & (x < 1)) or logical_and(a, b)"
                                           : "use | on bool tensors (e.g. (x < 0) | (x > 1)) or logical_or(a, b)");
    if (!in_comprehension) reject_if_for();
    return e;
  }

  // Python's conditional expression and a comprehension where none can be.
  void reject_if_for() const {
    if (at_name("if"))
      throw src_.error(cur().pos, "conditional expressions are not supported", "for an elementwise choice use where(cond, a, b)");
    if (at_name("for"))
      throw src_.error(cur().pos, "a comprehension must be the only item inside [...] or {...}",
                       "write [f(x) for x in xs], or {w: f(w) for w in ws} for updates");
  }

  // The clauses after a comprehension's element (at `for`): for TARGETS in EXPR, then any
  // number of further `for` and `if` clauses, up to `close`.
  ExprPtr comprehension(ExprPtr element, Pos pos, Pos begin, Tok close) {
    ExprPtr e = node(Kind::Comprehension, pos, begin);
    e->items.push_back(std::move(element));
    const std::string form = close == Tok::RBracket ? "[f(x) for x in xs if cond]" : "{w: f(w) for w in ws}";
    while (cur().kind != close) {
      if (at_name("for")) {
        ExprPtr clause = node(Kind::CompFor, cur().pos, cur().pos);
        ++i_;  // for
        ExprPtr target = comprehension_target(form);
        if (!at_name("in")) unexpected("'in'", "a comprehension reads " + form);
        ++i_;  // in
        if (!starts_expression()) unexpected("what to iterate over", "a comprehension reads " + form);
        clause->items.push_back(std::move(target));
        clause->items.push_back(expr(true));
        e->items.push_back(finish(std::move(clause)));
      } else if (at_name("if")) {
        ExprPtr clause = node(Kind::CompIf, cur().pos, cur().pos);
        ++i_;  // if
        if (!starts_expression()) unexpected("a condition", "a comprehension reads " + form);
        clause->items.push_back(expr(true));
        e->items.push_back(finish(std::move(clause)));
      } else {
        unexpected(std::string("'for', 'if' or '") + (close == Tok::RBracket ? "]" : "}") + "'",
                   "a comprehension reads " + form);
      }
    }
    ++i_;  // ] or }
    return finish(std::move(e));
  }

  // A comprehension's loop variables: names separated by commas, each possibly a
  // parenthesized group of its own (for i, (a, b) in enumerate(zip(xs, ys))), each name once.
  ExprPtr comprehension_target(const std::string& form) {
    std::vector<std::string> seen;
    return target_list(form, seen);
  }

  // (The lexer bounds the parentheses' nesting, so this recursion is bounded too.)
  ExprPtr target_list(const std::string& form, std::vector<std::string>& seen) {
    const Pos begin = cur().pos;
    std::vector<ExprPtr> items;
    bool comma = false;
    while (true) {
      if (cur().kind == Tok::LParen) {
        ++i_;
        items.push_back(target_list(form, seen));
        expect(Tok::RParen, "close the '(' of the loop variables with ')'");
      } else {
        if (cur().kind != Tok::Name || is_keyword(cur().text))
          unexpected("a loop variable's name", "a comprehension reads " + form);
        if (std::find(seen.begin(), seen.end(), cur().text) != seen.end())
          throw src_.error(cur().pos, "loop variable '" + cur().text + "' is listed twice", "name each variable once");
        seen.push_back(cur().text);
        ExprPtr n = node(Kind::Name, cur().pos, cur().pos);
        n->text = cur().text;
        ++i_;
        items.push_back(finish(std::move(n)));
      }
      if (cur().kind != Tok::Comma) break;
      comma = true;
      ++i_;
    }
    if (items.size() == 1 && !comma) return std::move(items[0]);
    ExprPtr t = node(Kind::Tuple, begin, begin);
    for (ExprPtr& n : items) t->items.push_back(std::move(n));
    return finish(std::move(t));
  }

  // lambda [name (',' name)*] ':' expr — a function literal (a step of scan()).
  ExprPtr lambda() {
    const Pos pos = cur().pos;
    ++i_;  // lambda
    ExprPtr e = node(Kind::Lambda, pos, pos);
    while (cur().kind != Tok::Colon) {
      if (cur().kind != Tok::Name || is_keyword(cur().text))
        unexpected("a parameter name or ':'", "a lambda reads: lambda x, h: tanh(x + h)");
      for (const std::string& p : e->params)
        if (p == cur().text) throw src_.error(cur().pos, "parameter '" + p + "' is listed twice", "name each parameter once");
      e->params.push_back(cur().text);
      ++i_;
      if (cur().kind == Tok::Comma) ++i_;
      else if (cur().kind != Tok::Colon) unexpected("',' or ':'", "a lambda reads: lambda x, h: tanh(x + h)");
    }
    ++i_;  // :
    if (!starts_expression()) unexpected("the lambda's body", "a lambda reads: lambda x, h: tanh(x + h)");
    e->items.push_back(expr());
    return finish(std::move(e));
  }

  static bool is_comparison(Tok t) {
    return t == Tok::Lt || t == Tok::Le || t == Tok::Gt || t == Tok::Ge || t == Tok::EqEq || t == Tok::NotEq;
  }

  ExprPtr comparison() {
    const Pos begin = cur().pos;
    ExprPtr left = bit_or();
    if (at_name("in") || at_name("is") || (at_name("not") && next().kind == Tok::Name))
      throw src_.error(cur().pos, "'" + cur().text + "' comparisons are not supported",
                       "compare tensors elementwise with == != < <= > >=");
    if (!is_comparison(cur().kind)) return left;
    ExprPtr e = binary(std::move(left), begin, [this] { return bit_or(); });
    if (is_comparison(cur().kind))
      throw src_.error(cur().pos, "chained comparisons are not supported",
                       "combine two comparisons with &: (a < b) & (b < c)");
    return e;
  }

  // One left-associative binary operation at the current operator token.
  template <typename Operand>
  ExprPtr binary(ExprPtr left, Pos begin, Operand operand) {
    const Token op = cur();
    ++i_;
    ExprPtr e = node(Kind::Binary, op.pos, begin);
    e->op = op.kind;
    e->items.push_back(std::move(left));
    e->items.push_back(operand());
    return finish(std::move(e));
  }

  ExprPtr bit_or() {
    const Pos begin = cur().pos;
    ExprPtr e = bit_xor();
    while (cur().kind == Tok::Pipe) e = binary(std::move(e), begin, [this] { return bit_xor(); });
    return e;
  }
  ExprPtr bit_xor() {
    const Pos begin = cur().pos;
    ExprPtr e = bit_and();
    while (cur().kind == Tok::Caret) e = binary(std::move(e), begin, [this] { return bit_and(); });
    return e;
  }
  ExprPtr bit_and() {
    const Pos begin = cur().pos;
    ExprPtr e = shift();
    while (cur().kind == Tok::Amp) e = binary(std::move(e), begin, [this] { return shift(); });
    return e;
  }
  ExprPtr shift() {
    ExprPtr e = arith();
    if (cur().kind == Tok::LShift || cur().kind == Tok::RShift)
      throw src_.error(cur().pos, "shift operators are not supported", "tensors have no bitwise shifts in tgc");
    return e;
  }
  ExprPtr arith() {
    const Pos begin = cur().pos;
    ExprPtr e = term();
    while (cur().kind == Tok::Plus || cur().kind == Tok::Minus)
      e = binary(std::move(e), begin, [this] { return term(); });
    return e;
  }
  ExprPtr term() {
    const Pos begin = cur().pos;
    ExprPtr e = unary();
    while (cur().kind == Tok::Star || cur().kind == Tok::Slash || cur().kind == Tok::DoubleSlash ||
           cur().kind == Tok::Percent || cur().kind == Tok::At)
      e = binary(std::move(e), begin, [this] { return unary(); });
    return e;
  }

  // ('+' | '-' | '~') unary | power. Every recursion of the parser passes here.
  ExprPtr unary() {
    struct DepthGuard {
      int& depth;
      ~DepthGuard() { --depth; }
    } guard{++depth_};
    if (depth_ > kMaxNesting)
      throw src_.error(cur().pos, "expression nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)",
                       "split it into several assignments");
    if (at_name("not"))
      throw src_.error(cur().pos, "'not' is not supported on tensors", "use ~x on a bool tensor, or logical_not(x)");
    if (cur().kind == Tok::Plus || cur().kind == Tok::Minus || cur().kind == Tok::Tilde) {
      const Token op = cur();
      ++i_;
      ExprPtr e = node(Kind::Unary, op.pos, op.pos);
      e->op = op.kind;
      e->items.push_back(unary());
      return finish(std::move(e));
    }
    return power();
  }

  // primary ['**' unary]: right-associative, and -x**2 is -(x**2) because unary() calls here.
  ExprPtr power() {
    const Pos begin = cur().pos;
    ExprPtr base = primary();
    if (cur().kind != Tok::DoubleStar) return base;
    return binary(std::move(base), begin, [this] { return unary(); });
  }

  ExprPtr primary() {
    const Pos begin = cur().pos;
    ExprPtr e = atom();
    while (true) {
      if (cur().kind == Tok::LParen) {
        e = call(std::move(e), begin);
      } else if (cur().kind == Tok::LBracket) {
        e = subscript(std::move(e), begin);
      } else if (cur().kind == Tok::Dot) {
        ++i_;
        if (cur().kind != Tok::Name) unexpected("an attribute name after '.'", "e.g. x.T or x.sum(axis=0)");
        ExprPtr a = node(Kind::Attribute, cur().pos, begin);
        a->text = cur().text;
        ++i_;
        a->items.push_back(std::move(e));
        e = finish(std::move(a));
      } else {
        return e;
      }
    }
  }

  ExprPtr call(ExprPtr callee, Pos begin) {
    if (callee->kind != Kind::Name && callee->kind != Kind::Attribute)
      throw src_.error(cur().pos, "only functions and methods can be called",
                       "call a builtin by name, e.g. exp(x), or a method, e.g. x.sum()");
    ExprPtr e = node(Kind::Call, callee->pos, begin);
    ++i_;  // (
    bool keywords = false;
    while (cur().kind != Tok::RParen) {
      Arg arg;
      if (cur().kind == Tok::Star || cur().kind == Tok::DoubleStar)
        throw src_.error(cur().pos, "argument unpacking is not supported", "pass the arguments one by one");
      if (cur().kind == Tok::Name && next().kind == Tok::Assign) {
        arg.keyword = cur().text;
        arg.keyword_pos = cur().pos;
        for (const Arg& a : e->args)
          if (a.keyword == arg.keyword)
            throw src_.error(cur().pos, "keyword argument '" + arg.keyword + "' repeated", "give each keyword once");
        i_ += 2;
        keywords = true;
      } else if (keywords) {
        throw src_.error(cur().pos, "positional argument follows keyword argument",
                         "put positional arguments first: f(a, b, key=value)");
      }
      if (!starts_expression()) unexpected("an argument", "arguments are separated by ','");
      arg.value = expr();
      e->args.push_back(std::move(arg));
      if (cur().kind == Tok::Comma) {
        ++i_;
      } else if (cur().kind != Tok::RParen) {
        unexpected("',' or ')'", "arguments are separated by ','");
      }
    }
    ++i_;  // )
    e->items.push_back(std::move(callee));
    return finish(std::move(e));
  }

  ExprPtr subscript(ExprPtr target, Pos begin) {
    ExprPtr e = node(Kind::Subscript, cur().pos, begin);
    ++i_;  // [
    e->items.push_back(std::move(target));
    while (cur().kind != Tok::RBracket) {
      e->items.push_back(index_entry());
      if (cur().kind == Tok::Comma) {
        ++i_;
      } else if (cur().kind != Tok::RBracket) {
        unexpected("',' or ']'", "index entries are separated by ',': x[1:, ::2]");
      }
    }
    if (e->items.size() == 1) throw src_.error(cur().pos, "empty index", "write an index such as x[0] or x[:, 1:]");
    ++i_;  // ]
    return finish(std::move(e));
  }

  // [expr] [':' [expr] [':' [expr]]]
  ExprPtr index_entry() {
    const Pos pos = cur().pos;
    const Pos begin = pos;
    ExprPtr start;
    if (cur().kind != Tok::Colon) {
      start = expr();
      if (cur().kind != Tok::Colon) return start;
    }
    ExprPtr s = node(Kind::Slice, pos, begin);
    ExprPtr parts[3] = {std::move(start), nullptr, nullptr};
    for (int k = 1; k < 3 && cur().kind == Tok::Colon; ++k) {
      ++i_;
      if (cur().kind != Tok::Colon && cur().kind != Tok::Comma && cur().kind != Tok::RBracket) parts[k] = expr();
    }
    for (ExprPtr& p : parts) s->items.push_back(std::move(p));
    return finish(std::move(s));
  }

  ExprPtr atom() {
    const Token& t = cur();
    const Pos begin = t.pos;
    switch (t.kind) {
      case Tok::Int: {
        ++i_;
        ExprPtr e = node(Kind::Int, t.pos, begin);
        e->int_value = t.int_value;
        e->text = t.text;
        return e;
      }
      case Tok::Float: {
        ++i_;
        ExprPtr e = node(Kind::Float, t.pos, begin);
        e->float_value = t.float_value;
        e->text = t.text;
        return e;
      }
      case Tok::String: {
        ++i_;
        ExprPtr e = node(Kind::String, t.pos, begin);
        e->text = t.text;
        if (cur().kind == Tok::String)
          throw src_.error(cur().pos, "adjacent strings are not joined in .tg files", "write one string");
        return e;
      }
      case Tok::Name: {
        if (is_keyword(t.text)) unexpected("an expression", "");
        ++i_;
        if (t.text == "True" || t.text == "true" || t.text == "False" || t.text == "false") {
          ExprPtr e = node(Kind::Bool, t.pos, begin);
          e->bool_value = t.text[0] == 'T' || t.text[0] == 't';
          return e;
        }
        if (t.text == "None") return node(Kind::None, t.pos, begin);
        ExprPtr e = node(Kind::Name, t.pos, begin);
        e->text = t.text;
        return e;
      }
      case Tok::LParen: {
        ++i_;
        if (cur().kind == Tok::RParen) {
          ++i_;
          return node(Kind::Tuple, t.pos, begin);
        }
        ExprPtr inner = expr_list();
        expect(Tok::RParen, "close the '(' with ')'");
        // Parentheses only group: the inner expression keeps its own position, but its
        // text (for output names) now includes them.
        inner->start = begin;
        inner->begin = begin.offset;
        inner->end = prev_end();
        return inner;
      }
      case Tok::LBracket: {
        ++i_;
        ExprPtr e = node(Kind::List, t.pos, begin);
        while (cur().kind != Tok::RBracket) {
          if (!starts_expression()) unexpected("a list item or ']'", "list items are separated by ','");
          e->items.push_back(expr(e->items.empty()));
          if (e->items.size() == 1 && at_name("for"))
            return comprehension(std::move(e->items[0]), t.pos, begin, Tok::RBracket);
          reject_if_for();
          if (cur().kind == Tok::Comma) {
            ++i_;
          } else if (cur().kind != Tok::RBracket) {
            unexpected("',' or ']'", "list items are separated by ','");
          }
        }
        ++i_;
        return finish(std::move(e));
      }
      case Tok::LBrace: {
        ++i_;
        ExprPtr e = node(Kind::Dict, t.pos, begin);
        while (cur().kind != Tok::RBrace) {
          if (!starts_expression()) unexpected("a key or '}'", "write {shared_var: new_value, ...}");
          e->items.push_back(expr());
          expect(Tok::Colon, "a dict item is key: value");
          e->items.push_back(expr(e->items.size() == 1));
          if (e->items.size() == 2 && at_name("for")) {
            // {k: v for ...}: the list of (k, v) pairs, as a dict literal is.
            ExprPtr pair = node(Kind::Tuple, e->items[0]->pos, e->items[0]->start);
            pair->items.push_back(std::move(e->items[0]));
            pair->items.push_back(std::move(e->items[1]));
            return comprehension(finish(std::move(pair)), t.pos, begin, Tok::RBrace);
          }
          reject_if_for();
          if (cur().kind == Tok::Comma) {
            ++i_;
          } else if (cur().kind != Tok::RBrace) {
            unexpected("',' or '}'", "dict items are separated by ','");
          }
        }
        ++i_;
        return finish(std::move(e));
      }
      default:
        unexpected("an expression", t.kind == Tok::Newline || t.kind == Tok::End
                                        ? "the expression is incomplete"
                                        : "");
    }
  }

  const SourceText& src_;
  std::vector<Token> tokens_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

Module parse_module(const SourceText& src) { return Parser(src).module(); }

ExprPtr parse_expression(const SourceText& src) { return Parser(src).single_expression(); }

}  // namespace tgc::lang
