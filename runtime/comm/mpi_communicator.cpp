// MpiCommunicator: tgc's collectives on host memory as MPI's nonblocking collectives
// (MPI_Iallreduce, MPI_Iallgather, MPI_Ireduce_scatter_block, MPI_Ibcast), each polled with
// MPI_Test under a deadline. Polling backs off from yielding to short sleeps, so a rank
// waiting for a slow one leaves the core to it (ranks often outnumber cores on a CPU machine).
#include "runtime/comm/mpi_communicator.h"

#include <fmt/format.h>

#include "runtime/error.h"

#ifdef TGC_HAVE_MPI

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "runtime/comm/mpi_api.h"
#include "runtime/comm/mpi_library.h"
#include "runtime/comm/world.h"

namespace tgc {

namespace {

using Clock = std::chrono::steady_clock;

// Waits for `request` until `deadline`. On timeout the request stays with MPI (a collective
// cannot be cancelled) and CommError says `what` did not complete.
void wait(MpiApi& api, MPI_Request& request, Clock::time_point deadline, const std::function<std::string()>& what,
          const std::string& hint) {
  const auto start = Clock::now();
  auto nap = std::chrono::microseconds(10);
  for (;;) {
    int done = 0;
    {
      auto lock = api.lock();
      api.check(api.Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    }
    if (done) return;
    const auto now = Clock::now();
    if (now >= deadline) {
      api.abandon(request);
      throw CommError(what(), "", hint);
    }
    // The first 100 us only yield (a collective between ranks that are all there completes
    // in that time); then sleeps double up to 1 ms, which bounds the added latency at 1 ms.
    if (now - start < std::chrono::microseconds(100)) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::min(nap, std::chrono::duration_cast<std::chrono::microseconds>(deadline - now)));
      nap = std::min(nap * 2, std::chrono::microseconds(1000));
    }
  }
}

MPI_Datatype mpi_type(const MpiApi& api, DType dtype) {
  switch (dtype) {
    case DType::Bool: return api.c_bool;
    case DType::Int8: return api.int8;
    case DType::Int16: return api.int16;
    case DType::Int32: return api.int32;
    case DType::Int64: return api.int64;
    case DType::UInt8: return api.uint8;
    case DType::Float32: return api.float32;
    case DType::Float64: return api.float64;
    // MPI has no 16-bit float: gathers and broadcasts move them as 16-bit integers, and
    // reductions run on float32 copies (through_float32 below).
    case DType::Float16:
    case DType::BFloat16: return api.int16;
  }
  return api.uint8;
}

// MPI reduces bools with logical ops only: sum and max are "any" (NumPy's bool add is or),
// min is "all".
MPI_Op mpi_op(const MpiApi& api, CollectiveReduce op, DType dtype) {
  const bool logical = dtype == DType::Bool;
  switch (op) {
    case CollectiveReduce::Sum: return logical ? api.op_lor : api.op_sum;
    case CollectiveReduce::Max: return logical ? api.op_lor : api.op_max;
    case CollectiveReduce::Min: return logical ? api.op_land : api.op_min;
  }
  return api.op_sum;
}

const char* const kTimeoutHint = "another rank failed or did not call the same collective; comm_timeout sets the limit";

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(MpiApi& api, MPI_Comm comm, int rank, int size, double timeout)
      : api_(api), comm_(comm), rank_(rank), size_(size), timeout_(timeout) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return launch_info().local_rank; }
  std::string engine() const override { return "mpi"; }
  Device& device() const override { return host_device(); }

  void all_reduce(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                  Stream& stream) override {
    if (is_half(dtype))
      return through_float32(send, count, recv, count, dtype, [&](const float* s, float* r) {
        all_reduce(s, r, count, DType::Float32, op, stream);
      });
    Call call = begin("all_reduce", count, dtype);
    // Elements are independent: counts beyond MPI's int go in pieces.
    const size_t bytes = dtype_size(dtype);
    for (size_t done = 0; done < count;) {
      const int n = static_cast<int>(std::min<size_t>(count - done, INT_MAX));
      char* out = static_cast<char*>(recv) + done * bytes;
      const void* in = send == recv ? MPI_IN_PLACE : static_cast<const char*>(send) + done * bytes;
      run(call, [&](MPI_Request* r) {
        return api_.Iallreduce(in, out, n, mpi_type(api_, dtype), mpi_op(api_, op, dtype), comm_, r);
      });
      done += size_t(n);
    }
  }

  void all_gather(const void* send, void* recv, size_t count, DType dtype, Stream&) override {
    Call call = begin("all_gather", count, dtype);
    if (count == 0) return;
    check_int_count(call, count);
    // MPI's in place: this rank's block already sits at its place in recv.
    const bool in_place = send == static_cast<const char*>(recv) + size_t(rank_) * count * dtype_size(dtype);
    const MPI_Datatype type = mpi_type(api_, dtype);
    run(call, [&](MPI_Request* r) {
      return api_.Iallgather(in_place ? MPI_IN_PLACE : send, int(count), type, recv, int(count), type, comm_, r);
    });
  }

  void reduce_scatter(const void* send, void* recv, size_t count, DType dtype, CollectiveReduce op,
                      Stream& stream) override {
    if (is_half(dtype))
      return through_float32(send, count * size_t(size_), recv, count, dtype, [&](const float* s, float* r) {
        reduce_scatter(s, r, count, DType::Float32, op, stream);
      });
    Call call = begin("reduce_scatter", count, dtype);
    if (count == 0) return;
    check_int_count(call, count);
    // In place: recv holds all size() blocks and gets the result at its start.
    run(call, [&](MPI_Request* r) {
      return api_.Ireduce_scatter_block(send == recv ? MPI_IN_PLACE : send, recv, int(count), mpi_type(api_, dtype),
                                        mpi_op(api_, op, dtype), comm_, r);
    });
  }

  void broadcast(const void* send, void* recv, size_t count, DType dtype, int root, Stream&) override {
    if (root < 0 || root >= size_)
      throw ValueError(fmt::format("broadcast from root {} in a world of {} ranks", root, size_), "",
                       fmt::format("the root must be a rank of the group: 0 to {}", size_ - 1));
    Call call = begin("broadcast", count, dtype);
    const size_t bytes = dtype_size(dtype);
    if (rank_ == root && send != recv && count) std::memmove(recv, send, count * bytes);
    for (size_t done = 0; done < count;) {
      const int n = static_cast<int>(std::min<size_t>(count - done, INT_MAX));
      char* buffer = static_cast<char*>(recv) + done * bytes;
      run(call, [&](MPI_Request* r) { return api_.Ibcast(buffer, n, mpi_type(api_, dtype), root, comm_, r); });
      done += size_t(n);
    }
  }

 private:
  // A reduction of half elements: `send` (send_count elements) widened to float32 (exact),
  // reduced by run32 into `recv_count` float32 results, each rounded once into `recv`. In
  // place (send == recv) stays in place on the float32 copy.
  template <typename Run32>
  static void through_float32(const void* send, size_t send_count, void* recv, size_t recv_count, DType dtype,
                              Run32 run32) {
    dispatch_dtype(dtype, [&]<typename H>() {
      if constexpr (is_half_type_v<H>) {
        std::vector<float> wide(send_count), result(send == recv ? 0 : recv_count);
        const H* s = static_cast<const H*>(send);
        for (size_t i = 0; i < send_count; ++i) wide[i] = static_cast<float>(s[i]);
        float* r = send == recv ? wide.data() : result.data();
        run32(wide.data(), r);
        H* out = static_cast<H*>(recv);
        for (size_t i = 0; i < recv_count; ++i) out[i] = H(r[i]);
      }
    });
  }

  struct Call {
    const char* name;
    size_t count;
    DType dtype;
    Clock::time_point deadline;
  };

  // Every call starts here: ranks left out of step by an earlier timeout must not start
  // another collective (it would be matched with the wrong one).
  Call begin(const char* name, size_t count, DType dtype) {
    if (api_.out_of_step())
      throw CommError(fmt::format("{} on rank {} of {} cannot start: an earlier collective timed out and is "
                                  "still waiting for other ranks",
                                  name, rank_, size_),
                      "", "the ranks are out of step after a failure; restart every rank");
    return {name, count, dtype,
            Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_))};
  }

  void check_int_count(const Call& call, size_t count) const {
    if (count > size_t(INT_MAX))
      throw CommError(fmt::format("{} of {} {} elements per rank is more than MPI's counts hold ({})", call.name,
                                  count, dtype_name(call.dtype), INT_MAX),
                      "", "split the tensor, or gather it in several parts");
  }

  template <typename Start>
  void run(const Call& call, Start start) {
    MPI_Request request;
    {
      auto lock = api_.lock();
      api_.check(start(&request), fmt::format("MPI's {}", call.name));
    }
    wait(api_, request, call.deadline,
         [&] {
           return fmt::format("{} of {} {} elements did not complete within {:g} s on rank {} of {}", call.name,
                              call.count, dtype_name(call.dtype), timeout_, rank_, size_);
         },
         kTimeoutHint);
  }

  MpiApi& api_;
  MPI_Comm comm_;
  int rank_, size_;
  double timeout_;
};

}  // namespace

