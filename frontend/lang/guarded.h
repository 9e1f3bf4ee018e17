// guarded(src, pos, fn): runs fn and turns the tgc::Errors of the C++ API (type and shape
// errors of an op, bad values) into SourceErrors at `pos`, keeping their message and hint.
// Internal errors pass through untouched: they are bugs, not the user's mistakes.
#pragma once

#include <new>
#include <string>

#include "frontend/lang/source_text.h"

namespace tgc::lang {

template <typename Fn>
auto guarded(const SourceText& src, Pos pos, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const SourceError&) {
    throw;
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    std::string message = e.what_part();
    if (!e.where().empty()) message += " in " + e.where();
    throw src.error(pos, message, e.hint().empty() ? "see docs/language.md" : e.hint());
  } catch (const std::bad_alloc&) {
    throw src.error(pos, "out of memory", "use smaller shapes");
  }
}

}  // namespace tgc::lang
