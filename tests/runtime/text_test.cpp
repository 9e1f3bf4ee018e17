// ascii_lower: the case folding of config values and typo suggestions.
#include "runtime/text.h"

#include <gtest/gtest.h>

namespace tgc {
namespace {

TEST(AsciiLower, LowersLettersOnly) {
  EXPECT_EQ(ascii_lower("floatX"), "floatx");
  EXPECT_EQ(ascii_lower("FAST_RUN-2:Cuda"), "fast_run-2:cuda");
  EXPECT_EQ(ascii_lower(""), "");
  EXPECT_EQ(ascii_lower("\xc3\x89t\xc3\xa9"), "\xc3\x89t\xc3\xa9");  // UTF-8 bytes are left alone
}

}  // namespace
}  // namespace tgc
