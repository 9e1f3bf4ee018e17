// Case folding of user-written names and values (config keys and values, typo suggestions).
#pragma once

#include <string>
#include <string_view>

namespace tgc {

// `s` with ASCII letters lowered; other bytes unchanged (no locale).
std::string ascii_lower(std::string_view s);

}  // namespace tgc
