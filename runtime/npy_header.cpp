// The .npy header: its Python-literal dict, read with a small strict parser that never
// evaluates anything, and what the dict says (dtype and byte order, memory order, shape).
#include "runtime/npy_header.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <iterator>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "runtime/error.h"
#include "runtime/rank_limit.h"

namespace tgc {

namespace {

const char* const kDtypeHint =
    "tgc reads bool, int8, int16, int32, int64, uint8, float16, float32, float64 and bfloat16 "
    "(ml_dtypes' '<V2'); convert in NumPy "
    "first, e.g. numpy.save(path, array.astype(numpy.float64))";

// ---- The header: a Python literal ----------------------------------------------------

struct Literal {
  enum class Kind { Str, Int, Bool, None, Tuple, List, Dict };
  Kind kind = Kind::None;
  std::string str;                // Str
  int64_t num = 0;                // Int
  bool flag = false;              // Bool
  std::vector<Literal> items;     // Tuple, List; a Dict's values
  std::vector<std::string> keys;  // a Dict's keys, parallel to items
};

// The header text for messages: quoted, non-printable bytes escaped, long ones cut.
std::string quote_header(std::string_view text) {
  std::string out;
  for (unsigned char c : text.substr(0, 160))
    out += (c >= 32 && c < 127) ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
  return "\"" + out + (text.size() > 160 ? "..." : "") + "\"";
}

// Parses exactly the literals NumPy writes (strings, integers, True/False/None, tuples,
// lists, dicts with string keys) — never evaluates anything, like NumPy's literal_eval.
class LiteralParser {
 public:
  LiteralParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Literal parse() {
    Literal v = value(0);
    skip_space();
    if (pos_ != text_.size()) error("unexpected text after the header dict");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    npy_read_error(source_, fmt::format("malformed header ({} at offset {}): {}", what, pos_,
                                        quote_header(text_)));
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) error(at_end() ? fmt::format("missing '{}'", c) : fmt::format("expected '{}'", c));
    ++pos_;
  }

  Literal value(int depth) {
    if (depth > 16) error("literal nested too deeply");
    skip_space();
    if (at_end()) error("unexpected end of header");
    char c = peek();
    if (c == '\'' || c == '"') return string();
    if (c == '(' || c == '[') return sequence(depth);
    if (c == '{') return dict(depth);
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return integer();
    if (std::isalpha(static_cast<unsigned char>(c))) return name();
    error(fmt::format("unexpected character '{}'", c));
  }

  Literal string() {
    const char quote = text_[pos_++];
    Literal v;
    v.kind = Literal::Kind::Str;
    while (true) {
      if (at_end() || peek() == '\n') error("unterminated string");
      char c = text_[pos_++];
      if (c == quote) return v;
      if (c == '\\') {
        if (at_end()) error("unterminated string");
        char e = text_[pos_++];
        switch (e) {
          case '\\': case '\'': case '"': v.str += e; break;
          case 'n': v.str += '\n'; break;
          case 't': v.str += '\t'; break;
          default: error(fmt::format("unsupported escape '\\{}' in a string", e));
        }
      } else {
        v.str += c;
      }
    }
  }

  Literal integer() {
    bool negative = false;
    if (peek() == '-' || peek() == '+') negative = text_[pos_++] == '-';
    if (!(peek() >= '0' && peek() <= '9')) error("expected digits");
    uint64_t magnitude = 0;
    while (peek() >= '0' && peek() <= '9') {
      uint64_t digit = static_cast<uint64_t>(text_[pos_++] - '0');
      if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) error("integer too large");
      magnitude = magnitude * 10 + digit;
    }
    if (peek() == 'L' || peek() == 'l') ++pos_;  // Python 2 longs, in headers NumPy wrote then
    if (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '.' || peek() == '_')
      error("malformed number (only integers are allowed)");
    const uint64_t limit = uint64_t{1} << 63;
    if (magnitude > (negative ? limit : limit - 1)) error("integer too large");
    Literal v;
    v.kind = Literal::Kind::Int;
    v.num = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    return v;
  }

  Literal name() {
    size_t start = pos_;
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++pos_;
    std::string_view word = text_.substr(start, pos_ - start);
    Literal v;
    if (word == "True" || word == "False") {
      v.kind = Literal::Kind::Bool;
      v.flag = word == "True";
    } else if (word == "None") {
      v.kind = Literal::Kind::None;
    } else {
      pos_ = start;
      error(fmt::format("unknown name '{}' (only True, False and None are allowed)", word));
    }
    return v;
  }

  // "(a, b)", "(a,)", "()" are tuples and "(a)" is just a; "[...]" is a list.
  Literal sequence(int depth) {
    const char close = text_[pos_++] == '(' ? ')' : ']';
    Literal v;
    v.kind = close == ')' ? Literal::Kind::Tuple : Literal::Kind::List;
    bool trailing_comma = false;
    while (true) {
      skip_space();
      if (peek() == close) break;
      v.items.push_back(value(depth + 1));
      skip_space();
      trailing_comma = peek() == ',';
      if (!trailing_comma) break;
      ++pos_;
    }
    expect(close);
    if (close == ')' && v.items.size() == 1 && !trailing_comma) return v.items[0];
    return v;
  }

