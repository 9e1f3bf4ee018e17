// What the loaders of the libraries NVIDIA ships both system-wide and inside Python's wheels
// (NCCL, cuDNN, NVRTC, cuBLAS) share: where each is looked for at run time (one list of candidate files and
// sonames, the same places in one order), opening the first that loads, and the words of their
// `tgc devices` lines.
#pragma once

#include <string>
#include <vector>

namespace tgc::cuda {

struct LibrarySearch {
  std::string forced_env;   // "TGC_NCCL_LIBRARY": when set, its file is the only candidate
  std::string soname;       // "libnccl.so.2": LD_LIBRARY_PATH and the system's library cache
  std::string configured;   // the wheel's file CMake found at configure time ("" when none)
  std::string wheel_tail;   // "nvidia/nccl/lib/libnccl.so.2", under site-packages
};

// In order: $forced_env (then nothing else), the soname, the configured file, then the wheel
// under the site-packages folders of $VIRTUAL_ENV, $CONDA_PREFIX, the python3 programs on
// PATH, ~/.local, pyenv's versions, /opt/conda, /usr/local and /usr; each file once. Found
// without running Python, which a library must not do.
std::vector<std::string> library_candidates(const LibrarySearch& search);

// dlopen (RTLD_NOW | RTLD_LOCAL: its symbols stay out of the global namespace) of the first
// candidate that loads, kept open for the process; nullptr when none did, with `tried`
// listing each failure ("a: cannot open ...; b: ...").
void* open_first(const std::vector<std::string>& candidates, std::string& tried);

// One function of a library's table: the name it is exported under and the member it fills.
struct LibrarySymbol {
  const char* name;
  void** slot;
};

// open_first() over `candidates`, then every symbol resolved into its slot. Returns the handle
// (kept open for the process), or nullptr with `why`: "<soname> not found (<tried>; <hint>)"
// when no candidate loaded, "<file> lacks <name>: <needs>" when a symbol is missing (the
// library is closed again).
void* load_library(const std::vector<std::string>& candidates, const std::vector<LibrarySymbol>& symbols,
                   const std::string& soname, const std::string& hint, const std::string& needs, std::string& why);

// The file a symbol of the loaded library lives in (dladdr), else `fallback`.
std::string loaded_path(void* symbol, const std::string& fallback);

// Why a build has no such library: "built without <Name> headers (<header> was not found, or
// TGC_WITH_<NAME>=OFF, ...: pip install <package> ...)", or, in a build without CUDA,
// "not built: this build has no CUDA backend".
std::string built_without_reason(const std::string& name, const std::string& header, const std::string& option,
                                 const std::string& package);

// A `tgc devices` line: "<key>" padded to 9 columns, then "available  (<detail>)" or
// "unavailable  (<detail>)".
std::string devices_line(const std::string& key, bool available, const std::string& detail);

}  // namespace tgc::cuda
