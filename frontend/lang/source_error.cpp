// SourceError's report (file:line:col, the line, a caret, the hint) and SourceText, which
// finds lines and positions for it.
#include <algorithm>
#include <string>
#include <vector>

#include "frontend/lang/source_text.h"

namespace tgc::lang {

namespace {

std::string location_text(const SourceLoc& loc) {
  if (loc.line <= 0) return loc.file;
  return loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

// Spaces up to column `col` of `line` (tabs kept, so the caret lines up in a terminal);
// one space per code point.
std::string caret_line(const std::string& line, int col) {
  std::string out;
  int c = 1;
  for (size_t i = 0; i < line.size() && c < col; ++i) {
    unsigned char b = static_cast<unsigned char>(line[i]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: same code point
    out += b == '\t' ? '\t' : ' ';
    ++c;
  }
  for (; c < col; ++c) out += ' ';
  return out + "^";
}

// Control characters (a NUL from a string escape, a form feed) read as '?', so the report
// is printable text and no C string consumer stops early; `keep` lists the ones that stay.
std::string printable(std::string s, std::string_view keep) {
  for (char& c : s)
    if ((static_cast<unsigned char>(c) < 0x20 || c == 0x7F) && keep.find(c) == std::string_view::npos) c = '?';
  return s;
}

// Byte offsets of the code points of `s` (one per code point, then s.size()).
std::vector<size_t> code_point_starts(const std::string& s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  starts.push_back(s.size());
  return starts;
}

// A report stays readable whatever the input: a message or hint holding a 40,000-character
// name is cut to its first kMaxTextCodePoints code points, and a long source line is shown as
// a window of kLineWindow code points around the column (`col` is moved into the window).
constexpr size_t kMaxTextCodePoints = 600;
constexpr int kLineWindow = 120;

std::string trimmed(std::string s) {
  const std::vector<size_t> starts = code_point_starts(s);
  const size_t n = starts.size() - 1;
  if (n <= kMaxTextCodePoints) return s;
  return s.substr(0, starts[kMaxTextCodePoints]) + "... (" + std::to_string(n - kMaxTextCodePoints) +
         " more characters)";
}

std::string line_window(const std::string& line, int& col) {
  const std::vector<size_t> starts = code_point_starts(line);
  const int n = static_cast<int>(starts.size()) - 1;
  if (n <= kLineWindow + kLineWindow / 4) return line;
  const int first = std::clamp(col - 1 - kLineWindow / 2, 0, n - kLineWindow);
  const int last = first + kLineWindow;
  std::string out = first > 0 ? "..." : "";
  out += line.substr(starts[first], starts[last] - starts[first]);
  if (last < n) out += "...";
  col = col - first + (first > 0 ? 3 : 0);
  return out;
}

}  // namespace

SourceError::SourceError(SourceLoc loc, std::string message, std::string source_line, std::string hint)
    : Error(printable(trimmed(message), "\n\t"), location_text(loc), printable(trimmed(hint), "\t")),
      loc_(std::move(loc)),
      message_(printable(trimmed(std::move(message)), "\n\t")) {
  text_ = location_text(loc_) + ": error: " + message_;
  if (loc_.line > 0) {
    int col = loc_.col;
    source_line = printable(line_window(source_line, col), "\t");
    text_ += "\n    " + source_line;
    text_ += "\n    " + caret_line(source_line, col);
  }
  if (!this->hint().empty()) text_ += "\n  hint: " + this->hint();
}

size_t valid_utf8_prefix(std::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    int len;
    uint32_t cp;
    if ((b & 0xE0) == 0xC0) len = 2, cp = b & 0x1F;
    else if ((b & 0xF0) == 0xE0) len = 3, cp = b & 0x0F;
    else if ((b & 0xF8) == 0xF0) len = 4, cp = b & 0x07;
    else return i;
    if (i + len > n) return i;
    for (int k = 1; k < len; ++k) {
      const unsigned char c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (c & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return i;
    i += len;
  }
  return n;
}

SourceText::SourceText(std::string file, std::string text) : file_(std::move(file)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string SourceText::line_text(int line) const {
  if (line < 1 || static_cast<size_t>(line) > line_starts_.size()) return "";
  const size_t begin = line_starts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  std::string out;
  std::string_view rest(text_.data() + begin, end - begin);
  while (!rest.empty()) {
    size_t ok = valid_utf8_prefix(rest);
    out.append(rest.substr(0, ok));
    if (ok == rest.size()) break;
    out += '?';
    rest.remove_prefix(ok + 1);
  }
  return out;
}

SourceError SourceText::error(Pos pos, std::string message, std::string hint) const {
  return SourceError(loc(pos), std::move(message), line_text(pos.line), std::move(hint));
}

}  // namespace tgc::lang