  Literal dict(int depth) {
    ++pos_;
    Literal v;
    v.kind = Literal::Kind::Dict;
    while (true) {
      skip_space();
      if (peek() == '}') break;
      if (peek() != '\'' && peek() != '"') error("expected a string key");
      std::string key = string().str;
      if (std::find(v.keys.begin(), v.keys.end(), key) != v.keys.end())
        error(fmt::format("duplicate key '{}'", key));
      expect(':');
      v.keys.push_back(key);
      v.items.push_back(value(depth + 1));
      skip_space();
      if (peek() != ',') break;
      ++pos_;
    }
    expect('}');
    return v;
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
};

// ---- Header meaning ----------------------------------------------------------------

struct DescrCode {
  std::string_view code;
  DType dtype;
};
constexpr DescrCode kDescrCodes[] = {
    {"b1", DType::Bool},   {"?", DType::Bool},    {"i1", DType::Int8},    {"u1", DType::UInt8},
    {"i2", DType::Int16},  {"i4", DType::Int32},  {"i8", DType::Int64},   {"f4", DType::Float32},
    {"f8", DType::Float64},  {"f2", DType::Float16},
    // ml_dtypes' bfloat16 saves as two raw bytes ("<V2"): the only 2-byte raw type tgc
    // reads, and read as bfloat16 (docs/precision.md).
    {"V2", DType::BFloat16}};

// What an unsupported type code is, for the message.
std::string unsupported_kind(std::string_view code) {
  switch (code.empty() ? '\0' : code[0]) {
    case 'c': return "complex numbers";
    case 'f': return "a float width tgc does not have";
    case 'u': return "an unsigned integer width tgc does not have";
    case 'i': return "an integer width tgc does not have";
    case 'U': case 'S': case 'a': return "strings";
    case 'M': case 'm': return "dates or time deltas";
    case 'V': return "raw bytes";
    default: return "not a NumPy type code tgc knows";
  }
}

void parse_descr(const std::string& descr, const std::string& source, NpyHeader& h) {
  std::string_view code = descr;
  char order = '=';
  if (!code.empty() && std::string_view("<>=|").find(code[0]) != std::string_view::npos) {
    order = code[0];
    code.remove_prefix(1);
  }
  if (code == "O" || code == "O8")
    npy_read_error(source, fmt::format("object arrays are not supported (dtype '{}')", descr),
                   "object arrays hold pickled Python objects; save a numeric array instead, e.g. "
                   "numpy.save(path, array.astype(numpy.float64))");
  for (const DescrCode& c : kDescrCodes) {
    if (c.code != code) continue;
    h.dtype = c.dtype;
    const bool little_endian_host = std::endian::native == std::endian::little;
    h.swap = dtype_size(c.dtype) > 1 &&
             ((order == '>' && little_endian_host) || (order == '<' && !little_endian_host));
    return;
  }
  npy_read_error(source, fmt::format("unsupported dtype '{}' ({})", descr, unsupported_kind(code)), kDtypeHint);
}

NpyHeader interpret_header(const Literal& dict, const std::string& source) {
  if (dict.kind != Literal::Kind::Dict) npy_read_error(source, "the header is not a dict");
  const char* const required[] = {"descr", "fortran_order", "shape"};
  for (const std::string& key : dict.keys)
    if (std::find(std::begin(required), std::end(required), key) == std::end(required))
      npy_read_error(source, fmt::format("the header has an unexpected key '{}' (expected exactly 'descr', "
                                         "'fortran_order' and 'shape')", key));
  auto get = [&](const char* key) -> const Literal& {
    for (size_t i = 0; i < dict.keys.size(); ++i)
      if (dict.keys[i] == key) return dict.items[i];
    npy_read_error(source, fmt::format("the header has no '{}' key", key));
  };

  NpyHeader h;
  const Literal& descr = get("descr");
  if (descr.kind == Literal::Kind::List)
    npy_read_error(source, "structured (record) dtypes are not supported",
                   "save each field as its own array, e.g. numpy.save(path, records['x'])");
  if (descr.kind != Literal::Kind::Str) npy_read_error(source, "the header's 'descr' is not a string");
  parse_descr(descr.str, source, h);

  const Literal& fortran = get("fortran_order");
  if (fortran.kind != Literal::Kind::Bool) npy_read_error(source, "the header's 'fortran_order' is not True or False");
  h.fortran = fortran.flag;

  const Literal& shape = get("shape");
  if (shape.kind != Literal::Kind::Tuple) npy_read_error(source, "the header's 'shape' is not a tuple");
  if (shape.items.size() > static_cast<size_t>(kMaxRank))
    npy_read_error(source, fmt::format("the array has {} dimensions, more than tgc's limit of {}", shape.items.size(), kMaxRank),
                   fmt::format("a tensor has at most {} dimensions (NumPy's limit); save it with fewer, "
                               "e.g. np.save(path, a.reshape(-1))",
                               kMaxRank));
  int64_t bytes = static_cast<int64_t>(dtype_size(h.dtype));
  for (const Literal& d : shape.items) {
    if (d.kind != Literal::Kind::Int || d.num < 0)
      npy_read_error(source, "the header's 'shape' must hold non-negative integers");
    h.shape.push_back(d.num);
  }
  for (int64_t d : h.shape) {
    if (d != 0 && bytes > std::numeric_limits<int64_t>::max() / d)
      npy_read_error(source, fmt::format("the shape {} is too large", shape_str(h.shape)));
    bytes *= d;
  }
  return h;
}

}  // namespace

void npy_read_error(const std::string& source, const std::string& problem, const std::string& hint) {
  throw IOError(fmt::format("cannot read .npy file '{}': {}", source, problem), "", hint);
}

NpyHeader parse_npy_header(std::string_view text, const std::string& source) {
  return interpret_header(LiteralParser(text, source).parse(), source);
}

}  // namespace tgc
