// Message assembly for tgc's exceptions.
#include "runtime/error.h"

namespace tgc {

Error::Error(std::string what, std::string where, std::string hint)
    : std::runtime_error(what), what_(std::move(what)), where_(std::move(where)),
      hint_(std::move(hint)) {
  rebuild();
}

void Error::set_where_if_empty(const std::string& where) {
  if (where_.empty() && !where.empty()) {
    where_ = where;
    rebuild();
  }
}

void Error::rebuild() {
  message_ = what_;
  if (!where_.empty()) message_ += " in " + where_;
  if (!hint_.empty()) message_ += "\n  hint: " + hint_;
}

}  // namespace tgc
