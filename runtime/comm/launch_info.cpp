// launch_info(): the rank, world size and local rank this process was started with, read
// from the variables of `tgc launch` or Open MPI's mpirun.
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "runtime/comm/world.h"
#include "runtime/error.h"

namespace tgc {

namespace {

using Getenv = std::function<const char*(const char*)>;

// A variable's non-negative integer value; ConfigError naming the variable when it is not one.
int read_int(const Getenv& getenv, const char* name, const std::string& launcher) {
  const char* text = getenv(name);
  std::string_view v = text ? text : "";
  long long n = 0;
  bool ok = !v.empty() && v.size() <= 9;
  for (char c : v) {
    if (c < '0' || c > '9') ok = false;
    else n = n * 10 + (c - '0');
  }
  if (!ok)
    throw ConfigError(text ? fmt::format("environment variable {}='{}' is not a non-negative integer", name,
                                         v.substr(0, 40))
                           : fmt::format("environment variable {} is not set", name),
                      "", fmt::format("{} sets it for each process it starts; do not set it by hand", launcher));
  return static_cast<int>(n);
}

// The four variables of one launcher, checked against each other.
LaunchInfo read_set(const Getenv& getenv, const char* rank, const char* size, const char* local_rank,
                    const char* local_size, const std::string& launcher, bool locals_required) {
  LaunchInfo info;
  info.launcher = launcher;
  info.rank = read_int(getenv, rank, launcher);
  info.size = read_int(getenv, size, launcher);
  // `tgc launch` starts every rank on this machine: without the local variables the local
  // rank is the rank.
  const bool has_locals = getenv(local_rank) || getenv(local_size) || locals_required;
  info.local_rank = has_locals ? read_int(getenv, local_rank, launcher) : info.rank;
  info.local_size = has_locals ? read_int(getenv, local_size, launcher) : info.size;
  const std::string hint = fmt::format("{} sets it for each process it starts; do not set it by hand", launcher);
  if (info.size < 1)
    throw ConfigError(fmt::format("environment variable {}={} is not a world size (at least 1)", size, info.size),
                      "", hint);
  if (info.rank >= info.size)
    throw ConfigError(fmt::format("environment variable {}={} is not a rank of a world of {} ({}={})", rank,
                                  info.rank, info.size, size, info.size),
                      "", hint);
  if (info.local_size < 1 || info.local_size > info.size)
    throw ConfigError(fmt::format("environment variable {}={} is not a local world size of a world of {}",
                                  local_size, info.local_size, info.size),
                      "", hint);
  if (info.local_rank >= info.local_size)
    throw ConfigError(fmt::format("environment variable {}={} is not a local rank of {} local ranks ({}={})",
                                  local_rank, info.local_rank, info.local_size, local_size, info.local_size),
                      "", hint);
  return info;
}

}  // namespace

LaunchInfo read_launch_info(const Getenv& getenv) {
  const bool by_mpirun = getenv("OMPI_COMM_WORLD_RANK") || getenv("OMPI_COMM_WORLD_SIZE");
  LaunchInfo mpi;
  if (by_mpirun)
    mpi = read_set(getenv, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                   "OMPI_COMM_WORLD_LOCAL_SIZE", "mpirun", true);
  if (getenv("TGC_RANK") || getenv("TGC_WORLD_SIZE")) {
    LaunchInfo info = read_set(getenv, "TGC_RANK", "TGC_WORLD_SIZE", "TGC_LOCAL_RANK", "TGC_LOCAL_WORLD_SIZE",
                               "tgc launch", false);
    info.mpi_world = by_mpirun && mpi.rank == info.rank && mpi.size == info.size;
    return info;
  }
  if (by_mpirun) {
    mpi.mpi_world = true;
    return mpi;
  }
  return LaunchInfo{};
}

const LaunchInfo& launch_info() {
  // Read once: a bad variable throws here and again on the next call.
  static const LaunchInfo info = read_launch_info([](const char* name) { return std::getenv(name); });
  return info;
}

}  // namespace tgc
