// The kernel cache's entry format: magic, the full key, the payload and a CRC-32 (zlib), in
// one file named from the key's hash. Shared by the cache itself, its miss explanations and
// `tgc cache info`, which read only the header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/kernel_cache.h"

namespace tgc::cache_entry {

// Entries end in this; write_atomically's temporary files in this plus ".tmp.<hex>".
inline constexpr const char* kSuffix = ".tgck";

// The file name for a key's text: 16 hex digits of its CRC-32 twice over (plain and salted).
// Collisions are harmless (the stored key is compared), only they would evict each other.
std::string file_name(const std::string& key_text);

// The file's bytes for `key_text` and `payload`.
std::vector<uint8_t> encode(const std::string& key_text, const std::vector<uint8_t>& payload);
// The payload when `file` is a complete, intact entry for `key_text`; else nullopt and, in
// `why`, what is wrong with it.
std::optional<std::vector<uint8_t>> decode(const std::vector<uint8_t>& file, const std::string& key_text,
                                           std::string& why);

// The key an entry stores, from its header alone (`size` is the file's): nullopt when the file
// is not a tgc entry or claims a key longer than itself or than `max_key` bytes (the
// directory is untrusted input, so the allocation is bounded).
std::optional<std::string> stored_key(int fd, uint64_t size, uint64_t max_key = 64u << 20);

// The backend an entry's stored key names (its first line, "backend=llvm"), reading at most
// 256 bytes of the key; "unreadable" when the file is not a tgc entry.
std::string stored_backend(int fd, uint64_t size);

// KernelCacheKey::text() read back; nullopt when malformed.
std::optional<KernelCacheKey> parse_key(const std::string& text);

}  // namespace tgc::cache_entry
