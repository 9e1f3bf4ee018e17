// KernelCache: the entry format (magic, key, payload, CRC-32 from zlib), atomic writes and
// the corruption checks.
#include "runtime/kernel_cache.h"

#include <pwd.h>

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace tgc {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'K', 'E', 'R', 'N', '1'};
constexpr const char* kSuffix = ".tgck";

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

void put_u64(KernelBlob& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

// File name: 16 hex digits of the key's CRC-32 twice over (plain and salted). Collisions are
// harmless (the stored key is compared), only they would evict each other.
std::string file_name(const std::string& key) {
  auto* p = reinterpret_cast<const uint8_t*>(key.data());
  uint32_t a = crc_of(p, key.size());
  uint32_t b = crc_of(p, key.size(), 0x9e3779b9u);
  return fmt::format("{:08x}{:08x}{}", a, b, kSuffix);
}

KernelBlob encode(const std::string& key, const KernelBlob& blob) {
  KernelBlob out(kMagic, kMagic + sizeof kMagic);
  put_u64(out, key.size());
  out.insert(out.end(), key.begin(), key.end());
  put_u64(out, blob.size());
  out.insert(out.end(), blob.begin(), blob.end());
  uint32_t crc = crc_of(out.data(), out.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(crc >> (8 * i)));
  return out;
}

// The payload when `file` is a complete, intact entry for `key`.
std::optional<KernelBlob> decode(const KernelBlob& file, const std::string& key) {
  const size_t head = sizeof kMagic + 8;
  if (file.size() < head + 8 + 4 || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  uint64_t key_len = get_u64(file.data() + sizeof kMagic);
  if (key_len > file.size() - head - 12) return std::nullopt;
  uint64_t blob_len = get_u64(file.data() + head + key_len);
  if (blob_len != file.size() - head - key_len - 8 - 4) return std::nullopt;
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= uint32_t(file[file.size() - 4 + i]) << (8 * i);
  if (crc_of(file.data(), file.size() - 4) != stored) return std::nullopt;
  if (std::string(file.begin() + head, file.begin() + head + key_len) != key) return std::nullopt;
  auto begin = file.begin() + static_cast<long>(head + key_len + 8);
  return KernelBlob(begin, begin + static_cast<long>(blob_len));
}

// The backend named by an entry's stored key (its first line, "backend=llvm"), reading
// only the header; "unreadable" when the file is not a tgc entry.
std::string entry_backend(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  uint8_t head[sizeof kMagic + 8];
  if (!in.read(reinterpret_cast<char*>(head), sizeof head) || std::memcmp(head, kMagic, sizeof kMagic) != 0)
    return "unreadable";
  const uint64_t key_len = std::min<uint64_t>(get_u64(head + sizeof kMagic), 256);
  std::string key(static_cast<size_t>(key_len), '\0');
  in.read(key.data(), static_cast<std::streamsize>(key.size()));
  key.resize(static_cast<size_t>(in.gcount()));
  const std::string prefix = "backend=";
  const size_t end = key.find('\n');
  if (!key.starts_with(prefix) || end == std::string::npos) return "unreadable";
  return key.substr(prefix.size(), end - prefix.size());
}

}  // namespace

std::string KernelCacheKey::text() const {
  return fmt::format("backend={}\nkernel={}\ncompiler={}\ntarget={}\nflags={}\n", backend, kernel,
                     compiler, target, flags);
}

std::string expand_home(const std::string& path) {
  if (path == "~" || path.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (home && *home) return std::string(home) + path.substr(1);
    // HOME unset (a service, a cron job): the password database's home. Never the literal
    // "~", which would create a directory named "~" in the current folder.
    std::vector<char> buffer(16384);
    struct passwd entry {};
    struct passwd* found = nullptr;
    if (getpwuid_r(getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found && found->pw_dir &&
        *found->pw_dir)
      return std::string(found->pw_dir) + path.substr(1);
    return "";
  }
  return path;
}

KernelCache::KernelCache(std::string dir) : dir_(expand_home(dir)), disk_ok_(!dir_.empty()) {
  if (dir_.empty() && !dir.empty())
    std::fprintf(stderr,
                 "tgc: warning: no home directory for the kernel cache '%s' (HOME is unset and the password "
                 "database has none): kernels are kept in memory only; set cache_dir to a directory\n",
                 dir.c_str());
}

std::string KernelCache::entry_path(const KernelCacheKey& key) const {
  return (fs::path(dir_) / file_name(key.text())).string();
}

std::optional<std::shared_ptr<const KernelBlob>> KernelCache::get(const KernelCacheKey& key) {
  std::string text = key.text();
  std::lock_guard lock(mutex_);
  if (auto it = memory_.find(text); it != memory_.end()) return it->second;
  if (!disk_ok_) return std::nullopt;
  std::string path = entry_path(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  KernelBlob file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::optional<KernelBlob> payload = decode(file, text);
  if (!payload) {
    std::error_code ec;
    fs::remove(path, ec);  // corrupt, truncated or another key's: the rebuild replaces it
    return std::nullopt;
  }
  auto shared = std::make_shared<const KernelBlob>(std::move(*payload));
  memory_[text] = shared;
  return shared;
}

void KernelCache::put(const KernelCacheKey& key, KernelBlob blob) {
  std::string text = key.text();
  KernelBlob file = disk_ok_ ? encode(text, blob) : KernelBlob();
  std::lock_guard lock(mutex_);
  memory_[text] = std::make_shared<const KernelBlob>(std::move(blob));
  if (!disk_ok_) return;
  static std::atomic<uint64_t> counter{0};
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::string path = entry_path(key);
  // A unique temp name per process and write, renamed over the entry: readers see the old
  // entry, no entry, or the new one, never a partial file.
  std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      std::cerr << "tgc: warning: cannot write the kernel cache in " << dir_
                << "; kernels are cached in memory only (set cache_dir to a writable directory)\n";
      disk_ok_ = false;
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

KernelCacheInfo KernelCache::info() const {
  KernelCacheInfo info;
  info.dir = dir_;
  std::lock_guard lock(mutex_);
  info.memory_entries = memory_.size();
  std::error_code ec;
  if (dir_.empty() || !fs::is_directory(dir_, ec)) return info;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (!e.is_regular_file(ec) || e.path().extension() != kSuffix) continue;
    ++info.entries;
    info.bytes += e.file_size(ec);
    ++info.backends[entry_backend(e.path())];
  }
  return info;
}

size_t KernelCache::clear() {
  std::lock_guard lock(mutex_);
  memory_.clear();
  size_t removed = 0;
  std::error_code ec;
  if (dir_.empty() || !fs::is_directory(dir_, ec)) return 0;
  std::vector<fs::path> doomed;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    std::string name = e.path().filename().string();
    if (name.ends_with(kSuffix) || name.find(std::string(kSuffix) + ".tmp.") != std::string::npos)
      doomed.push_back(e.path());
  }
  for (const fs::path& p : doomed)
    if (fs::remove(p, ec) && p.extension() == kSuffix) ++removed;
  return removed;
}

KernelCache& kernel_cache_for(const std::string& cache_dir) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::unique_ptr<KernelCache>> caches;
  std::lock_guard lock(mutex);
  std::string dir = expand_home(cache_dir);
  auto& slot = caches[dir];
  if (!slot) slot = std::make_unique<KernelCache>(dir);
  return *slot;
}

std::string source_hash(const std::string& source) {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  for (unsigned char c : source) {
    a = (a ^ c) * 0x100000001b3ull;
    b = (b ^ (c + 0x5bu)) * 0x100000001b3ull;
  }
  return fmt::format("{:016x}{:016x}-{}", a, b, source.size());
}

std::string numbered_source(const std::string& source) {
  std::istringstream in(source);
  std::string line, out;
  for (int n = 1; std::getline(in, line); ++n) out += fmt::format("{:5} {}\n", n, line);
  return out;
}

}  // namespace tgc
