// What every subcommand that reads a .tg file shares: loading it with the global flags'
// config, choosing the function (--fn), and describing a function's signature in errors.
#pragma once

#include <optional>
#include <string>

#include "frontend/cli/global_flags.h"
#include "frontend/lang/tg_program.h"

namespace tgc::cli {

// What a subcommand does with the functions it loads.
enum class LoadFor { Running, Inspecting };

// Loads and compiles `path` with the flags' config (and the optimizer's rewrite trace when
// asked). Functions loaded for inspection (show, emit) are never called, so they are not
// profiled: an empty profile would only be noise. SourceError / IOError / ConfigError go
// to the caller.
lang::TgProgram load_program(const std::string& path, const GlobalFlags& flags, LoadFor purpose,
                             bool trace_rewrites = false);

// The function called `name`, or the file's default one (the only, else the last). Throws
// InputError listing the file's functions when there is none of that name, or none at all.
lang::TgFunction& select_function(lang::TgProgram& program, const std::optional<std::string>& name);

// "train(x: float32 matrix (?, ?), y: float32 vector (?,))", for messages.
std::string signature(const lang::TgFunction& fn);

}  // namespace tgc::cli
