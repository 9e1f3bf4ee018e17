// KernelCache::explain_miss: why a kernel missed, from the keys the directory's entries store
// (what log_compiles prints). The directory is untrusted: entries are opened as the cache
// reads them (regular files only, bounded key lengths), and malformed ones are skipped.
#include <fmt/format.h>

#include <algorithm>

#include "runtime/cache_entry.h"
#include "runtime/cache_files.h"
#include "runtime/kernel_cache.h"

namespace tgc {

namespace {

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

}  // namespace

std::string KernelCache::explain_miss(const KernelCacheKey& key) const {
  const std::string new_key = "new key: no entry for this kernel in " + dir_;
  if (dir_.empty()) return new_key;
  const cache_files::DirVerdict dir = cache_files::check_dir(dir_);
  if (!dir.usable) return new_key;
  // The entry of the same kernel that differs in the fewest fields explains best.
  std::string best;
  int best_fields = 4;
  for (const cache_files::Listed& l : cache_files::list_dir(dir_)) {
    if (!l.regular || !l.name.ends_with(cache_entry::kSuffix)) continue;
    const cache_files::Opened f = cache_files::open_regular(dir_ + "/" + l.name, dir.shared);
    if (!f.fd) continue;
    const std::optional<std::string> text = cache_entry::stored_key(f.fd.get(), f.size);
    if (!text) continue;
    const std::optional<KernelCacheKey> k = cache_entry::parse_key(*text);
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

}  // namespace tgc
