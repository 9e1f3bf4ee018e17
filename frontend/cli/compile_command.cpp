// tgc compile: load a .tg program, pick its functions, save them (compile_command.h).
#include "frontend/cli/compile_command.h"

#include <fmt/core.h>

#include <tgc/save.h>

#include "frontend/cli/errors.h"
#include "frontend/cli/program.h"
#include "frontend/cli/progress.h"
#include "runtime/error.h"

namespace tgc::cli {

CLI::App* add_compile_command(CLI::App& app, CompileArgs& args) {
  CLI::App* compile = app.add_subcommand("compile", "Compile functions of a .tg file and save them to a .tgf file");
  compile->add_option("FILE", args.file, "the .tg program (- reads it from standard input)")->required()->type_name("");
  compile->add_option("--fn", args.fns, "a function to save; repeat for several (default: all of the file's)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false)
      ->type_name("NAME");
  compile->add_option("-o,--output", args.out,
                      "the file to write (run it with: tgc run OUT.tgf); OUT.tg writes a readable .tg program instead")
      ->required()
      ->type_name("OUT.tgf");
  return compile;
}

int compile_command(const CompileArgs& args, const GlobalFlags& flags) {
  lang::TgProgram program = [&] {
    CompileProgress progress(args.file == "-" ? "the program on standard input" : args.file);
    return load_program(args.file, flags, LoadFor::Running);
  }();
  std::vector<const Function*> chosen;
  if (args.fns.empty()) {
    for (const lang::TgFunction& f : program.functions) chosen.push_back(&f.function);
    if (chosen.empty())
      throw InputError(fmt::format("{} defines no function to save", program.file), "",
                       "bind one in the file, e.g. f = function([x], [exp(x)])");
  } else {
    for (const std::string& name : args.fns) chosen.push_back(&select_function(program, name).function);
  }
  // OUT.tg: the functions as a readable .tg program (their arrays beside it), not a saved file.
  if (args.out.size() > 3 && args.out.ends_with(".tg")) save_tg(chosen, args.out);
  else save(chosen, args.out);
  std::string names;
  for (const Function* f : chosen) names += (names.empty() ? "" : ", ") + f->name();
  fmt::print("Saved {} ({}) to {}\n", chosen.size() == 1 ? "1 function" : fmt::format("{} functions", chosen.size()),
             names, args.out);
  finish_stdout();
  return kExitOk;
}

}  // namespace tgc::cli
