// Open MPI loaded with dlopen (libmpi.so.40, else libmpi.so), its functions and predefined
// handles found with dlsym, MPI initialised on first use and finalised at exit. Open MPI's
// plugins resolve libmpi's symbols through the global scope, hence RTLD_GLOBAL; the library
// stays loaded for the life of the process.
#include "runtime/comm/mpi_library.h"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "runtime/comm/world.h"
#include "runtime/error.h"

#ifdef TGC_HAVE_MPI
#include "runtime/comm/mpi_api.h"
#endif

namespace tgc {

#ifndef TGC_HAVE_MPI

const MpiStatus& mpi_status() {
  static const MpiStatus status{false, false, "", "",
                                "this build has no MPI host collectives: tgc was built without MPI headers "
                                "(install libopenmpi-dev and rebuild)"};
  return status;
}

bool mpi_drain_abandoned(double) { return true; }

void mpi_skip_finalize() {}

#else

namespace {

struct Loaded {
  MpiApi* api = nullptr;  // never freed: the exit handler runs after static destructors may have
  MpiStatus status;
};

Loaded load() {
  Loaded out;
  void* handle = nullptr;
  std::string errors;
  for (const char* name : {"libmpi.so.40", "libmpi.so"}) {
    handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (handle) {
      out.status.library = name;
      break;
    }
    const char* err = dlerror();
    errors += fmt::format("{}{}", errors.empty() ? "" : "; ", err ? err : name);
  }
  if (!handle) {
    out.status.reason = fmt::format("Open MPI not found ({})", errors);
    return out;
  }
  auto api = std::make_unique<MpiApi>();
  std::string missing;
  auto find = [&](const char* symbol) {
    void* p = dlsym(handle, symbol);
    if (!p && missing.empty()) missing = symbol;
    return p;
  };
#define TGC_MPI_FUNCTION(name) api->name = reinterpret_cast<decltype(api->name)>(find("MPI_" #name))
  TGC_MPI_FUNCTION(Initialized);
  TGC_MPI_FUNCTION(Finalized);
  TGC_MPI_FUNCTION(Init_thread);
  TGC_MPI_FUNCTION(Query_thread);
  TGC_MPI_FUNCTION(Finalize);
  TGC_MPI_FUNCTION(Get_library_version);
  TGC_MPI_FUNCTION(Error_string);
  TGC_MPI_FUNCTION(Comm_rank);
  TGC_MPI_FUNCTION(Comm_size);
  TGC_MPI_FUNCTION(Comm_idup);
  TGC_MPI_FUNCTION(Comm_set_errhandler);
  TGC_MPI_FUNCTION(Iallreduce);
  TGC_MPI_FUNCTION(Iallgather);
  TGC_MPI_FUNCTION(Ireduce_scatter_block);
  TGC_MPI_FUNCTION(Ibcast);
  TGC_MPI_FUNCTION(Test);
#undef TGC_MPI_FUNCTION
  // What OMPI_PREDEFINED_GLOBAL(type, global) expands to: the global's address as the handle.
#define TGC_MPI_HANDLE(field, type, global) api->field = static_cast<type>(find(#global))
  TGC_MPI_HANDLE(comm_world, MPI_Comm, ompi_mpi_comm_world);
  TGC_MPI_HANDLE(errors_return, MPI_Errhandler, ompi_mpi_errors_return);
  TGC_MPI_HANDLE(c_bool, MPI_Datatype, ompi_mpi_c_bool);
  TGC_MPI_HANDLE(int8, MPI_Datatype, ompi_mpi_int8_t);
  TGC_MPI_HANDLE(int16, MPI_Datatype, ompi_mpi_int16_t);
  TGC_MPI_HANDLE(int32, MPI_Datatype, ompi_mpi_int32_t);
  TGC_MPI_HANDLE(int64, MPI_Datatype, ompi_mpi_int64_t);
  TGC_MPI_HANDLE(uint8, MPI_Datatype, ompi_mpi_uint8_t);
  TGC_MPI_HANDLE(float32, MPI_Datatype, ompi_mpi_float);
  TGC_MPI_HANDLE(float64, MPI_Datatype, ompi_mpi_double);
  TGC_MPI_HANDLE(op_sum, MPI_Op, ompi_mpi_op_sum);
  TGC_MPI_HANDLE(op_max, MPI_Op, ompi_mpi_op_max);
  TGC_MPI_HANDLE(op_min, MPI_Op, ompi_mpi_op_min);
  TGC_MPI_HANDLE(op_lor, MPI_Op, ompi_mpi_op_lor);
  TGC_MPI_HANDLE(op_land, MPI_Op, ompi_mpi_op_land);
#undef TGC_MPI_HANDLE
  if (!missing.empty()) {
    // MPICH and others have another ABI (integer handles): their mpi.h is not the one built with.
    out.status.reason = fmt::format("{} is not Open MPI 3 or newer: it has no symbol {}", out.status.library, missing);
    return out;
  }
  // MPI_Get_library_version may be called before MPI_Init (MPI-3).
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (api->Get_library_version(text, &length) == MPI_SUCCESS) {
    std::string version(text, std::min<size_t>(size_t(std::max(length, 0)), sizeof text));
    out.status.version = version.substr(0, version.find_first_of(",\n"));
  }
  out.status.available = true;
  out.api = api.release();
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

// The outcome of MPI_Init_thread, which runs on a helper thread so that a wait for ranks that
// never start ends with the timeout.
struct InitOutcome {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  int rc = MPI_SUCCESS;
  int provided = 0;
};

struct InitState {
  std::mutex mutex;
  bool ready = false;
  std::string failure, hint;  // set when initialisation failed: every later use says so
};

InitState& init_state() {
  static InitState* state = new InitState();  // used by the exit handler: never destroyed
  return *state;
}

std::atomic<bool> g_skip_finalize{false};

// Open MPI's collectives must not be pending when MPI_Finalize runs; the ranks' last ones
// normally completed long before.
constexpr double kExitDrainSeconds = 2.0;

void finalize_at_exit() {
  MpiApi* api = loaded().api;
  int finalized = 0;
  if (!api || g_skip_finalize || api->Finalized(&finalized) != MPI_SUCCESS || finalized) return;
  if (!mpi_drain_abandoned(kExitDrainSeconds)) {
    // MPI_Finalize would wait for the ranks that never joined; mpirun reports this rank's
    // exit without it, which ends the job.
    std::fputs("tgc: leaving MPI without MPI_Finalize: a collective that timed out is still pending\n", stderr);
    return;
  }
  api->Finalize();
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
  }
  return "an unknown thread level";
}

void initialise(MpiApi& api, InitState& state, double timeout_seconds) {
  int already = 0;
  api.check(api.Initialized(&already), "MPI_Initialized");
  if (already) {
    // The program initialised MPI itself (mpi4py, its own main): it finalises it too.
    api.check(api.Query_thread(&api.thread_level), "MPI_Query_thread");
  } else {
    auto outcome = std::make_shared<InitOutcome>();
    std::thread([outcome, init = api.Init_thread] {
      int provided = 0;
      const int rc = init(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
      std::lock_guard<std::mutex> lock(outcome->mutex);
      outcome->rc = rc;
      outcome->provided = provided;
      outcome->done = true;
      outcome->done_cv.notify_all();
    }).detach();
    std::unique_lock<std::mutex> lock(outcome->mutex);
    if (!outcome->done_cv.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
                                   [&] { return outcome->done; })) {
      const LaunchInfo& info = launch_info();
      state.failure = fmt::format("MPI_Init_thread did not complete within {:g} s on rank {} of {}",
                                  timeout_seconds, info.rank, info.size);
      state.hint = "MPI starts when every rank of the job starts it: another rank failed or never used a "
                   "collective; comm_timeout sets the limit";
      return;
    }
    if (outcome->rc != MPI_SUCCESS) {
      state.failure = fmt::format("MPI_Init_thread failed (MPI error {})", outcome->rc);
      state.hint = "start the ranks with mpirun or tgc launch (docs/distributed.md)";
      return;
    }
    std::atexit(finalize_at_exit);
    api.thread_level = outcome->provided;
  }
  // The helper thread that initialised MPI is gone, and tgc calls MPI from whichever thread
  // runs a collective: MPI_THREAD_SERIALIZED (with tgc's lock) is the least that allows it.
  if (api.thread_level < MPI_THREAD_SERIALIZED) {
    state.failure = fmt::format("MPI provides {}; tgc's collectives need MPI_THREAD_SERIALIZED or more",
                                thread_level_name(api.thread_level));
    state.hint = "use an Open MPI built with thread support (Debian's is)";
    return;
  }
  state.ready = true;
}

}  // namespace

const MpiStatus& mpi_status() { return loaded().status; }

void mpi_skip_finalize() { g_skip_finalize = true; }

std::unique_lock<std::mutex> MpiApi::lock() {
  if (thread_level >= MPI_THREAD_MULTIPLE) return std::unique_lock<std::mutex>(mutex_, std::defer_lock);
  return std::unique_lock<std::mutex>(mutex_);
}

void MpiApi::check(int rc, std::string_view call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  std::string message = Error_string(rc, text, &length) == MPI_SUCCESS
                            ? std::string(text, std::min<size_t>(size_t(std::max(length, 0)), sizeof text))
                            : fmt::format("MPI error {}", rc);
  throw CommError(fmt::format("{} failed: {}", call, message), "",
                  "another rank may have failed; Open MPI's own messages above say more");
}

void MpiApi::abandon(MPI_Request request) {
  std::lock_guard<std::mutex> guard(abandoned_mutex_);
  abandoned_.push_back(request);
}

bool MpiApi::out_of_step() {
  std::lock_guard<std::mutex> guard(abandoned_mutex_);
  for (size_t i = 0; i < abandoned_.size();) {
    int done = 0;
    {
      auto mpi_lock = lock();
      if (Test(&abandoned_[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) done = 1;  // failed is not pending
    }
    if (done) abandoned_.erase(abandoned_.begin() + long(i));
    else ++i;
  }
  return !abandoned_.empty();
}

MpiApi& mpi_api(double timeout_seconds) {
  const Loaded& l = loaded();
  if (!l.api)
    throw CommError(fmt::format("MPI is not available: {}", l.status.reason), "",
                    "host collectives across processes need Open MPI (Debian: openmpi-bin libopenmpi-dev)");
  InitState& state = init_state();
  std::lock_guard<std::mutex> guard(state.mutex);
  if (!state.ready && state.failure.empty()) initialise(*l.api, state, timeout_seconds);
  if (!state.failure.empty()) throw CommError(state.failure, "", state.hint);
  return *l.api;
}

bool mpi_drain_abandoned(double seconds) {
  MpiApi* api = loaded().api;
  if (!api) return true;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (api->out_of_step()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

#endif  // TGC_HAVE_MPI

}  // namespace tgc
