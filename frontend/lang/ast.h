// The .tg syntax tree: expressions and assignment statements, each with the source position
// that errors about it point at.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/lang/lexer.h"

namespace tgc::lang {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// One argument of a call: positional when `keyword` is empty.
struct Arg {
  std::string keyword;
  Pos keyword_pos;
  ExprPtr value;
};

struct Expr {
  enum class Kind {
    Name,       // text
    Int,        // int_value
    Float,      // float_value
    String,     // text (decoded)
    Bool,       // bool_value
    None,
    List,       // items
    Tuple,      // items
    Dict,       // items: key, value, key, value, ...
    Unary,      // op, items[0]
    Binary,     // op, items[0], items[1]; pos is the operator's
    Call,       // items[0] the callee (a Name or an Attribute), args
    Attribute,  // items[0] . text
    Subscript,  // items[0] [ items[1], ... ]
    Slice,      // items[0]:items[1]:items[2], each possibly null (only inside a subscript)
    Lambda,     // lambda params: items[0]
    // [items[0] for ... if ...]: items[1..] are its clauses, in order, each a CompFor or a
    // CompIf ({k: v for ...} is the list of (k, v) tuples: items[0] a Tuple)
    Comprehension,
    CompFor,    // for items[0] (a Name, or a Tuple of names) in items[1]
    CompIf,     // if items[0]
  };

  Kind kind;
  Pos pos;         // where errors about this expression point (an operator's token)
  Pos start;       // where the whole expression starts (errors about it as an argument)
  int begin = 0;   // byte offsets of the whole expression in the source
  int end = 0;
  // Height of the tree below (a leaf is 1), counting a left-deep chain of binary operators
  // (a + b + c + ...) as one level: the evaluator walks such a chain in a loop, not by recursion.
  int depth = 1;
  int chain = 0;   // binary operators on this expression's left spine (itself included)
  std::string text;
  int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  Tok op = Tok::End;
  std::vector<ExprPtr> items;
  std::vector<Arg> args;
  std::vector<std::string> params;  // Lambda
};

// `targets = value`, or (targets empty) a bare expression. Chained assignments
// (a = b = expr) have several targets; each target is a Name, or a Tuple/List of them.
struct Stmt {
  Pos pos;
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

struct Module {
  std::vector<Stmt> statements;
};

}  // namespace tgc::lang
