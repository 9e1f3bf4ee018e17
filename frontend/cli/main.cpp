// The tgc command line. For now: --version, --help and `tgc devices`; `tgc run FILE.tg`
// arrives with the .tg language.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <tgc/tgc.h>

int main(int argc, char** argv) {
  CLI::App app{"tgc: a symbolic tensor-graph compiler (Theano's vocabulary, compiled)"};
  app.set_version_flag("--version", std::string("tgc ") + tgc::version());
  app.require_subcommand(0, 1);
  auto* devices = app.add_subcommand("devices", "List the devices tgc can run on in this build");
  CLI11_PARSE(app, argc, argv);

  if (devices->parsed()) {
    fmt::print("cpu      available  (reference evaluator: each op's perform, BLAS through OpenBLAS)\n");
    fmt::print("cuda     not built  (the CUDA backend is not part of this build yet)\n");
    fmt::print("opencl   not built  (the OpenCL backend is not part of this build yet)\n");
    return 0;
  }
  if (argc == 1) fmt::print("{}", app.help());
  return 0;
}
