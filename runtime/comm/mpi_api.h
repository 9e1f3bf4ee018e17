// The Open MPI functions and predefined handles tgc calls, found with dlsym in the libmpi
// loaded at run time. Included only by runtime/comm's MPI sources, and only where <mpi.h>
// was found at build time (TGC_HAVE_MPI): its types are used, its library never linked.
#pragma once

#ifndef TGC_HAVE_MPI
#error "mpi_api.h needs <mpi.h>: include it only under TGC_HAVE_MPI"
#endif

#define OMPI_SKIP_MPICXX 1  // the C API only: no C++ bindings, which would need libmpi_cxx
#include <mpi.h>

#include <mutex>
#include <string_view>
#include <vector>

namespace tgc {

// Open MPI's predefined handles (MPI_COMM_WORLD, MPI_FLOAT, MPI_SUM, ...) are macros over the
// addresses of its globals (ompi_mpi_comm_world, ...), fetched here by name.
struct MpiApi {
  decltype(&MPI_Initialized) Initialized;
  decltype(&MPI_Finalized) Finalized;
  decltype(&MPI_Init_thread) Init_thread;
  decltype(&MPI_Query_thread) Query_thread;
  decltype(&MPI_Finalize) Finalize;
  decltype(&MPI_Get_library_version) Get_library_version;
  decltype(&MPI_Error_string) Error_string;
  decltype(&MPI_Comm_rank) Comm_rank;
  decltype(&MPI_Comm_size) Comm_size;
  decltype(&MPI_Comm_idup) Comm_idup;
  decltype(&MPI_Comm_set_errhandler) Comm_set_errhandler;
  decltype(&MPI_Iallreduce) Iallreduce;
  decltype(&MPI_Iallgather) Iallgather;
  decltype(&MPI_Ireduce_scatter_block) Ireduce_scatter_block;
  decltype(&MPI_Ibcast) Ibcast;
  decltype(&MPI_Test) Test;

  MPI_Comm comm_world;
  MPI_Errhandler errors_return;
  MPI_Datatype c_bool, int8, int16, int32, int64, uint8, float32, float64;
  MPI_Op op_sum, op_max, op_min, op_lor, op_land;

  // Below MPI_THREAD_MULTIPLE, calls from several threads are serialised through this lock.
  int thread_level = 0;
  std::unique_lock<std::mutex> lock();

  // Throws CommError naming `call` and MPI's message when rc is not MPI_SUCCESS.
  void check(int rc, std::string_view call);

  // A collective's request left pending by a timeout (see mpi_drain_abandoned).
  void abandon(MPI_Request request);
  // Tests the abandoned requests once; true while one is still pending.
  bool out_of_step();

 private:
  std::mutex mutex_;
  std::mutex abandoned_mutex_;
  std::vector<MPI_Request> abandoned_;
};

// libmpi loaded and MPI initialised (MPI_Init_thread once, MPI_THREAD_MULTIPLE asked for;
// MPI_Finalize at exit when tgc initialised it). Initialisation waits for every rank, so it
// gives up after `timeout_seconds` with a CommError, as collectives do. Throws CommError
// when MPI cannot be loaded or initialised.
MpiApi& mpi_api(double timeout_seconds);

}  // namespace tgc
