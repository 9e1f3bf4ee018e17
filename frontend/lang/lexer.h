// The .tg lexer: turns source text into tokens with positions. Python's lexical rules, cut
// down: no indentation blocks, line breaks inside brackets are ignored, '\' continues a line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/lang/source_text.h"

namespace tgc::lang {

enum class Tok {
  Name, Int, Float, String, Newline, End,
  LParen, RParen, LBracket, RBracket, LBrace, RBrace,
  Comma, Colon, Semicolon, Dot, Assign,
  Plus, Minus, Star, Slash, DoubleSlash, Percent, DoubleStar, At,
  Tilde, Amp, Pipe, Caret, LShift, RShift,
  Lt, Le, Gt, Ge, EqEq, NotEq,
  AugAssign,  // +=, -=, ...: recognised only to explain that they are not supported
  Arrow,      // ->: likewise
};

struct Token {
  Tok kind = Tok::End;
  Pos pos;
  int end = 0;       // byte offset just past the token
  std::string text;  // the token as written (a String's decoded value for strings)
  int64_t int_value = 0;
  double float_value = 0;
};

// How a token kind reads in messages: "')'", "a name", "the end of the file".
std::string tok_name(Tok kind);

// Bracket nesting deeper than this is an error (the parser and evaluator recurse).
inline constexpr int kMaxNesting = 200;
// Operators in one left-deep chain (a + b + c + ...): far beyond any written program, and few
// enough that destroying the chain's tree (recursive, one frame per link) stays shallow.
inline constexpr int kMaxChain = 5000;

// The tokens of `src`, ending with Newline (if the last line lacks one) and End. Throws
// SourceError for bytes that are not UTF-8, unexpected characters, malformed or
// out-of-range numbers, unterminated strings and unbalanced brackets.
std::vector<Token> tokenize(const SourceText& src);

}  // namespace tgc::lang
