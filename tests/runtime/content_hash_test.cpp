// content_hash.h: XXH3-128 as hex and streamed XXH3-64 give xxHash's own values (its values
// for the empty input), a stream fed in pieces hashes as one piece, and u64 feeds the same
// little-endian bytes on every host.
#include "runtime/content_hash.h"

#include <gtest/gtest.h>

namespace tgc {
namespace {

TEST(ContentHash, Xxh3ValuesOfTheEmptyInput) {
  EXPECT_EQ(hash128_hex(""), "99aa06d3014798d86001c324468d497f");
  StreamHash64 h;
  EXPECT_EQ(h.value(), 0x2d06800538d394c2ull);
}

TEST(ContentHash, AStreamFedInPiecesHashesAsOnePiece) {
  const std::string text = "the quick brown fox jumps over the lazy dog, many times over";
  StreamHash64 whole, pieces;
  whole.bytes(text.data(), text.size());
  for (size_t i = 0; i < text.size(); i += 7) pieces.bytes(text.data() + i, std::min<size_t>(7, text.size() - i));
  EXPECT_EQ(whole.value(), pieces.value());
  EXPECT_NE(hash128_hex(text), hash128_hex(text.substr(1)));
}

TEST(ContentHash, U64FeedsLittleEndianBytes) {
  StreamHash64 a, b;
  a.u64(0x0807060504030201ull);
  const unsigned char bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  b.bytes(bytes, 8);
  EXPECT_EQ(a.value(), b.value());
  StreamHash64 c;
  c.i64(-1);
  StreamHash64 d;
  d.u64(~0ull);
  EXPECT_EQ(c.value(), d.value());
}

}  // namespace
}  // namespace tgc
