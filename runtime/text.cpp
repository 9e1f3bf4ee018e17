// ASCII case folding.
#include "runtime/text.h"

#include <cctype>

namespace tgc {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace tgc
