// catch_error<E>(fn): runs fn, expects it to throw E, and returns the exception so a test
// can inspect its message, location and hint.
#pragma once

#include <gtest/gtest.h>

namespace tgc::test {

template <typename E, typename Fn>
E catch_error(Fn&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e;
  }
  ADD_FAILURE() << "expected an exception";
  return E("no exception was thrown");
}

}  // namespace tgc::test
