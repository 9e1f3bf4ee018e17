// .npy reading and writing: the magic and version prefix, the header (a Python literal
// dict, read with a small strict parser), dtype descriptors with byte order, and the data.
#include "runtime/npy.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace tgc {

namespace {

constexpr std::string_view kMagic{"\x93NUMPY", 6};
constexpr size_t kAlign = 64;                // NumPy aligns the data start to 64 bytes
constexpr size_t kMaxHeaderLen = 1u << 20;   // far beyond any real header; guards allocations
constexpr size_t kGrowthDigits = 21;         // NumPy's spare room after the header dict

const char* const kResaveHint =
    "the file is damaged or not a NumPy .npy file; write it again with numpy.save(path, array)";
const char* const kDtypeHint =
    "tgc reads bool, int8, int16, int32, int64, uint8, float32 and float64; convert in NumPy "
    "first, e.g. numpy.save(path, array.astype(numpy.float64))";

[[noreturn]] void fail(const std::string& source, const std::string& problem,
                       const std::string& hint = kResaveHint) {
  throw IOError(fmt::format("cannot read .npy file '{}': {}", source, problem), "", hint);
}

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
    fail(source_, fmt::format("malformed header ({} at offset {}): {}", what, pos_,
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

struct Header {
  DType dtype = DType::Float64;
  bool swap = false;  // the data's byte order differs from this machine's
  bool fortran = false;
  Shape shape;
};

struct DescrCode {
  std::string_view code;
  DType dtype;
};
constexpr DescrCode kDescrCodes[] = {
    {"b1", DType::Bool},   {"?", DType::Bool},    {"i1", DType::Int8},    {"u1", DType::UInt8},
    {"i2", DType::Int16},  {"i4", DType::Int32},  {"i8", DType::Int64},   {"f4", DType::Float32},
    {"f8", DType::Float64}};

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

void parse_descr(const std::string& descr, const std::string& source, Header& h) {
  std::string_view code = descr;
  char order = '=';
  if (!code.empty() && std::string_view("<>=|").find(code[0]) != std::string_view::npos) {
    order = code[0];
    code.remove_prefix(1);
  }
  if (code == "O" || code == "O8")
    fail(source, fmt::format("object arrays are not supported (dtype '{}')", descr),
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
  fail(source, fmt::format("unsupported dtype '{}' ({})", descr, unsupported_kind(code)), kDtypeHint);
}

Header interpret_header(const Literal& dict, const std::string& source) {
  if (dict.kind != Literal::Kind::Dict) fail(source, "the header is not a dict");
  const char* const required[] = {"descr", "fortran_order", "shape"};
  for (const std::string& key : dict.keys)
    if (std::find(std::begin(required), std::end(required), key) == std::end(required))
      fail(source, fmt::format("the header has an unexpected key '{}' (expected exactly 'descr', "
                               "'fortran_order' and 'shape')", key));
  auto get = [&](const char* key) -> const Literal& {
    for (size_t i = 0; i < dict.keys.size(); ++i)
      if (dict.keys[i] == key) return dict.items[i];
    fail(source, fmt::format("the header has no '{}' key", key));
  };

  Header h;
  const Literal& descr = get("descr");
  if (descr.kind == Literal::Kind::List)
    fail(source, "structured (record) dtypes are not supported",
         "save each field as its own array, e.g. numpy.save(path, records['x'])");
  if (descr.kind != Literal::Kind::Str) fail(source, "the header's 'descr' is not a string");
  parse_descr(descr.str, source, h);

  const Literal& fortran = get("fortran_order");
  if (fortran.kind != Literal::Kind::Bool) fail(source, "the header's 'fortran_order' is not True or False");
  h.fortran = fortran.flag;

  const Literal& shape = get("shape");
  if (shape.kind != Literal::Kind::Tuple) fail(source, "the header's 'shape' is not a tuple");
  int64_t bytes = static_cast<int64_t>(dtype_size(h.dtype));
  for (const Literal& d : shape.items) {
    if (d.kind != Literal::Kind::Int || d.num < 0)
      fail(source, "the header's 'shape' must hold non-negative integers");
    h.shape.push_back(d.num);
  }
  for (int64_t d : h.shape) {
    if (d != 0 && bytes > std::numeric_limits<int64_t>::max() / d)
      fail(source, fmt::format("the shape {} is too large", shape_str(h.shape)));
    bytes *= d;
  }
  return h;
}

// ---- Byte sources --------------------------------------------------------------------

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual size_t read(void* dst, size_t n) = 0;  // fewer than n only at the end
  virtual std::optional<uint64_t> remaining() = 0;  // unknown for unseekable files
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  size_t read(void* dst, size_t n) override {
    n = std::min(n, bytes_.size() - pos_);
    if (n) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::optional<uint64_t> remaining() override { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

class FileSource : public ByteSource {
 public:
  FileSource(std::FILE* f, const std::string& path) : f_(f), path_(path) {}
  size_t read(void* dst, size_t n) override {
    size_t got = std::fread(dst, 1, n, f_);
    if (got < n && std::ferror(f_)) fail(path_, std::strerror(errno), "check that the file is readable");
    return got;
  }
  std::optional<uint64_t> remaining() override {
    long here = std::ftell(f_);
    if (here < 0 || std::fseek(f_, 0, SEEK_END) != 0) return std::nullopt;
    long end = std::ftell(f_);
    std::fseek(f_, here, SEEK_SET);
    if (end < here) return std::nullopt;
    return static_cast<uint64_t>(end - here);
  }

 private:
  std::FILE* f_;
  const std::string& path_;
};

void swap_bytes(void* data, size_t count, size_t esize) {
  auto* p = static_cast<unsigned char*>(data);
  for (size_t i = 0; i < count; ++i, p += esize) std::reverse(p, p + esize);
}

Tensor read_from(ByteSource& src, const std::string& source) {
  unsigned char prefix[8];
  const size_t got = src.read(prefix, sizeof prefix);
  if (std::memcmp(prefix, kMagic.data(), std::min(got, kMagic.size())) != 0)
    fail(source, "bad magic string (a .npy file starts with \\x93NUMPY)");
  if (got < sizeof prefix)
    fail(source, fmt::format("the file is only {} bytes long, too short for a .npy file", got));
  const int major = prefix[6], minor = prefix[7];
  if (major < 1 || major > 3 || minor != 0)
    fail(source, fmt::format("unsupported format version {}.{}", major, minor),
         "tgc reads .npy format versions 1.0, 2.0 and 3.0, the ones numpy.save writes");

  // Version 1.0 stores the header length in 2 bytes, later versions in 4 (little-endian).
  const size_t len_bytes = major == 1 ? 2 : 4;
  unsigned char len_buf[4] = {0, 0, 0, 0};
  if (src.read(len_buf, len_bytes) < len_bytes) fail(source, "the file ends inside the header length");
  const size_t header_len = len_buf[0] | len_buf[1] << 8 | size_t{len_buf[2]} << 16 | size_t{len_buf[3]} << 24;
  if (header_len > kMaxHeaderLen)
    fail(source, fmt::format("the header length {} is implausibly large", header_len));
  std::string header(header_len, '\0');
  if (size_t n = src.read(header.data(), header_len); n < header_len)
    fail(source, fmt::format("the header is truncated ({} of {} bytes)", n, header_len));

  Header h = interpret_header(LiteralParser(header, source).parse(), source);
  const size_t esize = dtype_size(h.dtype);
  const uint64_t data_bytes = static_cast<uint64_t>(shape_numel(h.shape)) * esize;
  const std::string what = fmt::format("shape {} of {}", shape_str(h.shape), dtype_name(h.dtype));
  // Check the size before allocating, so a bad header cannot ask for terabytes.
  if (std::optional<uint64_t> left = src.remaining()) {
    if (*left < data_bytes)
      fail(source, fmt::format("the data is truncated: {} needs {} bytes, the file has {}", what,
                               data_bytes, *left),
           "the file was cut short (an interrupted write or download?); write it again");
    if (*left > data_bytes)
      fail(source, fmt::format("data size mismatch: {} needs {} bytes, the file has {} ({} extra)",
                               what, data_bytes, *left, *left - data_bytes));
  }

  Tensor t = Tensor::empty(h.dtype, h.shape);
  if (data_bytes) {
    if (size_t n = src.read(t.raw_data(), data_bytes); n < data_bytes)
      fail(source, fmt::format("the data is truncated: {} needs {} bytes, the file has {}", what,
                               data_bytes, n));
  }
  const size_t count = static_cast<size_t>(t.numel());
  if (h.swap) swap_bytes(t.raw_data(), count, esize);
  if (h.dtype == DType::Bool) {
    // Any nonzero byte is True in NumPy; a C++ bool must hold exactly 0 or 1.
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (size_t i = 0; i < count; ++i) p[i] = p[i] != 0;
  }
  if (h.fortran) return t.view(h.shape, fortran_strides(h.shape), 0);
  return t;
}

// ---- Writing -------------------------------------------------------------------------

std::string_view descr_of(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "|b1";
    case DType::Int8: return "|i1";
    case DType::UInt8: return "|u1";
    case DType::Int16: return "<i2";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
  }
  TGC_INTERNAL_CHECK(false, "descr_of: unknown dtype");
  return "";
}

// The prefix and header exactly as numpy.save writes them, so files compare byte for byte.
std::string header_bytes(DType dtype, const Shape& shape) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                 descr_of(dtype), shape_str(shape));
  if (!shape.empty()) dict.append(kGrowthDigits - std::to_string(shape[0]).size(), ' ');
  for (int major : {1, 2}) {
    const size_t prefix = kMagic.size() + 2 + (major == 1 ? 2 : 4);
    const size_t text_len = dict.size() + 1;  // + the final newline
    const size_t pad = kAlign - (prefix + text_len) % kAlign;
    const size_t total = text_len + pad;
    if (major == 1 && total > 0xffff) continue;
    std::string out(kMagic);
    out += static_cast<char>(major);
    out += '\0';
    for (size_t i = 0; i < prefix - kMagic.size() - 2; ++i) out += static_cast<char>((total >> (8 * i)) & 0xff);
    out += dict;
    out.append(pad, ' ');
    out += '\n';
    return out;
  }
  TGC_INTERNAL_CHECK(false, "header_bytes: a version 2.0 header always fits");
  return "";
}

// A host, C-contiguous, little-endian copy (or `t` itself when it already is one).
Tensor host_little_endian(const Tensor& t) {
  if (!t.defined())
    throw ValueError("write_npy: the tensor is undefined (default-constructed)", "",
                     "create it with Tensor::empty/zeros/from_vector or take a function's result");
  Tensor host = t.on_host() ? t.contiguous() : t.to(host_device());
  if (std::endian::native == std::endian::big && dtype_size(host.dtype()) > 1) {
    host = host.copy();
    swap_bytes(host.raw_data(), static_cast<size_t>(host.numel()), dtype_size(host.dtype()));
  }
  return host;
}

}  // namespace

Tensor parse_npy(std::string_view bytes, const std::string& source_name) {
  MemorySource src(bytes);
  return read_from(src, source_name);
}

Tensor read_npy(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    fail(path, "it is a directory", "pass the path of a .npy file");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) {
    int err = errno;
    fail(path, std::strerror(err),
         err == ENOENT ? fmt::format("check the path; relative paths start at the current directory {}",
                                     std::filesystem::current_path(ec).string())
                       : std::string("check that the file exists and is readable"));
  }
  FileSource src(f.get(), path);
  return read_from(src, path);
}

std::string npy_bytes(const Tensor& t) {
  Tensor host = host_little_endian(t);
  std::string out = header_bytes(host.dtype(), host.shape());
  if (host.nbytes()) out.append(static_cast<const char*>(host.raw_data()), host.nbytes());
  return out;
}

void write_npy(const std::string& path, const Tensor& t) {
  Tensor host = host_little_endian(t);
  const std::string header = header_bytes(host.dtype(), host.shape());
  auto write_error = [&](int err) {
    throw IOError(fmt::format("cannot write .npy file '{}': {}", path, std::strerror(err)), "",
                  "check that the directory exists, is writable and has free space");
  };
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) write_error(errno);
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  if (ok && host.nbytes()) ok = std::fwrite(host.raw_data(), 1, host.nbytes(), f) == host.nbytes();
  int err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(path.c_str());  // leave no half-written file behind
    write_error(err);
  }
}

}  // namespace tgc
