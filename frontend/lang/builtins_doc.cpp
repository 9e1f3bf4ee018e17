// The builtin reference of docs/language.md, written from the builtin table so the two
// cannot drift apart (tests/frontend/lang/builtins_test.cpp compares them).
#include "frontend/lang/builtins.h"

namespace tgc::lang {

namespace {

std::string escape_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

}  // namespace

std::string builtin_reference_markdown() {
  std::string out;
  bool first = true;
  Family current{};
  for (const Builtin& b : builtins()) {
    if (first || b.family != current) {
      out += (first ? "" : "\n") + std::string("### ") + family_title(b.family) + "\n\n";
      out += "| call | what it gives |\n|---|---|\n";
      current = b.family;
      first = false;
    }
    std::string doc = b.doc;
    if (b.receiver == Receiver::Tensor) doc += " (also `x." + b.name + "(...)`)";
    if (b.receiver == Receiver::Rng) doc += " (also `rng." + b.name + "(...)`)";
    if (b.receiver == Receiver::Streams) doc += " (a method: `srng." + b.name.substr(b.name.find('.') + 1) + "(...)`)";
    out += "| `" + escape_cell(b.signature()) + "` | " + escape_cell(doc) + " |\n";
  }
  return out;
}

}  // namespace tgc::lang
