// Naming the user's call in errors that a frontend function's own argument checks throw
// (an op's checks get the call from apply(); an axis normalized before any op exists does not).
#pragma once

#include <string>

#include "runtime/error.h"

namespace tgc {

// Returns fn(); an Error it throws without a location gets `where`, the user's call as
// written ("sum(x)").
template <typename Fn>
auto at_call(const std::string& where, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (Error& e) {
    e.set_where_if_empty(where);
    throw;
  }
}

}  // namespace tgc
