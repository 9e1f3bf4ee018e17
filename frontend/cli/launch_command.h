// tgc launch: start N ranks of a program on this machine (through Open MPI's mpirun when it
// is on the PATH, so that host collectives work; else tgc starts the processes itself).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tgc::cli {

struct LaunchArgs {
  int ranks = 0;
  std::string mpirun = "auto";  // auto | on | off
  double grace_seconds = 5;
  bool as_mpi_rank = false;     // internal: the step mpirun runs in each rank
};

// Takes PROGRAM ARGS... out of the command line before it is parsed (`args` is argv): the
// words after `launch`'s own options, or after `--`. PROGRAM's arguments are its own, options
// of tgc's among them (tgc launch -n 2 tgc run f.tg --profile).
std::vector<std::string> split_launch_command(std::vector<std::string>& args);
CLI::App* add_launch_command(CLI::App& app, LaunchArgs& args);
int launch_command(const LaunchArgs& args, const std::vector<std::string>& command);

}  // namespace tgc::cli
