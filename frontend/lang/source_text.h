// The text of a .tg source and what error messages need from it: positions (line, column
// in code points), the text of a line, and SourceErrors pointing at a position.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/lang/tg_program.h"

namespace tgc::lang {

// A position in the source: byte offset, 1-based line and column (code points).
struct Pos {
  int offset = 0;
  int line = 1;
  int col = 1;
};

class SourceText {
 public:
  SourceText(std::string file, std::string text);

  const std::string& file() const { return file_; }
  std::string_view text() const { return text_; }
  // Line `line` (1-based) without its line break; bytes that are not UTF-8 read as '?'.
  std::string line_text(int line) const;
  SourceLoc loc(Pos pos) const { return SourceLoc{file_, pos.line, pos.col}; }
  // A SourceError at `pos` with the line and caret filled in.
  SourceError error(Pos pos, std::string message, std::string hint) const;

 private:
  std::string file_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

// The maximal valid UTF-8 prefix length of `text` (text.size() when it is all valid).
size_t valid_utf8_prefix(std::string_view text);

}  // namespace tgc::lang
