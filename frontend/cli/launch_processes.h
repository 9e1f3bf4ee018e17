// The process supervisor of `tgc launch` when it starts the ranks itself: N copies of a
// program with their rank variables, output passed through, the first rank that fails
// stops the others, Ctrl-C reaches every rank.
#pragma once

#include <string>
#include <vector>

namespace tgc::cli {

struct LaunchPlan {
  int ranks = 1;
  std::vector<std::string> command;  // PROGRAM ARGS..., PROGRAM looked up on PATH
  double grace_seconds = 5;          // between SIGTERM and SIGKILL when stopping ranks
};

// The environment rank `rank` of `ranks` runs with: this process's, with TGC_RANK,
// TGC_WORLD_SIZE, TGC_LOCAL_RANK, TGC_LOCAL_WORLD_SIZE set (every rank is on this machine),
// NCCL_NVLS_ENABLE=0 unless already set (NVLink multicast stays off on shared machines), and
// without Open MPI's rank variables (these ranks are not an MPI job).
std::vector<std::string> rank_environment(const std::vector<std::string>& base, int rank, int ranks);

// Runs the plan and returns the launch's exit code: 0 when every rank exited with 0; else
// the first failing rank's code (128 + N for signal N), after the others were stopped
// (SIGTERM, SIGKILL after the grace period) and the failure was reported on stderr; 130 when
// interrupted. A program that cannot be started is a tgc::Error.
int run_ranks(const LaunchPlan& plan);

}  // namespace tgc::cli
