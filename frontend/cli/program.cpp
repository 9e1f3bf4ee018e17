// Loading a .tg file for a subcommand and picking its function; see program.h.
#include "frontend/cli/program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <tgc/save.h>

#include "ops/core/graph.h"
#include "runtime/saved_file.h"
#include "runtime/error.h"
#include "runtime/suggest.h"

namespace tgc::cli {

namespace {

// A saved file's functions as a program's, named as saved.
lang::TgProgram load_saved_program(const std::string& path, const std::map<std::string, std::string>& config) {
  LoadOptions options;
  options.config = config;
  lang::TgProgram program;
  program.file = path;
  for (Function& f : load_functions(path, options)) {
    std::string name = f.name();
    program.functions.push_back(lang::as_program_function(std::move(f), std::move(name)));
  }
  return program;
}

}  // namespace

lang::TgProgram load_program(const std::string& path, const GlobalFlags& flags, LoadFor purpose,
                             bool trace_rewrites) {
  FunctionOptions options;
  options.config = apply_global_flags(flags);
  if (purpose == LoadFor::Inspecting) {
    options.config["profile"] = "false";
    options.config.erase("profile_trace");
  }
  // A file `tgc compile` (or save()) wrote: its functions, compiled already.
  if (path != "-" && looks_like_saved_file(path)) return load_saved_program(path, options.config);
  options.trace_rewrites = trace_rewrites;
  return lang::load_file(path, options);
}

lang::TgFunction& select_function(lang::TgProgram& program, const std::optional<std::string>& name) {
  std::vector<std::string> names;
  for (const lang::TgFunction& f : program.functions) names.push_back(f.name);
  const std::string defined =
      names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
  if (!name) {
    if (lang::TgFunction* f = program.default_function()) return *f;
    throw InputError(fmt::format("{} defines no function to run", program.file), "",
                     "bind one in the file, e.g. f = function([x], [exp(x)])");
  }
  if (lang::TgFunction* f = program.find(*name)) return *f;
  std::string near = closest_match(*name, names);
  throw InputError(fmt::format("{} has no function '{}' (it defines: {})", program.file, *name, defined),
                   "", near.empty() ? "give --fn one of the names above"
                                        : fmt::format("did you mean '{}'?", near));
}

std::string signature(const lang::TgFunction& fn) {
  const std::vector<VarPtr>& inputs = fn.function.raw_graph().inputs();
  std::string params;
  for (size_t i = 0; i < fn.inputs.size(); ++i) {
    params += i ? ", " : "";
    params += fn.inputs[i];
    if (i < inputs.size()) params += ": " + inputs[i]->type().str();
  }
  return fmt::format("{}({})", fn.name, params);
}

}  // namespace tgc::cli
