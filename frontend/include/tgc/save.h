// Saving compiled functions and shared variables, and loading them in another process
// (docs/save.md). A saved function is one file (".tgf" by convention) holding each function's
// graph as built and as optimized, its configuration, the values of the shared variables it
// reads or updates, and the compiled kernels its compiles used, so a server loads and runs
// it without optimizing or compiling again (it compiles only what the file lacks: kernels for
// another CPU or another compiler version). Checkpoints (save_shared / load_shared) hold
// values only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <tgc/function.h>
#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// Writes `fn` to `path` (atomically: a reader never sees half a file). ValueError for a
// function a file cannot hold (a data-parallel one, one using an op of the program's own);
// IOError when the file cannot be written.
void save(const Function& fn, const std::string& path);
// Several functions in one file, sharing their shared variables: loaded together
// (load_functions), a training function's updates are what the prediction function reads.
void save(const std::vector<const Function*>& functions, const std::string& path);

struct LoadOptions {
  // Config keys on top of the saved ones (docs/config.md), e.g. {{"cache_dir", "/srv/cache"}}.
  // The saved keys that decide the program (device, optimizer, fast_math, ...) are the
  // function's; the process's own settings (cache_dir, profile, log_compiles, ...) come from
  // this process. Changing a deciding key here (another device) optimizes the saved graph again.
  std::map<std::string, std::string> config{};
  // Shared variables of this process to use instead of the file's of the same name: the
  // loaded functions read and update these (their values are kept; dtype and rank must match).
  std::vector<Shared> shared{};
};

// The function `name` of the file ("": the file must hold one function). IOError naming the
// file for a missing, damaged or foreign file, or a file of another format version.
Function load_function(const std::string& path, const std::string& name = "", const LoadOptions& options = {});
// Every function of the file, in the order saved, over one set of shared variables.
std::vector<Function> load_functions(const std::string& path, const LoadOptions& options = {});
// The names of the functions a file holds, without loading them.
std::vector<std::string> saved_function_names(const std::string& path);

// A .tg program that builds `functions` again from their graphs as built (raw_graph()), for
// reading and sharing a graph made in C++ (docs/save.md#as-a-tg-program): one assignment per
// node, in the language's operators and calls where it has them and op(tag, fields, ...)
// otherwise. `arrays`: the shared values and larger constants, (file name, value), that the
// program load()s from files named `array_prefix`_<name>.npy. ValueError for a function
// holding a loop (scan): save() keeps those.
struct TgProgramText {
  std::string source;
  std::vector<std::pair<std::string, Tensor>> arrays;
};
TgProgramText write_tg_program(const std::vector<const Function*>& functions, const std::string& array_prefix);
// write_tg_program to `path`, its arrays beside it (<path without .tg>_<name>.npy).
void save_tg(const std::vector<const Function*>& functions, const std::string& path);

// A checkpoint: the current values of `vars` (each named, each name once) to `path`.
void save_shared(const std::vector<Shared>& vars, const std::string& path);
// Sets each of `vars` from the value of the same name in the checkpoint (all or none: every
// value is read and checked before the first is set). IOError naming a variable the file
// lacks (and what it has), TypeError for another dtype or rank.
void load_shared(const std::vector<Shared>& vars, const std::string& path);

TGC_API_END
}  // namespace tgc
