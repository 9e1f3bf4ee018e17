// cache_files: the kernel cache's file-system operations, written for a directory that is
// untrusted input and may be shared with other users. Nothing here follows a symbolic link,
// opens anything but a regular file, writes through a name another process could have
// prepared, or reads more than the caller's cap.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tgc::cache_files {

// An open file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// What may be trusted in a cache directory, decided from the directory itself.
struct DirVerdict {
  bool usable = false;         // entries may be read and written here
  bool shared = false;         // world-writable and sticky: read only files we or root own
  bool not_directory = false;  // the path exists and is something else
  std::string why;             // when not usable: the reason, for the warning
};
// Checks an existing directory (stat follows a symbolic link the user chose as cache_dir):
// a directory that others may write is usable only when it is sticky (so nobody can replace
// another's files) and owned by this user or root; one owned by another user is refused
// unless root owns it. Absent: usable=false, why="".
DirVerdict check_dir(const std::string& dir);

// An entry opened for reading.
struct Opened {
  enum class Status { Ok, Absent, Refused, Error } status = Status::Absent;
  Fd fd;
  uint64_t size = 0;
  bool foreign = false;  // Refused because another user owns it (theirs to remove, not ours)
  std::string why;       // Refused/Error: "a FIFO, not a regular file", "owned by uid 1001, ..."
};
// Opens `path` only when it is a regular file: lstat first (so a device or FIFO is never
// opened), then O_NOFOLLOW|O_NONBLOCK and fstat of what was opened (so a file swapped in
// between is caught without blocking). With `own_files_only`, a file owned by anyone but
// this user or root is refused (in a shared directory anyone may plant one).
Opened open_regular(const std::string& path, bool own_files_only);

// Reads exactly `n` bytes at `offset`; false on a short read or an error.
bool read_at(int fd, uint64_t offset, void* out, size_t n);

// Marks the open file as just used (its modification time, the eviction clock); failures
// are ignored (another user's file in a shared directory).
void touch(int fd);

// mkdir -p with mode 0755 (less the umask); "" on success (also when it exists), else why.
std::string make_dirs(const std::string& dir);

// Creates `path` for writing with O_CREAT|O_EXCL|O_NOFOLLOW: an existing file or a link
// (dangling or not) at that name makes it fail with EEXIST instead of writing through it.
// -1 and errno on failure.
int create_exclusive(const std::string& path);

// Writes `bytes` into a new temporary file in `dir` (an unpredictable name, created by
// create_exclusive) and renames it to `dir/name`: readers see the old file, none, or the new
// one, and a link at `name` is replaced, never followed.
struct Written {
  bool ok = false;
  // The file was written but `name` could not be replaced (a directory holds it, or another
  // user's file in a sticky directory): the directory itself is fine.
  bool name_blocked = false;
  std::string why;  // when not ok
};
Written write_atomically(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes);

// Whether a file name is a temporary file of write_atomically for an entry named `*suffix`.
bool is_temp_name(const std::string& name, const std::string& suffix);

// One name in a directory, from lstat (links are not followed).
struct Listed {
  std::string name;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  bool regular = false;
  bool directory = false;
  uid_t owner = 0;
};
// The names in `dir` (without "." and ".."), each lstat'ed; a name that vanishes meanwhile
// is left out (another process evicted it).
std::vector<Listed> list_dir(const std::string& dir);

// "a FIFO", "a directory", "a symbolic link", ... for a st_mode.
std::string kind_of(mode_t mode);

}  // namespace tgc::cache_files
