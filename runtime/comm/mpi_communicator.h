// The communicator of host memory across processes: Open MPI over MPI_COMM_WORLD (a
// duplicate of it, so tgc's traffic never matches the program's own MPI calls). Each
// collective is MPI's nonblocking call polled until done, so a collective that another rank
// never joins ends with a CommError after `timeout_seconds` instead of hanging.
#pragma once

#include <memory>

#include "runtime/comm/communicator.h"

namespace tgc {

// MPI is loaded and initialised now (every rank must make one: the duplicate is collective).
// Throws CommError when MPI is missing, not built in, or another rank does not join in time.
std::shared_ptr<Communicator> make_mpi_communicator(double timeout_seconds);

}  // namespace tgc
