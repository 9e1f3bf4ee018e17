// The saved-file container (runtime/saved_file.h): writing, and reading with every length
// checked against the bytes there are before anything is allocated.
#include "runtime/saved_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/cache_files.h"
#include "runtime/content_hash.h"
#include "runtime/error.h"

namespace tgc {

namespace {

constexpr char kMagic[8] = {'\x89', 'T', 'G', 'C', '\r', '\n', '\x1a', '\n'};
constexpr size_t kChecksumBytes = 32;

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Reads fields off the front of the bytes; running past the end is the file's damage.
class Cursor {
 public:
  Cursor(std::string_view bytes, const std::string& source, const std::string& what)
      : bytes_(bytes), source_(source), what_(what) {}
  uint64_t u64(const char* field) { return uint(8, field); }
  uint32_t u32(const char* field) { return static_cast<uint32_t>(uint(4, field)); }
  std::string_view take(uint64_t n, const char* field) {
    if (n > bytes_.size() - pos_) fail(fmt::format("its {} ({} bytes) runs past the end of the file", field, n));
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  size_t left() const { return bytes_.size() - pos_; }
  [[noreturn]] void fail(const std::string& why) const {
    throw IOError(fmt::format("cannot read {} '{}': {}", what_, source_, why), "",
                  "the file is damaged or not a tgc file; save it again");
  }

 private:
  uint64_t uint(int n, const char* field) {
    std::string_view b = take(n, field);
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[i]);
    return v;
  }
  std::string_view bytes_;
  size_t pos_ = 0;
  const std::string& source_;
  const std::string& what_;
};

}  // namespace

std::string saved_file_bytes(const SavedFile& file) {
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, kSavedFileVersion);
  put_u64(out, file.manifest.size());
  out += file.manifest;
  put_u64(out, file.blobs.size());
  for (const std::string& b : file.blobs) put_u64(out, b.size());
  for (const std::string& b : file.blobs) out += b;
  out += hash128_hex(out);
  return out;
}

void write_saved_file(const std::string& path, const SavedFile& file) {
  const std::string out = saved_file_bytes(file);

  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.filename().empty())
    throw IOError(fmt::format("cannot write '{}': it names a directory", path), "", "give a file name, e.g. model.tgf");
  std::error_code ec;
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw IOError(fmt::format("cannot write '{}': the directory '{}' does not exist", path, dir.string()), "",
                  "create the directory first");
  const cache_files::Written w = cache_files::write_atomically(dir.string(), p.filename().string(), std::vector<uint8_t>(out.begin(), out.end()));
  if (!w.ok) throw IOError(fmt::format("cannot write '{}': {}", path, w.why), "", "check the path and its permissions");
}

SavedFile parse_saved_file(std::string_view bytes, const std::string& source, const std::string& what) {
  Cursor c(bytes, source, what);
  if (bytes.size() < sizeof kMagic || bytes.substr(0, sizeof kMagic) != std::string_view(kMagic, sizeof kMagic))
    c.fail("it does not begin as a tgc file does");
  if (bytes.size() < sizeof kMagic + 4 + kChecksumBytes) c.fail("it is truncated");
  c.take(sizeof kMagic, "magic");
  const uint32_t version = c.u32("version");
  if (version != kSavedFileVersion)
    throw IOError(fmt::format("cannot read {} '{}': it is of format version {}, this tgc reads version {}", what, source,
                              version, kSavedFileVersion),
                  "", "save it again with this tgc, or load it with the tgc that wrote it");
  const std::string_view body = bytes.substr(0, bytes.size() - kChecksumBytes);
  if (hash128_hex(body) != bytes.substr(bytes.size() - kChecksumBytes))
    c.fail("its checksum does not match its contents (truncated or changed since it was written)");
  Cursor b(body, source, what);
  b.take(sizeof kMagic + 4, "header");
  SavedFile file;
  file.manifest = std::string(b.take(b.u64("manifest length"), "manifest"));
  const uint64_t count = b.u64("blob count");
  if (count > b.left() / 8) b.fail(fmt::format("it claims {} blobs", count));
  std::vector<uint64_t> sizes(count);
  for (uint64_t& s : sizes) s = b.u64("blob length");
  file.blobs.reserve(count);
  for (uint64_t s : sizes) file.blobs.emplace_back(b.take(s, "blob"));
  if (b.left() != 0) b.fail(fmt::format("{} bytes follow its last blob", b.left()));
  return file;
}

bool looks_like_saved_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[sizeof kMagic] = {};
  return in.read(head, sizeof head) && std::string_view(head, sizeof head) == std::string_view(kMagic, sizeof kMagic);
}

SavedFile read_saved_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw IOError(fmt::format("cannot read {} '{}': it is a directory", what, path), "", "give the path of a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw IOError(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(err)), "",
                  err == ENOENT ? "check the path" : "check that the file is readable");
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw IOError(fmt::format("cannot read {} '{}': a read error", what, path));
  return parse_saved_file(bytes, path, what);
}

}  // namespace tgc
