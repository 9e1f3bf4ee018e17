// Helpers for the .tg tests: load a source, catch its SourceError.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "frontend/lang/tg_program.h"

namespace tgc::lang::test {

inline TgProgram load(const std::string& source) { return load_source(source, "test.tg"); }

// The SourceError that loading `source` throws (a test failure if none is thrown).
inline SourceError load_error(const std::string& source, const std::string& file = "test.tg") {
  try {
    load_source(source, file);
  } catch (const SourceError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a SourceError from:\n" << source;
  return SourceError(SourceLoc{file, 0, 0}, "no error", "", "");
}

}  // namespace tgc::lang::test
