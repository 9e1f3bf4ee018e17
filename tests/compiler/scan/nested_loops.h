// A loop inside a loop, shared by the scan tests (scan_test.cpp, scan_codec_test.cpp): the row
// sums of a matrix by an inner loop, accumulated by the outer one ([[1, 2], [3, 4]] gives
// [3, 10]).
#pragma once

#include <tgc/tgc.h>

namespace tgc::test {

inline ScanResult nested_row_sums(const Var& m) {
  return scan(
      [](const std::vector<Var>& a) {
        ScanResult inner = scan([](const std::vector<Var>& b) { return ScanStep{b[0] + b[1]}; }, {a[0]},
                                {OutputInfo(zeros_like(a[0][0]))}, {}, {.name = "inner"});
        return ScanStep{a[1] + inner[0][-1]};
      },
      {m}, {OutputInfo(zeros_like(m[0][0]))}, {}, {.name = "outer"});
}

}  // namespace tgc::test
