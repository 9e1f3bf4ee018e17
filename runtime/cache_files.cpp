// cache_files: POSIX calls rather than iostreams or std::filesystem, because the guarantees
// live in the flags (O_NOFOLLOW, O_EXCL, O_NONBLOCK) and in checking the opened file with
// fstat, which neither library exposes.
#include "runtime/cache_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace tgc::cache_files {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

std::string kind_of(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

namespace {

bool trusted_owner(uid_t uid) { return uid == ::geteuid() || uid == 0; }

std::string errno_text(int err) { return std::strerror(err); }

// 64 unpredictable bits for a temporary name; without getrandom (a sandbox), the time, the
// process and a counter, which O_EXCL still makes safe (a taken name is retried).
uint64_t random_bits() {
  uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof bits)) return bits;
  static std::atomic<uint64_t> counter{0};
  const auto now = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return now * 0x9e3779b97f4a7c15ull ^ (static_cast<uint64_t>(::getpid()) << 32) ^ counter++;
}

bool write_all(int fd, const uint8_t* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

DirVerdict check_dir(const std::string& dir) {
  DirVerdict v;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) v.why = fmt::format("cannot stat it: {}", errno_text(errno));
    return v;
  }
  if (!S_ISDIR(st.st_mode)) {
    v.not_directory = true;
    v.why = "it is " + kind_of(st.st_mode) + ", not a directory";
    return v;
  }
  if (st.st_mode & S_IWOTH) {
    // Anyone may create, rename or delete names here: only a sticky directory stops them
    // replacing our entries, and only a trusted owner stops them changing that.
    if (!(st.st_mode & S_ISVTX)) {
      v.why = "it is writable by every user and not sticky, so anyone could replace its kernels";
      return v;
    }
    if (!trusted_owner(st.st_uid)) {
      v.why = fmt::format("it is writable by every user and owned by uid {}, not by you or root", st.st_uid);
      return v;
    }
    v.shared = true;
  }
  v.usable = true;
  return v;
}

namespace {

// An outcome of open_regular other than Ok or Absent.
Opened not_opened(Opened::Status status, std::string why, bool foreign = false) {
  Opened o;
  o.status = status;
  o.why = std::move(why);
  o.foreign = foreign;
  return o;
}

}  // namespace

Opened open_regular(const std::string& path, bool own_files_only) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return {};
    return not_opened(Opened::Status::Error, errno_text(errno));
  }
  if (!S_ISREG(st.st_mode)) return not_opened(Opened::Status::Refused, kind_of(st.st_mode) + ", not a regular file");
  // O_NONBLOCK: a FIFO swapped in after the lstat opens at once instead of waiting for a
  // writer, and fstat below refuses it.
  Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return {};  // evicted or replaced meanwhile: a miss
    if (errno == ELOOP) return not_opened(Opened::Status::Refused, "a symbolic link, not a regular file");
    return not_opened(Opened::Status::Error, errno_text(errno));
  }
  if (::fstat(fd.get(), &st) != 0) return not_opened(Opened::Status::Error, errno_text(errno));
  if (!S_ISREG(st.st_mode)) return not_opened(Opened::Status::Refused, kind_of(st.st_mode) + ", not a regular file");
  if (own_files_only && !trusted_owner(st.st_uid))
    return not_opened(Opened::Status::Refused,
                      fmt::format("owned by uid {} in a directory every user may write", st.st_uid),
                      /*foreign=*/true);
  Opened o;
  o.status = Opened::Status::Ok;
  o.fd = std::move(fd);
  o.size = static_cast<uint64_t>(st.st_size);
  return o;
}

bool read_at(int fd, uint64_t offset, void* out, size_t n) {
  auto* p = static_cast<uint8_t*>(out);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return true;
}

void touch(int fd) { (void)::futimens(fd, nullptr); }

int create_exclusive(const std::string& path) {
  // O_EXCL already refuses any existing name, links included; O_NOFOLLOW says so twice.
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

bool is_temp_name(const std::string& name, const std::string& suffix) {
  return name.find(suffix + ".tmp.") != std::string::npos;
}

Written write_atomically(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes) {
  Written w;
  std::string tmp;
  Fd fd;
  for (int attempt = 0; attempt < 16 && !fd; ++attempt) {
    tmp = fmt::format("{}/{}.tmp.{:016x}", dir, name, random_bits());
    fd = Fd(create_exclusive(tmp));
    if (!fd && errno != EEXIST) {
      w.why = fmt::format("cannot create a file in {}: {}", dir, errno_text(errno));
      return w;
    }
  }
  if (!fd) {
    w.why = fmt::format("cannot create a temporary file in {}: every name tried was taken", dir);
    return w;
  }
  const bool written = write_all(fd.get(), bytes.data(), bytes.size());
  int err = errno;
  const bool closed = ::close(fd.release()) == 0;  // a full disk may show only here (NFS)
  if (written && !closed) err = errno;
  if (!written || !closed) {
    ::unlink(tmp.c_str());
    w.why = fmt::format("cannot write {}: {}", tmp, errno_text(err));
    return w;
  }
  if (::rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    w.name_blocked = err == EISDIR || err == ENOTEMPTY || err == EEXIST || err == EPERM || err == EACCES;
    w.why = fmt::format("cannot rename {} to {}: {}", tmp, name, errno_text(err));
    return w;
  }
  w.ok = true;
  return w;
}

std::string make_dirs(const std::string& dir) {
  // 0755 rather than std::filesystem's 0777: under umask 0 the latter would make a directory
  // every user may write, which check_dir then refuses.
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string prefix = dir.substr(0, slash);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return fmt::format("cannot create {}: {}", prefix, errno_text(errno));
    if (slash == std::string::npos) return "";
  }
}

std::vector<Listed> list_dir(const std::string& dir) {
  std::vector<Listed> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  const int dfd = ::dirfd(d);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    Listed l;
    l.name = name;
    l.size = static_cast<uint64_t>(st.st_size);
    l.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    l.regular = S_ISREG(st.st_mode);
    l.directory = S_ISDIR(st.st_mode);
    l.owner = st.st_uid;
    out.push_back(std::move(l));
  }
  ::closedir(d);
  return out;
}

}  // namespace tgc::cache_files
