// The .tg lexer. One pass over the bytes, after checking that the whole text is UTF-8.
#include "frontend/lang/lexer.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tgc::lang {

std::string tok_name(Tok kind) {
  switch (kind) {
    case Tok::Name: return "a name";
    case Tok::Int: return "an integer";
    case Tok::Float: return "a number";
    case Tok::String: return "a string";
    case Tok::Newline: return "the end of the line";
    case Tok::End: return "the end of the file";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Comma: return "','";
    case Tok::Colon: return "':'";
    case Tok::Semicolon: return "';'";
    case Tok::Dot: return "'.'";
    case Tok::Assign: return "'='";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::DoubleSlash: return "'//'";
    case Tok::Percent: return "'%'";
    case Tok::DoubleStar: return "'**'";
    case Tok::At: return "'@'";
    case Tok::Tilde: return "'~'";
    case Tok::Amp: return "'&'";
    case Tok::Pipe: return "'|'";
    case Tok::Caret: return "'^'";
    case Tok::LShift: return "'<<'";
    case Tok::RShift: return "'>>'";
    case Tok::Lt: return "'<'";
    case Tok::Le: return "'<='";
    case Tok::Gt: return "'>'";
    case Tok::Ge: return "'>='";
    case Tok::EqEq: return "'=='";
    case Tok::NotEq: return "'!='";
    case Tok::AugAssign: return "an augmented assignment";
    case Tok::Arrow: return "'->'";
  }
  return "a token";
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// Decodes the (valid) UTF-8 code point at text[i].
uint32_t code_point_at(std::string_view text, size_t i) {
  const unsigned char b = static_cast<unsigned char>(text[i]);
  if (b < 0x80) return b;
  int len = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
  uint32_t cp = b & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (int k = 1; k < len && i + k < text.size(); ++k) cp = (cp << 6) | (text[i + k] & 0x3F);
  return cp;
}

class Lexer {
 public:
  explicit Lexer(const SourceText& src) : src_(src), text_(src.text()) {}

  std::vector<Token> run() {
    check_utf8();
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_.offset = 3;  // a byte-order mark
    while (!at_end()) scan_one();
    if (!brackets_.empty()) {
      const Open& open = brackets_.back();
      throw src_.error(open.pos, "'" + std::string(1, open.ch) + "' was never closed",
                       "add the matching '" + std::string(1, closer(open.ch)) + "'");
    }
    if (!tokens_.empty() && tokens_.back().kind != Tok::Newline) push(Tok::Newline, pos_, pos_.offset);
    push(Tok::End, pos_, pos_.offset);
    return std::move(tokens_);
  }

 private:
  struct Open {
    char ch;
    Pos pos;
  };

  bool at_end() const { return static_cast<size_t>(pos_.offset) >= text_.size(); }
  char peek(int ahead = 0) const {
    size_t i = static_cast<size_t>(pos_.offset) + ahead;
    return i < text_.size() ? text_[i] : '\0';
  }
  void advance() {
    const char c = text_[pos_.offset++];
    if (c == '\n') {
      ++pos_.line;
      pos_.col = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++pos_.col;
    }
  }
  void push(Tok kind, Pos start, int end, std::string text = "") {
    Token t;
    t.kind = kind;
    t.pos = start;
    t.end = end;
    t.text = std::move(text);
    tokens_.push_back(std::move(t));
  }
  static char closer(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

  void check_utf8() {
    const size_t ok = valid_utf8_prefix(text_);
    if (ok == text_.size()) return;
    while (static_cast<size_t>(pos_.offset) < ok) advance();
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text_[ok]));
    throw src_.error(pos_, std::string("invalid UTF-8 byte ") + hex,
                     "a .tg file must be UTF-8 text; save it as UTF-8");
  }

  void scan_one() {
    const char c = peek();
    const Pos start = pos_;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') return advance();
    if (c == '#') {
      while (!at_end() && peek() != '\n') advance();
      return;
    }
    if (c == '\n') {
      advance();
      if (brackets_.empty() && !tokens_.empty() && tokens_.back().kind != Tok::Newline)
        push(Tok::Newline, start, start.offset + 1);
      return;
    }
    if (c == '\\') {
      int skip = peek(1) == '\r' ? 2 : 1;
      if (peek(skip) == '\n') {
        for (int i = 0; i <= skip; ++i) advance();
        return;
      }
      throw src_.error(start, "unexpected character '\\'",
                       "a backslash continues a line only as the line's last character");
    }
    if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return scan_number();
    if (is_name_start(c)) {
      while (is_name_char(peek())) advance();
      return push(Tok::Name, start, pos_.offset, std::string(text_.substr(start.offset, pos_.offset - start.offset)));
    }
    if (c == '"' || c == '\'') return scan_string();
    scan_punctuation();
  }

  void scan_punctuation() {
    const Pos start = pos_;
    const char c = peek(), c1 = peek(1), c2 = peek(2);
    auto emit = [&](Tok kind, int len) {
      for (int i = 0; i < len; ++i) advance();
      push(kind, start, pos_.offset, std::string(text_.substr(start.offset, len)));
    };
    // Augmented assignments (+=, //=, **=, <<=, ...): three-character ones first.
    if (((c == '/' && c1 == '/') || (c == '*' && c1 == '*') || (c == '<' && c1 == '<') ||
         (c == '>' && c1 == '>')) && c2 == '=')
      return emit(Tok::AugAssign, 3);
    if (c1 == '=' && std::string_view("+-*/%@&|^").find(c) != std::string_view::npos)
      return emit(Tok::AugAssign, 2);
    switch (c) {
      case '(': case '[': case '{': {
        brackets_.push_back({c, start});
        if (static_cast<int>(brackets_.size()) > kMaxNesting)
          throw src_.error(start, "brackets nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)",
                           "split the expression into several assignments");
        return emit(c == '(' ? Tok::LParen : c == '[' ? Tok::LBracket : Tok::LBrace, 1);
      }
      case ')': case ']': case '}': {
        if (brackets_.empty())
          throw src_.error(start, std::string("unmatched '") + c + "'",
                           std::string("remove it, or add the opening bracket it closes"));
        const Open open = brackets_.back();
        if (closer(open.ch) != c)
          throw src_.error(start,
                           std::string("closing '") + c + "' does not match '" + open.ch + "' at line " +
                               std::to_string(open.pos.line) + ", column " + std::to_string(open.pos.col),
                           std::string("close the '") + open.ch + "' with '" + closer(open.ch) + "' first");
        brackets_.pop_back();
        return emit(c == ')' ? Tok::RParen : c == ']' ? Tok::RBracket : Tok::RBrace, 1);
      }
      case ',': return emit(Tok::Comma, 1);
      case ':': return emit(Tok::Colon, 1);
      case ';': return emit(Tok::Semicolon, 1);
      case '.': return emit(Tok::Dot, 1);
      case '+': return emit(Tok::Plus, 1);
      case '-': return c1 == '>' ? emit(Tok::Arrow, 2) : emit(Tok::Minus, 1);
      case '*': return c1 == '*' ? emit(Tok::DoubleStar, 2) : emit(Tok::Star, 1);
      case '/': return c1 == '/' ? emit(Tok::DoubleSlash, 2) : emit(Tok::Slash, 1);
      case '%': return emit(Tok::Percent, 1);
      case '@': return emit(Tok::At, 1);
      case '~': return emit(Tok::Tilde, 1);
      case '&': return emit(Tok::Amp, 1);
      case '|': return emit(Tok::Pipe, 1);
      case '^': return emit(Tok::Caret, 1);
      case '<': return c1 == '<' ? emit(Tok::LShift, 2) : c1 == '=' ? emit(Tok::Le, 2) : emit(Tok::Lt, 1);
      case '>': return c1 == '>' ? emit(Tok::RShift, 2) : c1 == '=' ? emit(Tok::Ge, 2) : emit(Tok::Gt, 1);
      case '=': return c1 == '=' ? emit(Tok::EqEq, 2) : emit(Tok::Assign, 1);
      case '!':
        if (c1 == '=') return emit(Tok::NotEq, 2);
        throw src_.error(start, "unexpected character '!'",
                         "write != to compare, ~ or logical_not(x) to negate a bool tensor");
      default: break;
    }
    unexpected_character(start);
  }

  [[noreturn]] void unexpected_character(Pos start) {
    const uint32_t cp = code_point_at(text_, start.offset);
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", cp);
    std::string shown = cp >= 0x20 && cp != 0x7F ? "'" + std::string(text_.substr(start.offset, utf8_len(start.offset))) + "' (" + buf + ")"
                                                 : std::string(buf);
    std::string hint = "names are ASCII letters, digits and '_'; other text belongs in a string or a # comment";
    if (cp == 0x201C || cp == 0x201D || cp == 0x2018 || cp == 0x2019)
      hint = "use plain quotes \" or ' around strings";
    throw src_.error(start, "unexpected character " + shown, hint);
  }

  size_t utf8_len(size_t i) const {
    const unsigned char b = static_cast<unsigned char>(text_[i]);
    return b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
  }

  // Digits of `base` with single '_' between digits; returns them without the '_'.
  std::string scan_digits(int base, const Pos& start) {
    std::string digits;
    bool last_underscore = false;
    while (true) {
      const char c = peek();
      if (c == '_') {
        if (digits.empty() || last_underscore) bad_number(start);
        last_underscore = true;
      } else if (digit_value(c) < base) {
        digits += c;
        last_underscore = false;
      } else {
        break;
      }
      advance();
    }
    if (last_underscore) bad_number(start);
    return digits;
  }

  [[noreturn]] void bad_number(const Pos& start) {
    while (is_name_char(peek()) || peek() == '.') advance();
    throw src_.error(start, "invalid number literal '" + std::string(text_.substr(start.offset, pos_.offset - start.offset)) + "'",
                     "numbers are written like 42, 1_000, 0x2A, 3.5, .5 or 1e-3");
  }

  void scan_number() {
    const Pos start = pos_;
    int base = 10;
    if (peek() == '0' && std::string_view("xXoObB").find(peek(1)) != std::string_view::npos && peek(1) != '\0') {
      const char p = peek(1);
      base = (p == 'x' || p == 'X') ? 16 : (p == 'o' || p == 'O') ? 8 : 2;
      advance();
      advance();
    }
    std::string digits = scan_digits(base, start);
    bool is_float = false;
    if (base == 10) {
      if (peek() == '.') {
        is_float = true;
        advance();
        digits += '.';
        if (is_digit(peek())) digits += scan_digits(10, start);
      }
      if (peek() == 'e' || peek() == 'E') {
        const int sign = (peek(1) == '+' || peek(1) == '-') ? 1 : 0;
        if (is_digit(peek(1 + sign))) {
          is_float = true;
          digits += 'e';
          advance();
          if (sign) {
            digits += peek();
            advance();
          }
          digits += scan_digits(10, start);
        }
      }
    }
    if (digits.empty() || digits == "." || is_name_char(peek())) bad_number(start);
    const std::string written(text_.substr(start.offset, pos_.offset - start.offset));
    Token t;
    t.pos = start;
    t.end = pos_.offset;
    t.text = written;
    if (is_float) {
      errno = 0;
      const double v = std::strtod(digits.c_str(), nullptr);
      if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
        throw src_.error(start, "number " + written + " is out of range (the largest float is about 1.8e308)",
                         "write inf for infinity, or a smaller number");
      t.kind = Tok::Float;
      t.float_value = v;
    } else {
      int64_t v = 0;
      for (char c : digits) {
        if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, digit_value(c), &v))
          throw src_.error(start, "integer " + written + " does not fit in 64 bits",
                           "integers range from -2**63 to 2**63-1; write a float such as 1e20 for larger numbers");
      }
      t.kind = Tok::Int;
      t.int_value = v;
    }
    tokens_.push_back(std::move(t));
  }

  void scan_string() {
    const Pos start = pos_;
    const char quote = peek();
    advance();
    std::string value;
    while (true) {
      if (at_end() || peek() == '\n')
        throw src_.error(start, "unterminated string",
                         std::string("close the string with ") + quote + " on the same line");
      const char c = peek();
      if (c == quote) {
        advance();
        break;
      }
      if (c == '\\' && pos_.offset + 1 < static_cast<int>(text_.size()) && peek(1) != '\n') {
        advance();
        const char e = peek();
        switch (e) {
          case 'n': value += '\n'; break;
          case 't': value += '\t'; break;
          case 'r': value += '\r'; break;
          case '0': value += '\0'; break;
          case '\\': case '\'': case '"': value += e; break;
          default: value += '\\'; value += e; break;  // unknown escapes stay, as in Python
        }
        advance();
        continue;
      }
      value += c;
      advance();
    }
    push(Tok::String, start, pos_.offset, std::move(value));
  }

  const SourceText& src_;
  std::string_view text_;
  Pos pos_;
  std::vector<Token> tokens_;
  std::vector<Open> brackets_;
};

}  // namespace

std::vector<Token> tokenize(const SourceText& src) { return Lexer(src).run(); }

}  // namespace tgc::lang
