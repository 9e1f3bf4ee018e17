// The running build's identity (runtime/build_identity.h): the NT_GNU_BUILD_ID note of the
// loaded object that contains this function, found through dl_iterate_phdr.
#include "runtime/build_identity.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace tgc {

namespace {

struct Search {
  uintptr_t address = 0;  // an address inside the object we look for
  std::string id;
};

// The hex digits of the GNU build ID note in [p, end), or "".
std::string build_id_in_notes(const char* p, const char* end) {
  auto align4 = [](size_t n) { return (n + 3) & ~size_t{3}; };
  while (p + sizeof(ElfW(Nhdr)) <= end) {
    ElfW(Nhdr) h;
    std::memcpy(&h, p, sizeof h);
    const char* name = p + sizeof h;
    const char* desc = name + align4(h.n_namesz);
    if (desc + h.n_descsz > end) break;
    if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
      std::string hex;
      for (size_t i = 0; i < h.n_descsz; ++i) hex += fmt::format("{:02x}", static_cast<unsigned char>(desc[i]));
      return hex;
    }
    p = desc + align4(h.n_descsz);
  }
  return {};
}

int visit(dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    contains = ph.p_type == PT_LOAD && s->address >= start && s->address < start + ph.p_memsz;
  }
  if (!contains) return 0;
  for (int i = 0; i < info->dlpi_phnum && s->id.empty(); ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* notes = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    s->id = build_id_in_notes(notes, notes + ph.p_memsz);
  }
  return 1;  // found the object: stop
}

std::string compute_identity() {
  Search s;
  s.address = reinterpret_cast<uintptr_t>(&build_identity);
  dl_iterate_phdr(&visit, &s);
  if (!s.id.empty()) return s.id;
  Dl_info info;
  struct stat st;
  if (dladdr(reinterpret_cast<void*>(&build_identity), &info) != 0 && info.dli_fname &&
      stat(info.dli_fname, &st) == 0)
    return fmt::format("size {} mtime {}.{}", static_cast<long long>(st.st_size), static_cast<long long>(st.st_mtim.tv_sec),
                       static_cast<long>(st.st_mtim.tv_nsec));
  return std::string("compiled ") + __DATE__ + " " + __TIME__;
}

}  // namespace

const std::string& build_identity() {
  static const std::string id = compute_identity();
  return id;
}

}  // namespace tgc
