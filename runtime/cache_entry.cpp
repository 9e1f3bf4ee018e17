// The entry format's encoder and its checks. Every length read from a file is compared with
// the file's size before anything is allocated for it.
#include "runtime/cache_entry.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "runtime/cache_files.h"

namespace tgc::cache_entry {

namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'K', 'E', 'R', 'N', '1'};
constexpr size_t kHead = sizeof kMagic + 8;  // magic, key length

uint32_t crc_of(const uint8_t* data, size_t n, uint32_t crc = 0) {
  // zlib's crc32 takes a uInt length; feed large buffers in pieces.
  while (n > 0) {
    uInt piece = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    crc = static_cast<uint32_t>(crc32(crc, data, piece));
    data += piece;
    n -= piece;
  }
  return crc;
}

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

}  // namespace

std::string file_name(const std::string& key_text) {
  auto* p = reinterpret_cast<const uint8_t*>(key_text.data());
  uint32_t a = crc_of(p, key_text.size());
  uint32_t b = crc_of(p, key_text.size(), 0x9e3779b9u);
  return fmt::format("{:08x}{:08x}{}", a, b, kSuffix);
}

std::vector<uint8_t> encode(const std::string& key_text, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> out(kMagic, kMagic + sizeof kMagic);
  put_u64(out, key_text.size());
  out.insert(out.end(), key_text.begin(), key_text.end());
  put_u64(out, payload.size());
  out.insert(out.end(), payload.begin(), payload.end());
  uint32_t crc = crc_of(out.data(), out.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(crc >> (8 * i)));
  return out;
}

std::optional<std::vector<uint8_t>> decode(const std::vector<uint8_t>& file, const std::string& key_text,
                                           std::string& why) {
  if (file.size() < kHead + 8 + 4 || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0)
    return why = "corrupted entry (not a tgc cache entry, or truncated), removed", std::nullopt;
  uint64_t key_len = get_u64(file.data() + sizeof kMagic);
  if (key_len > file.size() - kHead - 12) return why = "corrupted entry (truncated), removed", std::nullopt;
  uint64_t blob_len = get_u64(file.data() + kHead + key_len);
  if (blob_len != file.size() - kHead - key_len - 8 - 4)
    return why = "corrupted entry (truncated or lengthened), removed", std::nullopt;
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= uint32_t(file[file.size() - 4 + i]) << (8 * i);
  if (crc_of(file.data(), file.size() - 4) != stored)
    return why = "corrupted entry (checksum mismatch), removed", std::nullopt;
  if (std::string(file.begin() + kHead, file.begin() + static_cast<long>(kHead + key_len)) != key_text)
    return why = "the entry's file held another key (a file-name collision), replaced", std::nullopt;
  auto begin = file.begin() + static_cast<long>(kHead + key_len + 8);
  return std::vector<uint8_t>(begin, begin + static_cast<long>(blob_len));
}

std::optional<std::string> stored_key(int fd, uint64_t size, uint64_t max_key) {
  uint8_t head[kHead];
  if (size < kHead || !cache_files::read_at(fd, 0, head, sizeof head) ||
      std::memcmp(head, kMagic, sizeof kMagic) != 0)
    return std::nullopt;
  const uint64_t key_len = get_u64(head + sizeof kMagic);
  if (key_len > size - kHead || key_len > max_key) return std::nullopt;
  std::string key(static_cast<size_t>(key_len), '\0');
  if (!cache_files::read_at(fd, kHead, key.data(), key.size())) return std::nullopt;
  return key;
}

std::string stored_backend(int fd, uint64_t size) {
  uint8_t head[kHead];
  if (size < kHead || !cache_files::read_at(fd, 0, head, sizeof head) ||
      std::memcmp(head, kMagic, sizeof kMagic) != 0)
    return "unreadable";
  const uint64_t key_len = std::min<uint64_t>({get_u64(head + sizeof kMagic), size - kHead, 256});
  std::string key(static_cast<size_t>(key_len), '\0');
  if (!cache_files::read_at(fd, kHead, key.data(), key.size())) return "unreadable";
  const std::string prefix = "backend=";
  const size_t end = key.find('\n');
  if (!key.starts_with(prefix) || end == std::string::npos) return "unreadable";
  return key.substr(prefix.size(), end - prefix.size());
}

// The kernel field may span lines (the LLVM backend's holds the Kernel IR), so the last three
// fields are found from the end.
std::optional<KernelCacheKey> parse_key(const std::string& text) {
  KernelCacheKey k;
  const size_t backend_end = text.find('\n');
  const size_t flags = text.rfind("\nflags=");
  if (!text.starts_with("backend=") || backend_end == std::string::npos || flags == std::string::npos ||
      flags < backend_end)
    return std::nullopt;
  const size_t target = text.rfind("\ntarget=", flags);
  if (target == std::string::npos || target < backend_end) return std::nullopt;
  const size_t compiler = text.rfind("\ncompiler=", target);
  if (compiler == std::string::npos || compiler < backend_end || text.compare(backend_end, 8, "\nkernel=") != 0)
    return std::nullopt;
  auto field = [&](size_t from, size_t to) { return text.substr(from, to - from); };
  k.backend = field(8, backend_end);
  k.kernel = field(backend_end + 8, compiler);
  k.compiler = field(compiler + 10, target);
  k.target = field(target + 8, flags);
  k.flags = field(flags + 7, text.size() - (text.ends_with('\n') ? 1 : 0));
  return k;
}

}  // namespace tgc::cache_entry
