// The MPI communicator, run by ctest under `mpirun -np 2` and `-np 3` (and `tgc launch -n 2`,
// which must give host collectives the same MPI world): every collective
// against its definition for every dtype, the three reductions, counts 0, 1, odd and a few
// thousand, in place and not; and a rank that does not join makes the others fail with a
// CommError after comm_timeout instead of hanging. Every rank runs every test; the values
// are small integers so that sums are exact in every dtype.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/comm/mpi_communicator.h"
#include "runtime/comm/mpi_library.h"
#include "runtime/comm/world.h"
#include "runtime/error.h"
#include "support/catch_error.h"

namespace tgc {
namespace {

constexpr size_t kCounts[] = {0, 1, 7, 4099};
constexpr CollectiveReduce kOps[] = {CollectiveReduce::Sum, CollectiveReduce::Max, CollectiveReduce::Min};

std::shared_ptr<Communicator> world() { return world_group()->communicator(host_device()); }
Stream& stream() { return host_device().default_stream(); }

// Rank r's i-th value in block b, as T (bools: true for about one element in three).
template <typename T>
T value(int r, size_t i, int b = 0) {
  const int v = int((size_t(r) * 7 + i * 3 + size_t(b) * 5) % 11);
  if constexpr (std::is_same_v<T, bool>) return v % 3 == 0;
  else if constexpr (std::is_unsigned_v<T>) return T(v);
  else return T(v - 5);
}

// The reduction's definition over ranks, in T's arithmetic (bool: sum and max are any, min all).
template <typename T>
T reduce(CollectiveReduce op, int size, size_t i, int b = 0) {
  T acc = value<T>(0, i, b);
  for (int r = 1; r < size; ++r) {
    const T v = value<T>(r, i, b);
    switch (op) {
      case CollectiveReduce::Sum:
        if constexpr (std::is_same_v<T, bool>) acc = acc || v;
        else acc = T(acc + v);
        break;
      case CollectiveReduce::Max: acc = std::max(acc, v); break;
      case CollectiveReduce::Min: acc = std::min(acc, v); break;
    }
  }
  return acc;
}

// Elements of T in one block (std::vector<bool> has no data()), all `fill` at first.
template <typename T>
struct Block {
  explicit Block(size_t n, T fill = T(1)) : elements(new T[n ? n : 1]) { std::fill_n(elements.get(), n, fill); }
  T* data() { return elements.get(); }
  T& operator[](size_t i) { return elements[i]; }
  std::unique_ptr<T[]> elements;
};

// Runs `check.template operator()<T>()` for every dtype tgc has.
template <typename Check>
void for_every_dtype(Check check) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    dispatch_dtype(dtype, check);
  }
}

TEST(MpiCommunicator, TheWorldIsMpirunsWorld) {
  // ctest starts it with mpirun, and with tgc launch (which runs mpirun).
  const LaunchInfo& info = launch_info();
  EXPECT_TRUE(info.launcher == "mpirun" || info.launcher == "tgc launch") << info.launcher;
  EXPECT_TRUE(info.mpi_world);
  ASSERT_GE(info.size, 2);
  auto comm = world();
  EXPECT_EQ(comm->engine(), "mpi");
  EXPECT_EQ(comm->rank(), info.rank);
  EXPECT_EQ(comm->size(), info.size);
  EXPECT_EQ(comm->local_rank(), info.local_rank);
  EXPECT_EQ(&comm->device(), &host_device());
  EXPECT_EQ(world(), comm);
  EXPECT_TRUE(mpi_status().available) << mpi_status().reason;
}

TEST(MpiCommunicator, AllReduce) {
  auto comm = world();
  const int rank = comm->rank(), size = comm->size();
  for_every_dtype([&]<typename T>() {
    const DType dtype = dtype_of<T>;
    for (CollectiveReduce op : kOps)
      for (size_t count : kCounts)
        for (bool in_place : {false, true}) {
          Block<T> send(count), recv(count);
          for (size_t i = 0; i < count; ++i) send[i] = value<T>(rank, i);
          if (in_place) comm->all_reduce(send.data(), send.data(), count, dtype, op, stream());
          else comm->all_reduce(send.data(), recv.data(), count, dtype, op, stream());
          Block<T>& out = in_place ? send : recv;
          for (size_t i = 0; i < count; ++i)
            ASSERT_EQ(out[i], reduce<T>(op, size, i))
                << collective_reduce_name(op) << " count " << count << " in place " << in_place << " at " << i;
        }
  });
}

