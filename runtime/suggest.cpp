// Typo suggestions by edit distance.
#include "runtime/suggest.h"

#include <algorithm>

#include "runtime/text.h"

namespace tgc {

int edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table suffice: a swap looks two rows back.
  const size_t n = b.size();
  std::vector<int> before(n + 1), prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= n; ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::string closest_match(std::string_view name, const std::vector<std::string>& candidates) {
  // No one mistypes a name this long, and the table below costs its length times each
  // candidate's: a 1M-character name must not stall the error report.
  constexpr size_t kMaxSuggestedLength = 256;
  if (name.size() > kMaxSuggestedLength) return {};
  const std::string key = ascii_lower(name);
  // A typo changes a few characters: allow about one edit per three characters, and never
  // as many edits as the name is long (else "x" would "match" "y").
  const int limit = std::max<int>(1, static_cast<int>(key.size()) / 3);
  const std::string* best = nullptr;
  int best_distance = 0, best_exact = 0;
  for (const std::string& c : candidates) {
    // The distance is at least the difference in length: skip the table when that is too far.
    const size_t gap = key.size() > c.size() ? key.size() - c.size() : c.size() - key.size();
    if (gap > static_cast<size_t>(limit)) continue;
    int d = edit_distance(key, ascii_lower(c));
    if (d > limit || d >= static_cast<int>(std::max(key.size(), c.size()))) continue;
    // Among equally close candidates, prefer the one that also matches the case.
    int exact = edit_distance(name, c);
    if (!best || d < best_distance || (d == best_distance && exact < best_exact)) {
      best = &c;
      best_distance = d;
      best_exact = exact;
    }
  }
  return best ? *best : std::string();
}

}  // namespace tgc
