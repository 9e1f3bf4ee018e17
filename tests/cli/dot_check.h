// A structural check of the Graphviz text tgc show writes, for machines without `dot`:
// a digraph header, node declarations before their edges, edges between declared nodes,
// attribute lines, a closing brace.
#pragma once

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace tgc::test {

struct DotCounts {
  int ops = 0;        // ellipses
  int variables = 0;  // boxes
  int edges = 0;
};

inline ::testing::AssertionResult well_formed_dot(const std::string& dot, DotCounts* counts = nullptr) {
  if (!std::regex_search(dot, std::regex(R"(^digraph "([^"\\]|\\.)*" \{\n)")))
    return ::testing::AssertionFailure() << "no digraph header";
  if (!dot.ends_with("\n}\n")) return ::testing::AssertionFailure() << "no closing brace";
  const std::regex decl(R"(^  ([vn]\d+) \[shape=(box|ellipse), .*label="([^"\\]|\\.)*"\];$)");
  const std::regex edge(R"(^  ([vn]\d+) -> ([vn]\d+)( \[label="\d+"\])?;$)");
  const std::regex attr(R"(^  (label="([^"\\]|\\.)*"|labelloc=t|fontname="Helvetica"|node \[.*\]|edge \[.*\]);$)");
  std::set<std::string> declared;
  DotCounts c;
  std::istringstream lines(dot);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, decl)) {
      if (!declared.insert(m[1]).second) return ::testing::AssertionFailure() << "declared twice: " << line;
      (m[2] == "ellipse" ? c.ops : c.variables)++;
    } else if (std::regex_match(line, m, edge)) {
      if (!declared.contains(m[1]) || !declared.contains(m[2]))
        return ::testing::AssertionFailure() << "edge to an undeclared node: " << line;
      ++c.edges;
    } else if (line != "}" && !std::regex_match(line, attr)) {
      return ::testing::AssertionFailure() << "unexpected line: " << line;
    }
  }
  if (counts) *counts = c;
  return ::testing::AssertionSuccess();
}

}  // namespace tgc::test