TEST(MpiCommunicator, AllGather) {
  auto comm = world();
  const int rank = comm->rank(), size = comm->size();
  for_every_dtype([&]<typename T>() {
    const DType dtype = dtype_of<T>;
    for (size_t count : kCounts)
      for (bool in_place : {false, true}) {
        Block<T> send(count), recv(count * size_t(size));
        for (size_t i = 0; i < count; ++i) send[i] = value<T>(rank, i);
        // MPI's in place: this rank's block is already at its place in recv.
        const T* from = send.data();
        if (in_place) {
          for (size_t i = 0; i < count; ++i) recv[size_t(rank) * count + i] = send[i];
          from = recv.data() + size_t(rank) * count;
        }
        comm->all_gather(from, recv.data(), count, dtype, stream());
        for (int r = 0; r < size; ++r)
          for (size_t i = 0; i < count; ++i)
            ASSERT_EQ(recv[size_t(r) * count + i], value<T>(r, i)) << "count " << count << " rank " << r << " at " << i;
      }
  });
}

TEST(MpiCommunicator, ReduceScatter) {
  auto comm = world();
  const int rank = comm->rank(), size = comm->size();
  for_every_dtype([&]<typename T>() {
    const DType dtype = dtype_of<T>;
    for (CollectiveReduce op : kOps)
      for (size_t count : kCounts)
        for (bool in_place : {false, true}) {
          Block<T> send(count * size_t(size)), recv(count);
          for (int b = 0; b < size; ++b)
            for (size_t i = 0; i < count; ++i) send[size_t(b) * count + i] = value<T>(rank, i, b);
          if (in_place) comm->reduce_scatter(send.data(), send.data(), count, dtype, op, stream());
          else comm->reduce_scatter(send.data(), recv.data(), count, dtype, op, stream());
          Block<T>& out = in_place ? send : recv;
          for (size_t i = 0; i < count; ++i)
            ASSERT_EQ(out[i], reduce<T>(op, size, i, rank))
                << collective_reduce_name(op) << " count " << count << " in place " << in_place << " at " << i;
        }
  });
}

TEST(MpiCommunicator, Broadcast) {
  auto comm = world();
  const int rank = comm->rank(), size = comm->size();
  for_every_dtype([&]<typename T>() {
    const DType dtype = dtype_of<T>;
    for (int root = 0; root < size; ++root)
      for (size_t count : kCounts)
        for (bool in_place : {false, true}) {
          Block<T> send(count), recv(count);
          for (size_t i = 0; i < count; ++i) send[i] = value<T>(rank, i);
          if (in_place) comm->broadcast(send.data(), send.data(), count, dtype, root, stream());
          else comm->broadcast(send.data(), recv.data(), count, dtype, root, stream());
          Block<T>& out = in_place ? send : recv;
          for (size_t i = 0; i < count; ++i)
            ASSERT_EQ(out[i], value<T>(root, i)) << "root " << root << " count " << count << " at " << i;
        }
  });
}

TEST(MpiCommunicator, BroadcastRootMustBeARank) {
  auto comm = world();
  float x = 0;
  auto e = test::catch_error<ValueError>([&] { comm->broadcast(&x, &x, 1, DType::Float32, comm->size(), stream()); });
  EXPECT_NE(std::string(e.what()).find("the root must be a rank of the group"), std::string::npos) << e.what();
}

// Runs last (gtest keeps the file's order): the last rank joins the all_reduce only after the
// others gave up, so their timed-out collective completes and MPI can finalise.
TEST(MpiCommunicator, ARankThatDoesNotJoinMakesTheOthersFail) {
  auto comm = make_mpi_communicator(1.0);
  const int rank = comm->rank(), size = comm->size();
  std::vector<float> x(1024, 1.0f);
  if (rank == size - 1) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    comm->all_reduce(x.data(), x.data(), x.size(), DType::Float32, CollectiveReduce::Sum, stream());
    EXPECT_EQ(x[0], float(size));
  } else {
    const auto start = std::chrono::steady_clock::now();
    auto e = test::catch_error<CommError>([&] {
      comm->all_reduce(x.data(), x.data(), x.size(), DType::Float32, CollectiveReduce::Sum, stream());
    });
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(e.what_part(), fmt::format("all_reduce of 1024 float32 elements did not complete within 1 s on rank {} "
                                         "of {}",
                                         rank, size));
    EXPECT_EQ(e.hint(), "another rank failed or did not call the same collective; comm_timeout sets the limit");
    EXPECT_GE(waited, 1.0);
    EXPECT_LT(waited, 2.5);
    // Out of step until the late rank joins: a new collective refuses to start.
    auto refused = test::catch_error<CommError>(
        [&] { comm->broadcast(x.data(), x.data(), 1, DType::Float32, 0, stream()); });
    EXPECT_NE(std::string(refused.what()).find("an earlier collective timed out"), std::string::npos)
        << refused.what();
    EXPECT_TRUE(mpi_drain_abandoned(30));
  }
  // In step again: the world works.
  int32_t n = 1;
  comm->all_reduce(&n, &n, 1, DType::Int32, CollectiveReduce::Sum, stream());
  EXPECT_EQ(n, size);
}

}  // namespace
}  // namespace tgc
