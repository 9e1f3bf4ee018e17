// "Did you mean ...?": the closest of a list of valid names to a misspelt one, for error
// hints (config keys, .tg function names).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tgc {

// Edit distance counting insertions, deletions, substitutions and swaps of two adjacent
// characters (optimal string alignment), each costing 1.
int edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `name`, or "" when none is close enough to be a plausible typo.
// Case is ignored for closeness ("floatx" finds "floatX"); ties go to the earlier candidate.
std::string closest_match(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace tgc
