// The candidate list of library_search.h: the environment, the soname, the configured wheel
// and the site-packages of the Python installations found on this machine.
#include "backends/cuda/library_search.h"

#include <dlfcn.h>
#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace tgc::cuda {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

void add_glob(std::vector<std::string>& out, const std::string& pattern) {
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
}

// The wheel under the site-packages of a Python installation at `prefix` (a venv, conda,
// pyenv version or /usr/local).
void add_wheel_under(std::vector<std::string>& out, const std::string& prefix, const std::string& tail) {
  if (prefix.empty()) return;
  for (const char* packages : {"site-packages", "dist-packages"})
    add_glob(out, prefix + "/lib/python3*/" + packages + "/" + tail);
}

}  // namespace

std::vector<std::string> library_candidates(const LibrarySearch& search) {
  const std::string forced = env(search.forced_env.c_str());
  if (!forced.empty()) return {forced};
  const std::string& tail = search.wheel_tail;
  std::vector<std::string> out = {search.soname};
  if (!search.configured.empty()) out.push_back(search.configured);
  add_wheel_under(out, env("VIRTUAL_ENV"), tail);
  add_wheel_under(out, env("CONDA_PREFIX"), tail);
  // Each python3 on PATH: <prefix>/bin/python3 -> <prefix>/lib/python3.X/site-packages.
  std::stringstream path(env("PATH"));
  for (std::string dir; std::getline(path, dir, ':');) {
    if (dir.empty()) continue;
    std::error_code ec;
    const std::filesystem::path py = std::filesystem::path(dir) / "python3";
    if (!std::filesystem::exists(py, ec)) continue;
    add_wheel_under(out, std::filesystem::path(dir).parent_path().string(), tail);
    // A venv's python3 is a link to the base interpreter, whose prefix has the user's packages too.
    const auto real = std::filesystem::canonical(py, ec);
    if (!ec) add_wheel_under(out, real.parent_path().parent_path().string(), tail);
  }
  if (!env("HOME").empty()) add_wheel_under(out, env("HOME") + "/.local", tail);
  // pyenv's interpreters (PATH holds only its shims, scripts outside the prefix) and the
  // usual conda and system prefixes.
  const std::string pyenv = !env("PYENV_ROOT").empty() ? env("PYENV_ROOT") : env("HOME") + "/.pyenv";
  if (pyenv != "/.pyenv") add_wheel_under(out, pyenv + "/versions/*", tail);
  add_wheel_under(out, "/opt/conda", tail);
  add_wheel_under(out, "/usr/local", tail);
  add_wheel_under(out, "/usr", tail);
  // The same file reached twice (a link, a venv over its base) is tried once.
  std::vector<std::string> unique;
  for (const std::string& c : out)
    if (std::find(unique.begin(), unique.end(), c) == unique.end()) unique.push_back(c);
  return unique;
}

void* open_first(const std::vector<std::string>& candidates, std::string& tried) {
  for (const std::string& candidate : candidates) {
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* err = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(err ? err : candidate + ": not found");
  }
  return nullptr;
}

void* load_library(const std::vector<std::string>& candidates, const std::vector<LibrarySymbol>& symbols,
                   const std::string& soname, const std::string& hint, const std::string& needs, std::string& why) {
  std::string tried;
  void* handle = open_first(candidates, tried);
  if (!handle) {
    why = soname + " not found (" + tried + "; " + hint + ")";
    return nullptr;
  }
  for (const LibrarySymbol& s : symbols) {
    *s.slot = dlsym(handle, s.name);
    if (!*s.slot) {
      why = loaded_path(dlsym(handle, symbols.front().name), soname) + " lacks " + s.name + ": " + needs;
      dlclose(handle);
      return nullptr;
    }
  }
  return handle;
}

std::string loaded_path(void* symbol, const std::string& fallback) {
  Dl_info info{};
  return dladdr(symbol, &info) && info.dli_fname ? info.dli_fname : fallback;
}

std::string built_without_reason(const std::string& name, const std::string& header, const std::string& option,
                                 const std::string& package) {
#if TGC_HAVE_CUDA
  return "built without " + name + " headers (" + header + " was not found, or " + option +
         "=OFF, when tgc was configured: pip install " + package + ", or scripts/setup, then reconfigure)";
#else
  (void)name, (void)header, (void)option, (void)package;
  return "not built: this build has no CUDA backend";
#endif
}

std::string devices_line(const std::string& key, bool available, const std::string& detail) {
  std::string padded = key;
  padded.resize(std::max<size_t>(padded.size(), 9), ' ');
  return padded + (available ? "available  (" : "unavailable  (") + detail + ")";
}

}  // namespace tgc::cuda
