// tgc compile: load a .tg program, pick its functions, save them (compile_command.h).
#include "frontend/cli/compile_command.h"

#include <fmt/core.h>

#include <algorithm>

#include <tgc/save.h>

#include "frontend/cli/errors.h"
#include "frontend/cli/program.h"
#include "frontend/cli/progress.h"
#include "frontend/cli/run_inputs.h"
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
  compile->add_flag("--warm-up", args.warm_up,
                    "call each function once before saving (its shared values are put back after): a GPU "
                    "function builds some kernels on its first call, and the file then holds them too");
  compile->add_option("--input", args.inputs, "NAME=FILE.npy or NAME=EXPR: an input of the warm-up call")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE");
  return compile;
}

namespace {

// One call of each function, its shared values put back afterwards (the file holds the
// program's values, not those of a step taken to warm up).
void warm_up(const std::vector<lang::TgFunction*>& fns, const std::vector<std::string>& specs) {
  for (lang::TgFunction* fn : fns) {
    std::vector<std::string> mine;  // the specs naming this function's inputs
    for (const std::string& spec : specs) {
      const std::string name = spec.substr(0, spec.find('='));
      if (std::find(fn->inputs.begin(), fn->inputs.end(), name) != fn->inputs.end()) mine.push_back(spec);
    }
    const std::vector<Tensor> arguments = build_arguments(*fn, mine);
    const std::vector<Shared> shared = fn->function.shared_variables();
    std::vector<Tensor> before;
    for (const Shared& s : shared) before.push_back(s.get_value());
    fn->function(arguments);
    for (size_t k = 0; k < shared.size(); ++k) shared[k].set_value(before[k]);
  }
}

}  // namespace

int compile_command(const CompileArgs& args, const GlobalFlags& flags) {
  lang::TgProgram program = [&] {
    CompileProgress progress(args.file == "-" ? "the program on standard input" : args.file);
    return load_program(args.file, flags, LoadFor::Running);
  }();
  std::vector<lang::TgFunction*> picked;
  if (args.fns.empty()) {
    for (lang::TgFunction& f : program.functions) picked.push_back(&f);
    if (picked.empty())
      throw InputError(fmt::format("{} defines no function to save", program.file), "",
                       "bind one in the file, e.g. f = function([x], [exp(x)])");
  } else {
    for (const std::string& name : args.fns) picked.push_back(&select_function(program, name));
  }
  if (!args.inputs.empty() && !args.warm_up)
    throw InputError("--input gives the warm-up call its inputs", "", "add --warm-up, or leave out --input");
  if (args.warm_up) warm_up(picked, args.inputs);
  std::vector<const Function*> chosen;
  for (const lang::TgFunction* f : picked) chosen.push_back(&f->function);
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
