// The container of saved functions and checkpoints (docs/save.md): one file holding a JSON
// manifest and binary blobs (.npy tensors, compiled kernels), checksummed as a whole.
//
//   magic "\x89TGC\r\n\x1a\n" (8 bytes: a text-mode copy or a truncated download shows)
//   format version            u32 little-endian
//   manifest length           u64, then the manifest (UTF-8 JSON)
//   blob count                u64, then each blob's length (u64)
//   the blobs, in order
//   XXH3-128 of everything before it, as 32 hex digits
//
// Reading checks the magic, the version (a file of another version is refused with both
// versions named), every length against the file's size (a damaged length never allocates
// more than the file holds) and the checksum before anything is parsed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tgc {

inline constexpr uint32_t kSavedFileVersion = 1;

struct SavedFile {
  std::string manifest;             // JSON text
  std::vector<std::string> blobs;   // their bytes
};

// The bytes write_saved_file writes (for a container kept elsewhere: the program cache's entries).
std::string saved_file_bytes(const SavedFile& file);
// Writes `file` to `path` atomically (a temporary file renamed over it): a reader never sees
// half a file, and a failed write leaves an existing file as it was. IOError naming the path.
void write_saved_file(const std::string& path, const SavedFile& file);
// Reads and checks a file write_saved_file wrote. `what` names the file's kind in errors
// ("saved function"). IOError naming the path and the problem.
SavedFile read_saved_file(const std::string& path, const std::string& what);
// Whether the file at `path` begins as a saved file does (its magic): how `tgc run` tells a
// saved function from a .tg program. False for anything unreadable.
bool looks_like_saved_file(const std::string& path);
// The same on bytes in memory; `source` names them in errors.
SavedFile parse_saved_file(std::string_view bytes, const std::string& source, const std::string& what);

}  // namespace tgc
