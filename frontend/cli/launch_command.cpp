// tgc launch -n N PROGRAM ARGS...: every rank gets TGC_RANK, TGC_WORLD_SIZE, TGC_LOCAL_RANK,
// TGC_LOCAL_WORLD_SIZE and NCCL_NVLS_ENABLE=0. Host collectives need MPI_COMM_WORLD, which
// only mpirun's processes share (Open MPI singletons cannot join each other), so where mpirun
// is on the PATH tgc execs it, and mpirun runs `tgc launch --as-mpi-rank` in each rank to set
// the variables before it execs PROGRAM; without mpirun, tgc starts the ranks itself
// (launch_processes.h) and collectives run on devices only.
#include "frontend/cli/launch_command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/core.h>

#include "backends/cuda/nccl_entry.h"
#include "frontend/cli/errors.h"
#include "frontend/cli/launch_processes.h"
#include "runtime/error.h"

namespace tgc::cli {

namespace {

// `name` on the PATH, as execvp would find it; empty when absent.
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
  }
  return "";
}

std::vector<char*> c_argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// In each rank under mpirun: Open MPI's rank variables become tgc's, then PROGRAM replaces
// this process.
[[noreturn]] void exec_as_mpi_rank(const std::vector<std::string>& command) {
  const char* names[][2] = {{"OMPI_COMM_WORLD_RANK", "TGC_RANK"},
                            {"OMPI_COMM_WORLD_SIZE", "TGC_WORLD_SIZE"},
                            {"OMPI_COMM_WORLD_LOCAL_RANK", "TGC_LOCAL_RANK"},
                            {"OMPI_COMM_WORLD_LOCAL_SIZE", "TGC_LOCAL_WORLD_SIZE"}};
  for (const auto& [from, to] : names) {
    const char* value = std::getenv(from);
    if (!value)
      throw Error(fmt::format("{} is not set", from), "tgc launch --as-mpi-rank",
                  "--as-mpi-rank is the step mpirun runs in each rank of tgc launch; use tgc launch -n N PROGRAM");
    setenv(to, value, 1);
  }
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  std::vector<std::string> args = command;
  execvp(args[0].c_str(), c_argv(args).data());
  const int err = errno;
  fmt::print(stderr, "tgc launch: cannot start '{}' for rank {}: {}\n", command[0], std::getenv("TGC_RANK"),
             std::strerror(err));
  std::fflush(stderr);
  _exit(127);
}

// tgc itself, for mpirun to run in each rank.
std::string self_path() {
  std::error_code ec;
  std::string path = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec || path.empty())
    throw Error("cannot find the tgc executable (/proc/self/exe)", "tgc launch", "run with --mpirun off");
  return path;
}

[[noreturn]] void exec_mpirun(const std::string& mpirun, const LaunchArgs& args, const std::vector<std::string>& command) {
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // exported to every rank by -x below
  // --oversubscribe: more ranks than cores is allowed (a CPU test on a small machine);
  // --bind-to none: each rank's threads may use every core, as a process started alone does.
  std::vector<std::string> argv = {mpirun, "-np", std::to_string(args.ranks), "--oversubscribe", "--bind-to", "none",
                                   "-x", "NCCL_NVLS_ENABLE", self_path(), "launch", "--as-mpi-rank", "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  std::fflush(stdout);
  execv(mpirun.c_str(), c_argv(argv).data());
  throw Error(fmt::format("cannot run {}: {}", mpirun, std::strerror(errno)), "tgc launch",
              "run with --mpirun off to start the ranks without MPI");
}

}  // namespace

std::vector<std::string> split_launch_command(std::vector<std::string>& args) {
  // The subcommand is the first word that is not an option (tgc's global flags do not
  // apply to launch: a rank's program takes its own).
  auto launch = std::find_if(args.begin() + (args.empty() ? 0 : 1), args.end(),
                             [](const std::string& w) { return !w.starts_with("-"); });
  if (launch == args.end() || *launch != "launch") return {};
  // launch's own options, and those that take a value (as separate words: -n 2).
  static const std::vector<std::string> with_value = {"-n", "--np", "--mpirun", "--grace"};
  for (auto it = launch + 1; it != args.end(); ++it) {
    const bool dashes = *it == "--";
    if (!dashes && it->starts_with("-")) {
      if (std::find(with_value.begin(), with_value.end(), *it) != with_value.end() && it + 1 != args.end()) ++it;
      continue;
    }
    std::vector<std::string> command(it + (dashes ? 1 : 0), args.end());
    args.erase(it, args.end());
    return command;
  }
  return {};
}

CLI::App* add_launch_command(CLI::App& app, LaunchArgs& args) {
  CLI::App* launch = app.add_subcommand(
      "launch", "Start N ranks of a program on this machine (tgc launch -n 2 tgc run train.tg; docs/distributed.md)");
  launch->add_option("-n,--np", args.ranks, "how many ranks to start")
      ->check(CLI::Range(1, 4096).description(""))
      ->type_name("N");
  launch->add_option("--mpirun", args.mpirun,
                     "auto (default): start the ranks through Open MPI's mpirun when it is on the PATH, so "
                     "that host collectives work; on: always (an error without it); off: tgc starts them "
                     "(collectives on devices only)")
      ->check(CLI::IsMember({"auto", "on", "off"}).description(""))
      ->type_name("auto|on|off");
  launch->add_option("--grace", args.grace_seconds,
                     "seconds the other ranks get to exit after one failed, before SIGKILL (default 5; "
                     "without mpirun)")
      ->check(CLI::Range(0.0, 3600.0).description(""))
      ->type_name("SECONDS");
  launch->add_flag("--as-mpi-rank", args.as_mpi_rank)->group("");  // mpirun's step in each rank
  // PROGRAM and its arguments were taken out before parsing (split_launch_command); nothing
  // after `launch` is a global flag of tgc.
  launch->fallthrough(false);
  launch->footer("PROGRAM ARGS...: the command each rank runs, e.g. tgc run train.tg, or any executable");
  return launch;
}

int launch_command(const LaunchArgs& args, const std::vector<std::string>& command) {
  if (command.empty())
    throw Error("no program to launch", "tgc launch", "write tgc launch -n N PROGRAM ARGS..., e.g. tgc launch -n 2 tgc run train.tg");
  if (args.as_mpi_rank) exec_as_mpi_rank(command);
  if (args.ranks < 1) throw Error("the number of ranks is missing", "tgc launch", "give it with -n N");
  const std::string mpirun = args.mpirun == "off" ? "" : find_on_path("mpirun");
  if (args.mpirun == "on" && mpirun.empty())
    throw Error("--mpirun on, and mpirun is not on the PATH", "tgc launch",
                "install Open MPI (Debian: openmpi-bin), or use --mpirun off to start the ranks without MPI");
  if (!mpirun.empty()) exec_mpirun(mpirun, args, command);
  // Ranks without an MPI world exchange NCCL's unique id through their environment: this
  // process makes it and hosts NCCL's bootstrap root while it supervises them.
  if (args.ranks > 1 && !std::getenv(kNcclUniqueIdEnv)) {
    try {
      setenv(kNcclUniqueIdEnv, make_nccl_unique_id_hex().c_str(), 1);
    } catch (const CommError&) {
      // No NCCL here: the ranks' device collectives say so themselves if they need it.
    }
  }
  return run_ranks({args.ranks, command, args.grace_seconds});
}

}  // namespace tgc::cli
