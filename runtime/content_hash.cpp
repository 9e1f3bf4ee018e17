// XXH3 through xxhash.h in its header-only mode (XXH_INLINE_ALL): no library to link or load.
#include "runtime/content_hash.h"

#define XXH_INLINE_ALL
#include <fmt/format.h>
#include <xxhash.h>

namespace tgc {

std::string hash128_hex(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

struct StreamHash64::State {
  XXH3_state_t xxh{};
};

StreamHash64::StreamHash64() : state_(std::make_unique<State>()) { XXH3_64bits_reset(&state_->xxh); }
StreamHash64::~StreamHash64() = default;

void StreamHash64::bytes(const void* p, size_t n) { XXH3_64bits_update(&state_->xxh, p, n); }

void StreamHash64::u64(uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));  // endian-free
  bytes(b, 8);
}

uint64_t StreamHash64::value() const { return XXH3_64bits_digest(&state_->xxh); }

}  // namespace tgc
