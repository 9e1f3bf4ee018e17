// KernelCache: the entry format (magic, key, payload, CRC-32 from zlib), atomic writes and
// the corruption checks.
#include "runtime/kernel_cache.h"

#include <pwd.h>

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
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

// The payload when `file` is a complete, intact entry for `key`; else nullopt and, in
// `why`, what is wrong with it.
std::optional<KernelBlob> decode(const KernelBlob& file, const std::string& key, std::string& why) {
  const size_t head = sizeof kMagic + 8;
  if (file.size() < head + 8 + 4 || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0)
    return why = "corrupted entry (not a tgc cache entry, or truncated), removed", std::nullopt;
  uint64_t key_len = get_u64(file.data() + sizeof kMagic);
  if (key_len > file.size() - head - 12) return why = "corrupted entry (truncated), removed", std::nullopt;
  uint64_t blob_len = get_u64(file.data() + head + key_len);
  if (blob_len != file.size() - head - key_len - 8 - 4)
    return why = "corrupted entry (truncated or lengthened), removed", std::nullopt;
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= uint32_t(file[file.size() - 4 + i]) << (8 * i);
  if (crc_of(file.data(), file.size() - 4) != stored)
    return why = "corrupted entry (checksum mismatch), removed", std::nullopt;
  if (std::string(file.begin() + head, file.begin() + head + key_len) != key)
    return why = "the entry's file held another key (a file-name collision), replaced", std::nullopt;
  auto begin = file.begin() + static_cast<long>(head + key_len + 8);
  return KernelBlob(begin, begin + static_cast<long>(blob_len));
}

// The key an entry stores, read from its header alone; nullopt when the file is not a tgc
// entry or claims a key longer than itself (the directory is untrusted input).
std::optional<std::string> stored_key(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const auto size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  uint8_t head[sizeof kMagic + 8];
  if (!in.read(reinterpret_cast<char*>(head), sizeof head) || std::memcmp(head, kMagic, sizeof kMagic) != 0)
    return std::nullopt;
  const uint64_t key_len = get_u64(head + sizeof kMagic);
  if (key_len > size - sizeof head || key_len > (64u << 20)) return std::nullopt;
  std::string key(static_cast<size_t>(key_len), '\0');
  if (!in.read(key.data(), static_cast<std::streamsize>(key.size()))) return std::nullopt;
  return key;
}

// KernelCacheKey::text() read back. The kernel field may span lines (the LLVM backend's
// holds the Kernel IR), so the last three fields are found from the end.
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

// The words of a flags or target field ("O3 fast_math=0", "+avx2,+fma").
std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  for (char c : s) {
    if (c == ' ' || c == ',') {
      if (!w.empty()) out.push_back(std::move(w));
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

// "fast_math=0 -> fast_math=1": the words only `was` has, then those only `now` has.
std::string word_change(const std::string& was, const std::string& now) {
  const std::vector<std::string> a = words(was), b = words(now);
  auto only = [](const std::vector<std::string>& x, const std::vector<std::string>& y) {
    std::string out;
    int shown = 0;
    for (const std::string& w : x) {
      if (std::find(y.begin(), y.end(), w) != y.end()) continue;
      if (++shown > 6) return out + " ...";
      out += (out.empty() ? "" : " ") + w;
    }
    return out.empty() ? std::string("(nothing)") : out;
  };
  return only(a, b) + " -> " + only(b, a);
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

std::optional<std::shared_ptr<const KernelBlob>> KernelCache::get(const KernelCacheKey& key,
                                                                  std::string* why_missed) {
  std::string text = key.text();
  std::unique_lock lock(mutex_);
  if (auto it = memory_.find(text); it != memory_.end()) return it->second;
  if (!disk_ok_) {
    if (why_missed)
      *why_missed = dir_.empty() ? "new key: the cache keeps kernels in memory only (cache_dir is empty)"
                                 : "new key: the cache directory is not writable, kernels are kept in memory only";
    return std::nullopt;
  }
  std::string path = entry_path(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    lock.unlock();  // the explanation reads the directory; other kernels need not wait
    if (why_missed) *why_missed = explain_miss(key);
    return std::nullopt;
  }
  KernelBlob file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string why;
  std::optional<KernelBlob> payload = decode(file, text, why);
  if (!payload) {
    if (why_missed) *why_missed = why;
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

std::string KernelCache::explain_miss(const KernelCacheKey& key) const {
  std::error_code ec;
  const std::string new_key = "new key: no entry for this kernel in " + dir_;
  if (dir_.empty() || !fs::is_directory(dir_, ec)) return new_key;
  // The entry of the same kernel that differs in the fewest fields explains best.
  std::string best;
  int best_fields = 4;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (!e.is_regular_file(ec) || e.path().extension() != kSuffix) continue;
    const std::optional<std::string> text = stored_key(e.path());
    if (!text) continue;
    const std::optional<KernelCacheKey> k = parse_key(*text);
    if (!k || k->backend != key.backend || k->kernel != key.kernel) continue;
    std::vector<std::string> changes;
    if (k->compiler != key.compiler)
      changes.push_back(fmt::format("compiler version changed: {} -> {}", k->compiler, key.compiler));
    if (k->target != key.target) changes.push_back("target changed: " + word_change(k->target, key.target));
    if (k->flags != key.flags) changes.push_back("flags changed: " + word_change(k->flags, key.flags));
    if (changes.empty() || static_cast<int>(changes.size()) >= best_fields) continue;
    best_fields = static_cast<int>(changes.size());
    best.clear();
    for (const std::string& c : changes) best += (best.empty() ? "" : "; ") + c;
  }
  if (!best.empty()) return best + " (the cache holds this kernel for the old value)";
  return new_key;
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
