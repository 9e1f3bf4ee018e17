// The .tg lexer: token kinds, values and positions; line joining inside brackets;
// numbers, strings, comments; code-point columns.
#include <gtest/gtest.h>

#include "frontend/lang/lexer.h"

namespace tgc::lang {
namespace {

std::vector<Token> lex(const std::string& text) { return tokenize(SourceText("t.tg", text)); }

std::vector<Tok> kinds(const std::vector<Token>& tokens) {
  std::vector<Tok> out;
  for (const Token& t : tokens) out.push_back(t.kind);
  return out;
}

TEST(Lexer, AssignmentTokensWithPositions) {
  auto t = lex("y = exp(x)  # comment\n");
  EXPECT_EQ(kinds(t), (std::vector<Tok>{Tok::Name, Tok::Assign, Tok::Name, Tok::LParen, Tok::Name, Tok::RParen,
                                        Tok::Newline, Tok::End}));
  EXPECT_EQ(t[2].text, "exp");
  EXPECT_EQ(t[2].pos.line, 1);
  EXPECT_EQ(t[2].pos.col, 5);
  EXPECT_EQ(t[4].pos.col, 9);
}

TEST(Lexer, OperatorsLongestMatch) {
  auto t = lex("a ** b // c <= d >= e == f != g @ h");
  std::vector<Tok> ops;
  for (size_t i = 1; i < t.size(); i += 2) ops.push_back(t[i].kind);
  EXPECT_EQ(ops, (std::vector<Tok>{Tok::DoubleStar, Tok::DoubleSlash, Tok::Le, Tok::Ge, Tok::EqEq, Tok::NotEq,
                                   Tok::At, Tok::Newline}));
}

TEST(Lexer, Numbers) {
  auto t = lex("42 1_000 0x2A 0b101 0o17 3.5 .5 5. 1e-3 2E+2");
  EXPECT_EQ(t[0].int_value, 42);
  EXPECT_EQ(t[1].int_value, 1000);
  EXPECT_EQ(t[2].int_value, 42);
  EXPECT_EQ(t[3].int_value, 5);
  EXPECT_EQ(t[4].int_value, 15);
  EXPECT_EQ(t[5].kind, Tok::Float);
  EXPECT_DOUBLE_EQ(t[5].float_value, 3.5);
  EXPECT_DOUBLE_EQ(t[6].float_value, 0.5);
  EXPECT_DOUBLE_EQ(t[7].float_value, 5.0);
  EXPECT_DOUBLE_EQ(t[8].float_value, 1e-3);
  EXPECT_DOUBLE_EQ(t[9].float_value, 200.0);
}

TEST(Lexer, LargestIntegerAndTinyFloat) {
  auto t = lex("9223372036854775807 1e-400");
  EXPECT_EQ(t[0].int_value, INT64_MAX);
  EXPECT_EQ(t[1].float_value, 0.0);  // underflow to 0, as in Python
}

TEST(Lexer, StringsWithEscapesAndBothQuotes) {
  auto t = lex(R"(a = "x\"y" + 'it\'s\n')");
  EXPECT_EQ(t[2].kind, Tok::String);
  EXPECT_EQ(t[2].text, "x\"y");
  EXPECT_EQ(t[4].text, "it's\n");
}

TEST(Lexer, NewlinesInsideBracketsAreIgnored) {
  auto t = lex("f = function(\n  [x],\n  [y])\nz = 1\n");
  int newlines = 0;
  for (const Token& tok : t) newlines += tok.kind == Tok::Newline;
  EXPECT_EQ(newlines, 2);
}

TEST(Lexer, BackslashContinuesALine) {
  auto t = lex("y = 1 + \\\n    2\n");
  EXPECT_EQ(kinds(t), (std::vector<Tok>{Tok::Name, Tok::Assign, Tok::Int, Tok::Plus, Tok::Int, Tok::Newline, Tok::End}));
  EXPECT_EQ(t[4].pos.line, 2);
}

TEST(Lexer, BlankLinesAndCommentsMakeNoTokens) {
  auto t = lex("\n\n# only a comment\n   \n");
  EXPECT_EQ(kinds(t), (std::vector<Tok>{Tok::End}));
  EXPECT_EQ(kinds(lex("")), (std::vector<Tok>{Tok::End}));
}

TEST(Lexer, ColumnsCountCodePoints) {
  auto t = lex("s = \"héllo\" + x\n");
  EXPECT_EQ(t[4].text, "x");
  EXPECT_EQ(t[4].pos.col, 15);  // é is one column though two bytes
  EXPECT_EQ(t[2].text, "héllo");
}

TEST(Lexer, ByteOrderMarkIsSkipped) {
  auto t = lex("\xEF\xBB\xBFx = 1\n");
  EXPECT_EQ(t[0].text, "x");
  EXPECT_EQ(t[0].pos.col, 1);
}

TEST(Lexer, AugmentedAssignmentIsOneToken) {
  auto t = lex("x += 1; y //= 2");
  EXPECT_EQ(t[1].kind, Tok::AugAssign);
  EXPECT_EQ(t[1].text, "+=");
  EXPECT_EQ(t[5].kind, Tok::AugAssign);
  EXPECT_EQ(t[5].text, "//=");
}

}  // namespace
}  // namespace tgc::lang
