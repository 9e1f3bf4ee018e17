// Open MPI, loaded at run time: whether this machine has it and which version (for `tgc
// devices`), and the state a timed-out collective leaves behind. libmpi is never linked, so
// tgc builds and runs where MPI is absent; the calls themselves are in mpi_api.h.
#pragma once

#include <string>

namespace tgc {

struct MpiStatus {
  bool built = true;    // false where tgc was built without Open MPI's headers
  bool available = false;
  std::string library;  // the file that was loaded: "libmpi.so.40"
  std::string version;  // MPI_Get_library_version's first part: "Open MPI v4.1.4"
  std::string reason;   // why it is not available
};
// Loads libmpi (once) and asks its version; never initialises MPI.
const MpiStatus& mpi_status();

// Collectives that timed out stay pending inside MPI (MPI cannot cancel them); they complete
// if the late ranks join after all. Waits up to `seconds` for that and says whether none is
// left pending. While one is, new collectives refuse to start (the ranks are out of step) and
// MPI_Finalize is skipped at exit (it could wait for the missing ranks forever).
bool mpi_drain_abandoned(double seconds);

// For a process that is about to exit with an error: skip MPI_Finalize at exit. Open MPI's
// MPI_Finalize waits for every rank, and ranks still waiting in a collective for this one
// would hold it there until their comm_timeout; without it mpirun sees the exit and ends the
// job at once. The tgc command calls it on every failing exit.
void mpi_skip_finalize();

}  // namespace tgc