std::shared_ptr<Communicator> make_mpi_communicator(double timeout_seconds) {
  MpiApi& api = mpi_api(timeout_seconds);
  // A duplicate of the world, made without blocking so that a rank that never comes ends in
  // a CommError too; errors come back as codes (CommError) instead of aborting the job.
  MPI_Comm comm;
  MPI_Request request;
  {
    auto lock = api.lock();
    api.check(api.Comm_idup(api.comm_world, &comm, &request), "MPI_Comm_idup");
  }
  const LaunchInfo& info = launch_info();
  wait(api, request,
       Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds)),
       [&] {
         return fmt::format("making the MPI communicator did not complete within {:g} s on rank {} of {}",
                            timeout_seconds, info.rank, info.size);
       },
       kTimeoutHint);
  int rank = 0, size = 0;
  {
    auto lock = api.lock();
    api.check(api.Comm_set_errhandler(comm, api.errors_return), "MPI_Comm_set_errhandler");
    api.check(api.Comm_rank(comm, &rank), "MPI_Comm_rank");
    api.check(api.Comm_size(comm, &size), "MPI_Comm_size");
  }
  return std::make_shared<MpiCommunicator>(api, comm, rank, size, timeout_seconds);
}

}  // namespace tgc

#else  // !TGC_HAVE_MPI

namespace tgc {

std::shared_ptr<Communicator> make_mpi_communicator(double) {
  throw CommError("host collectives across processes need MPI, and tgc was built without MPI headers", "",
                  "install Open MPI's development files (Debian: libopenmpi-dev) and rebuild tgc");
}

}  // namespace tgc

#endif
