// The .tg parser: recursive descent over the lexer's tokens with Python's operator
// precedence (** binds tighter than a unary minus on its left, and is right-associative).
#pragma once

#include "frontend/lang/ast.h"
#include "frontend/lang/source_text.h"

namespace tgc::lang {

// A whole file. Throws SourceError for syntax errors, constructs the language does not
// have (loops, user functions, imports, ...) and expressions nested more than
// kMaxNesting levels deep.
Module parse_module(const SourceText& src);

// A single expression filling the whole text (the CLI's --input NAME=EXPR).
ExprPtr parse_expression(const SourceText& src);

}  // namespace tgc::lang
