// NCCL collectives on CUDA devices against their definitions (label `gpu`): every collective
// on one GPU (a world of one), and, where two GPUs are visible, over two devices of this
// process (ncclCommInitAll) and across two processes (a unique id, as tgc launch gives it),
// and where three or more are, over every visible device (at most kMaxRanks) both ways, for
// every dtype, several counts (0 included) and in place; capture into a CUDA graph; the
// errors of a bad dtype, root or device list; the timeouts of a rank that never joins and of
// a peer that never calls a collective. Skipped, with the reason, without a GPU or NCCL.
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <thread>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/nccl_comm_factory.h"
#include "backends/cuda/nccl_entry.h"
#include "backends/cuda/nccl_library.h"
#include "backends/cuda/nccl_unique_id.h"
#include "cuda_test_util.h"
#include "runtime/error.h"

extern char** environ;

namespace tgc {
namespace {

using cuda::CudaDevice;

#define TGC_REQUIRE_NCCL()                                                                          \
  do {                                                                                              \
    TGC_REQUIRE_CUDA();                                                                             \
    if (!cuda::nccl_status().available) GTEST_SKIP() << "needs NCCL: " << cuda::nccl_status().reason; \
  } while (0)

#define TGC_REQUIRE_GPUS(n)                                                                            \
  do {                                                                                                 \
    TGC_REQUIRE_NCCL();                                                                                \
    if (cuda::cuda_status().devices.size() < (n))                                                      \
      GTEST_SKIP() << "needs " << (n) << " CUDA devices, " << cuda::cuda_status().devices.size() << " visible"; \
  } while (0)
#define TGC_REQUIRE_TWO_GPUS() TGC_REQUIRE_GPUS(2)

// The largest world these tests make: sums of this many ranks' 8-bit values stay exact.
constexpr int kMaxRanks = 4;
// Every visible device, at most kMaxRanks: the world of the "every GPU" tests.
int all_gpus() { return std::min<int>(kMaxRanks, static_cast<int>(cuda::cuda_status().devices.size())); }

// Device memory of one test, uploaded from and downloaded to host bytes.
class DeviceBytes {
 public:
  DeviceBytes(CudaDevice& d, size_t bytes) : d_(d), bytes_(bytes) {
    p_ = d_.allocate(std::max<size_t>(bytes, 1), d_.default_stream());
  }
  ~DeviceBytes() { d_.deallocate(p_, std::max<size_t>(bytes_, 1), d_.default_stream()); }
  void* get() const { return p_; }
  char* at(size_t byte) const { return static_cast<char*>(p_) + byte; }
  void upload(const std::vector<char>& host) {
    if (!host.empty()) d_.copy_from_host(p_, host.data(), host.size(), d_.default_stream());
  }
  std::vector<char> download() {
    std::vector<char> host(bytes_);
    if (bytes_) d_.copy_to_host(host.data(), p_, bytes_, d_.default_stream());
    d_.synchronize();
    return host;
  }

 private:
  CudaDevice& d_;
  size_t bytes_;
  void* p_;
};

// Rank r's element i: small integers (0/1 for bool, below 31 for the 8-bit types) that every
// dtype holds exactly, so sums of up to kMaxRanks ranks are exact (4 x 30 fits int8) and the
// results compare bit for bit.
double value_of(DType t, int rank, size_t i) {
  if (t == DType::Bool) return static_cast<double>((i + static_cast<size_t>(rank)) % 3 == 0);
  if (t == DType::Int8 || t == DType::UInt8) return static_cast<double>((i * 7 + rank * 13) % 31);
  const double v = static_cast<double>(i % 1000) * (rank % 2 ? -1.0 : 1.0) + rank * 3;
  return t == DType::Float32 || t == DType::Float64 ? v + 0.5 : v;
}

// `count` elements of `dtype` at element offset `from` of rank `rank`'s data.
std::vector<char> elements(DType t, int rank, size_t count, size_t from = 0) {
  std::vector<char> out(count * dtype_size(t));
  dispatch_dtype(t, [&]<typename T>() {
    for (size_t i = 0; i < count; ++i) {
      const T v = static_cast<T>(value_of(t, rank, from + i));
      std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
    }
  });
  return out;
}

// op over ranks 0..size-1 of element `from + i`, in double, then cast: the definition.
std::vector<char> reduced(DType t, CollectiveReduce op, int size, size_t count, size_t from = 0) {
  std::vector<char> out(count * dtype_size(t));
  dispatch_dtype(t, [&]<typename T>() {
    for (size_t i = 0; i < count; ++i) {
      double acc = value_of(t, 0, from + i);
      for (int r = 1; r < size; ++r) {
        const double v = value_of(t, r, from + i);
        acc = op == CollectiveReduce::Sum ? acc + v : op == CollectiveReduce::Max ? std::max(acc, v) : std::min(acc, v);
      }
      const T v = static_cast<T>(acc);  // bool: a sum of 0/1 above 0 is true (logical or)
      std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
    }
  });
  return out;
}

std::vector<char> concat(const std::vector<std::vector<char>>& parts) {
  std::vector<char> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::string label(DType t, size_t count) { return std::string(dtype_name(t)) + " x " + std::to_string(count); }

// The ranks this process drives (all of a group inside one process, or its one rank of a
// world across processes): their communicators and devices, the world's size and the rank
// of the first.
struct Ranks {
  std::vector<std::shared_ptr<CommGroup>> groups;
  std::vector<std::shared_ptr<Communicator>> comms;
  std::vector<CudaDevice*> devices;
  int world = 0;
  int first = 0;

  Ranks() = default;
  // Every rank of a group over `ds`, made through the factory as each rank's CommGroup asks
  // for its communicator (one ncclCommInitAll, shared).
  explicit Ranks(std::vector<CudaDevice*> ds, const std::string& name = "pair") : devices(std::move(ds)) {
    std::vector<Device*> peers(devices.begin(), devices.end());
    world = static_cast<int>(devices.size());
    for (int r = 0; r < world; ++r) {
      groups.push_back(std::make_shared<CommGroup>(r, world, name, peers));
      comms.push_back(cuda::make_nccl_group_communicator(*devices[r], *groups[r]));
    }
  }
  int local() const { return static_cast<int>(comms.size()); }
  int rank(int i) const { return first + i; }
  // One thread drives every local device: all their calls in one NCCL group, then each
  // device waits. `call` gets the rank and the local index.
  void each(const std::function<void(int rank, int i, Communicator& c, Stream& s)>& call) {
    comms[0]->group_start();
    for (int i = 0; i < local(); ++i) call(rank(i), i, *comms[i], devices[i]->default_stream());
    comms[0]->group_end();
    for (CudaDevice* d : devices) d->synchronize();
  }
};

const DType kReducible[] = {DType::Float32, DType::Float64, DType::Int32, DType::Int64,
                            DType::Int8,    DType::UInt8,   DType::Bool};
const CollectiveReduce kOps[] = {CollectiveReduce::Sum, CollectiveReduce::Max, CollectiveReduce::Min};

// Buffers of `bytes` on each local device.
std::vector<std::unique_ptr<DeviceBytes>> buffers(const Ranks& ranks, size_t bytes) {
  std::vector<std::unique_ptr<DeviceBytes>> out;
  for (CudaDevice* d : ranks.devices) out.push_back(std::make_unique<DeviceBytes>(*d, bytes));
  return out;
}

// Every collective against its definition on the local ranks, for every dtype and the counts
// given, out of place and in place. Every rank of the world runs the same sequence.
void check_all_collectives(Ranks& ranks, const std::vector<size_t>& counts) {
  const int n = ranks.world;
  const int local = ranks.local();
  for (DType t : kAllDTypes) {
    const bool reducible = std::find(std::begin(kReducible), std::end(kReducible), t) != std::end(kReducible);
    const size_t es = dtype_size(t);
    for (size_t count : counts) {
      SCOPED_TRACE(label(t, count));
      // all_reduce, out of place and in place.
      for (CollectiveReduce op : kOps) {
        if (!reducible) break;
        SCOPED_TRACE(collective_reduce_name(op));
        auto send = buffers(ranks, count * es), recv = buffers(ranks, count * es);
        for (int i = 0; i < local; ++i) send[i]->upload(elements(t, ranks.rank(i), count));
        ranks.each([&](int, int i, Communicator& c, Stream& s) {
          c.all_reduce(send[i]->get(), recv[i]->get(), count, t, op, s);
        });
        for (int i = 0; i < local; ++i) EXPECT_EQ(recv[i]->download(), reduced(t, op, n, count)) << "rank " << ranks.rank(i);
        ranks.each([&](int, int i, Communicator& c, Stream& s) {
          c.all_reduce(send[i]->get(), send[i]->get(), count, t, op, s);
        });
        for (int i = 0; i < local; ++i)
          EXPECT_EQ(send[i]->download(), reduced(t, op, n, count)) << "in place, rank " << ranks.rank(i);
      }
      // reduce_scatter: rank r gets op over ranks of the block at r * count of n * count.
      for (CollectiveReduce op : kOps) {
        if (!reducible) break;
        SCOPED_TRACE(std::string("reduce_scatter ") + collective_reduce_name(op));
        auto send = buffers(ranks, n * count * es), recv = buffers(ranks, count * es);
        for (int i = 0; i < local; ++i) send[i]->upload(elements(t, ranks.rank(i), n * count));
        ranks.each([&](int, int i, Communicator& c, Stream& s) {
          c.reduce_scatter(send[i]->get(), recv[i]->get(), count, t, op, s);
        });
        for (int i = 0; i < local; ++i) {
          const int r = ranks.rank(i);
          EXPECT_EQ(recv[i]->download(), reduced(t, op, n, count, r * count)) << "rank " << r;
        }
        // In place: recv is the rank's own block of send.
        ranks.each([&](int r, int i, Communicator& c, Stream& s) {
          c.reduce_scatter(send[i]->get(), send[i]->at(r * count * es), count, t, op, s);
        });
        for (int i = 0; i < local; ++i) {
          const int r = ranks.rank(i);
          const std::vector<char> all = send[i]->download();
          EXPECT_EQ(std::vector<char>(all.begin() + r * count * es, all.begin() + (r + 1) * count * es),
                    reduced(t, op, n, count, r * count))
              << "in place, rank " << r;
        }
      }
      // all_gather: every rank gets every rank's block in rank order (any dtype: moved as bytes
      // where NCCL has no type).
      {
        SCOPED_TRACE("all_gather");
        std::vector<std::vector<char>> blocks;
        for (int r = 0; r < n; ++r) blocks.push_back(elements(t, r, count));
        auto send = buffers(ranks, count * es), recv = buffers(ranks, n * count * es);
        for (int i = 0; i < local; ++i) send[i]->upload(blocks[ranks.rank(i)]);
        ranks.each([&](int, int i, Communicator& c, Stream& s) {
          c.all_gather(send[i]->get(), recv[i]->get(), count, t, s);
        });
        for (int i = 0; i < local; ++i) EXPECT_EQ(recv[i]->download(), concat(blocks)) << "rank " << ranks.rank(i);
        // In place: each rank's block already sits at r * count of recv.
        for (int i = 0; i < local; ++i) {
          const int r = ranks.rank(i);
          std::vector<char> mine(n * count * es, 0);
          std::copy(blocks[r].begin(), blocks[r].end(), mine.begin() + r * count * es);
          recv[i]->upload(mine);
        }
        ranks.each([&](int r, int i, Communicator& c, Stream& s) {
          c.all_gather(recv[i]->at(r * count * es), recv[i]->get(), count, t, s);
        });
        for (int i = 0; i < local; ++i)
          EXPECT_EQ(recv[i]->download(), concat(blocks)) << "in place, rank " << ranks.rank(i);
      }
      // broadcast from each root, out of place (the others pass no send) and in place.
      for (int root = 0; root < n; ++root) {
        SCOPED_TRACE("broadcast from " + std::to_string(root));
        auto buf = buffers(ranks, count * es), recv = buffers(ranks, count * es);
        for (int i = 0; i < local; ++i) buf[i]->upload(elements(t, ranks.rank(i), count));
        ranks.each([&](int r, int i, Communicator& c, Stream& s) {
          c.broadcast(r == root ? buf[i]->get() : nullptr, recv[i]->get(), count, t, root, s);
        });
        for (int i = 0; i < local; ++i)
          EXPECT_EQ(recv[i]->download(), elements(t, root, count)) << "rank " << ranks.rank(i);
        ranks.each([&](int, int i, Communicator& c, Stream& s) {
          c.broadcast(buf[i]->get(), buf[i]->get(), count, t, root, s);
        });
        for (int i = 0; i < local; ++i)
          EXPECT_EQ(buf[i]->download(), elements(t, root, count)) << "in place, rank " << ranks.rank(i);
      }
    }
  }
}

TEST(NcclOneGpu, EveryCollectiveIsItsDefinitionForAWorldOfOne) {
  TGC_REQUIRE_NCCL();
  Ranks ranks({&cuda::cuda_device(0)}, "solo");
  EXPECT_EQ(ranks.comms[0]->engine(), "nccl");
  EXPECT_EQ(ranks.comms[0]->size(), 1);
  EXPECT_EQ(&ranks.comms[0]->device(), &cuda::cuda_device(0));
  check_all_collectives(ranks, {0, 1, 1000, 65537});
}

TEST(NcclTwoGpus, EveryCollectiveIsItsDefinitionOverTwoDevices) {
  TGC_REQUIRE_TWO_GPUS();
  Ranks ranks({&cuda::cuda_device(0), &cuda::cuda_device(1)});
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(ranks.comms[r]->rank(), r);
    EXPECT_EQ(ranks.comms[r]->size(), 2);
    EXPECT_EQ(ranks.comms[r]->local_rank(), r);
  }
  check_all_collectives(ranks, {0, 1, 7, 1000, (1 << 20) + 3});
}

// Every visible device of this process in one group (4 on a 4-GPU machine): NCCL's rings and
// trees over more than a pair.
TEST(NcclEveryGpu, EveryCollectiveIsItsDefinitionOverEveryVisibleDevice) {
  TGC_REQUIRE_GPUS(3);
  std::vector<CudaDevice*> ds;
  for (int i = 0; i < all_gpus(); ++i) ds.push_back(&cuda::cuda_device(i));
  Ranks ranks(ds, "every");
  for (int r = 0; r < ranks.world; ++r) EXPECT_EQ(ranks.comms[r]->size(), ranks.world);
  check_all_collectives(ranks, {0, 1, 7, 1000, (1 << 20) + 3});
}

// Worlds of processes with one GPU each, started as `tgc launch` starts ranks: the test makes
// the unique id (hosting NCCL's bootstrap root), runs itself once per rank with TGC_RANK,
// TGC_WORLD_SIZE and TGC_NCCL_UNIQUE_ID set, and each child (kChildRankEnv set) plays its rank.
constexpr const char* kChildRankEnv = "TGC_NCCL_TEST_CHILD_RANK";

int child_rank() {
  const char* child = std::getenv(kChildRankEnv);
  return child ? std::atoi(child) : -1;
}

int child_world() {
  const char* size = std::getenv("TGC_WORLD_SIZE");
  return size ? std::atoi(size) : 0;
}

// Runs this test binary as ranks 0 to n-1 of a world of n, filtered to `test`, and expects
// every one to pass. The wait is bounded, so a hung child fails the test rather than the run.
void run_ranks(const std::string& test, int n) {
  const std::string id = make_nccl_unique_id_hex();
  std::vector<pid_t> children;
  for (int r = 0; r < n; ++r) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      if (kv.rfind("TGC_", 0) != 0) env.push_back(kv);  // no launch variables of our own
    }
    const std::string rank = std::to_string(r);
    for (const std::string& kv :
         {std::string(kChildRankEnv) + "=" + rank, std::string(kNcclUniqueIdEnv) + "=" + id, "TGC_RANK=" + rank,
          "TGC_WORLD_SIZE=" + std::to_string(n), "TGC_LOCAL_RANK=" + rank, "TGC_LOCAL_WORLD_SIZE=" + std::to_string(n)})
      env.push_back(kv);
    std::vector<char*> envp;
    for (std::string& kv : env) envp.push_back(kv.data());
    envp.push_back(nullptr);
    std::string exe = "/proc/self/exe", filter = "--gtest_filter=" + test;
    char* argv[] = {exe.data(), filter.data(), nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, envp.data()), 0);
    children.push_back(pid);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(8);
  for (size_t r = 0; r < children.size(); ++r) {
    int status = 0;
    pid_t got = 0;
    while ((got = waitpid(children[r], &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (got == 0) {
      kill(children[r], SIGKILL);
      waitpid(children[r], &status, 0);
      ADD_FAILURE() << "rank " << r << " did not finish within 8 minutes";
      continue;
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "rank " << r << " failed (its output is above)";
  }
}

// A child's part of a world across processes: every collective through the factory's
// communicator (non-blocking, from TGC_NCCL_UNIQUE_ID).
void check_as_child_rank(int r) {
  const int n = child_world();
  ASSERT_GT(n, r);
  Ranks ranks;
  ranks.world = n;
  ranks.first = r;
  ranks.devices = {&cuda::cuda_device(r)};
  ranks.groups.push_back(std::make_shared<CommGroup>(r, n, "world"));
  ranks.comms.push_back(cuda::make_nccl_group_communicator(*ranks.devices[0], *ranks.groups[0]));
  EXPECT_EQ(ranks.comms[0]->rank(), r);
  EXPECT_EQ(ranks.comms[0]->size(), n);
  EXPECT_EQ(ranks.comms[0]->local_rank(), r);
  check_all_collectives(ranks, {0, 1, 1000, (1 << 18) + 3});
}

TEST(NcclTwoProcesses, EveryCollectiveIsItsDefinitionAcrossProcesses) {
  if (const int r = child_rank(); r >= 0) return check_as_child_rank(r);
  TGC_REQUIRE_TWO_GPUS();
  run_ranks("NcclTwoProcesses.EveryCollectiveIsItsDefinitionAcrossProcesses", 2);
}

// One process per visible GPU (4 on a 4-GPU machine), as `tgc launch -n 4` runs them.
TEST(NcclEveryGpu, EveryCollectiveIsItsDefinitionAcrossOneProcessPerDevice) {
  if (const int r = child_rank(); r >= 0) return check_as_child_rank(r);
  TGC_REQUIRE_GPUS(3);
  run_ranks("NcclEveryGpu.EveryCollectiveIsItsDefinitionAcrossOneProcessPerDevice", all_gpus());
}

// Rank 1 joins, takes part in one all_reduce (so that NCCL's connections are made) and then
// never calls the next: rank 0's all_reduce waits, on the device (the watchdog aborts the
// communicator after the timeout and the synchronisation raises) or, where NCCL still needed
// the peer to enqueue it, on the host (the call raises): a CommError either way, not a hang,
// and the communicator refuses further collectives.
TEST(NcclTwoProcesses, ACollectiveAPeerNeverCallsIsACommErrorAfterTheTimeout) {
  if (const int r = child_rank(); r >= 0) {
    CudaDevice& d = cuda::cuda_device(r);
    const char* hex = std::getenv(kNcclUniqueIdEnv);
    ASSERT_NE(hex, nullptr);
    auto comm = cuda::make_nccl_communicator(d, r, 2, r, cuda::unique_id_from_hex(hex, kNcclUniqueIdEnv),
                                             std::chrono::seconds(3));
    DeviceBytes x(d, 1024 * sizeof(float));
    x.upload(elements(DType::Float32, r, 1024));
    comm->all_reduce(x.get(), x.get(), 1024, DType::Float32, CollectiveReduce::Sum, d.default_stream());
    d.synchronize();
    EXPECT_EQ(x.download(), reduced(DType::Float32, CollectiveReduce::Sum, 2, 1024));
    if (r == 1) {
      std::this_thread::sleep_for(std::chrono::seconds(20));  // joined, and silent
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
      comm->all_reduce(x.get(), x.get(), 1024, DType::Float32, CollectiveReduce::Sum, d.default_stream());
      d.synchronize();
      FAIL() << "the all_reduce and the synchronisation returned without an error";
    } catch (const CommError& e) {
      EXPECT_NE(e.what_part().find("did not complete"), std::string::npos) << e.what();
      EXPECT_NE(e.what_part().find("within 3 s"), std::string::npos) << e.what();
      EXPECT_EQ(e.where(), "rank 0 of 2 on cuda:0");
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(waited, 3.0);
    EXPECT_LT(waited, 15.0) << "the abort should come soon after the timeout";
    EXPECT_TRUE(comm->aborted());
    try {
      comm->all_reduce(x.get(), x.get(), 1024, DType::Float32, CollectiveReduce::Sum, d.default_stream());
      FAIL() << "an aborted communicator ran a collective";
    } catch (const CommError& e) {
      EXPECT_NE(e.what_part().find("all_reduce on an aborted NCCL communicator"), std::string::npos) << e.what();
    }
    d.synchronize();  // reported once: the device itself is still usable
    return;
  }
  TGC_REQUIRE_TWO_GPUS();
  run_ranks("NcclTwoProcesses.ACollectiveAPeerNeverCallsIsACommErrorAfterTheTimeout", 2);
}

// The group objects of one in-process group share one set of communicators; a second set of
// group objects over the same devices and name gets the same ones while the first lives.
TEST(NcclTwoGpus, TheRanksOfOneGroupShareTheirCommunicators) {
  TGC_REQUIRE_TWO_GPUS();
  Ranks a({&cuda::cuda_device(0), &cuda::cuda_device(1)}, "shared");
  Ranks b({&cuda::cuda_device(0), &cuda::cuda_device(1)}, "shared");
  EXPECT_EQ(a.comms[0].get(), b.comms[0].get());
  EXPECT_EQ(a.comms[1].get(), b.comms[1].get());
  Ranks c({&cuda::cuda_device(0), &cuda::cuda_device(1)}, "other");
  EXPECT_NE(a.comms[0].get(), c.comms[0].get());
}

// Through CommGroup::communicator: making a CUDA backend registers NCCL as CUDA's engine.
TEST(NcclTwoGpus, CommGroupAsksTheRegisteredFactory) {
  TGC_REQUIRE_TWO_GPUS();
  make_cuda_backend(Config{}, 0);
  CudaDevice& d0 = cuda::cuda_device(0);
  CudaDevice& d1 = cuda::cuda_device(1);
  CommGroup g0(0, 2, "registered", {&d0, &d1}), g1(1, 2, "registered", {&d0, &d1});
  std::shared_ptr<Communicator> c0 = g0.communicator(d0), c1 = g1.communicator(d1);
  EXPECT_EQ(c0->engine(), "nccl");
  EXPECT_EQ(c1->rank(), 1);
  DeviceBytes x0(d0, 4 * sizeof(float)), x1(d1, 4 * sizeof(float));
  const float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  x0.upload(std::vector<char>(reinterpret_cast<const char*>(a), reinterpret_cast<const char*>(a + 4)));
  x1.upload(std::vector<char>(reinterpret_cast<const char*>(b), reinterpret_cast<const char*>(b + 4)));
  c0->group_start();
  c0->all_reduce(x0.get(), x0.get(), 4, DType::Float32, CollectiveReduce::Sum, d0.default_stream());
  c1->all_reduce(x1.get(), x1.get(), 4, DType::Float32, CollectiveReduce::Sum, d1.default_stream());
  c0->group_end();
  for (DeviceBytes* x : {&x0, &x1}) {
    const std::vector<char> got = x->download();
    float f[4];
    std::memcpy(f, got.data(), sizeof f);
    EXPECT_EQ(std::vector<float>(f, f + 4), (std::vector<float>{11, 22, 33, 44}));
  }
}

// Collectives are enqueued on the device's stream, so a CUDA graph records them: each replay
// runs the all_reduce again (a world of one: NCCL's one-rank path).
TEST(NcclOneGpu, AnAllReduceIsRecordedInACudaGraph) {
  TGC_REQUIRE_NCCL();
  CudaDevice& d = cuda::cuda_device(0);
  Ranks ranks({&d}, "captured");
  DeviceBytes send(d, 256 * sizeof(float)), recv(d, 256 * sizeof(float));
  send.upload(elements(DType::Float32, 0, 256));
  recv.upload(std::vector<char>(256 * sizeof(float), 0));
  d.synchronize();
  ASSERT_TRUE(d.begin_capture());
  ranks.comms[0]->all_reduce(send.get(), recv.get(), 256, DType::Float32, CollectiveReduce::Sum, d.default_stream());
  std::unique_ptr<CapturedWork> work = d.end_capture(true);
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(recv.download(), std::vector<char>(256 * sizeof(float), 0)) << "recorded, not run";
  work->replay();
  d.synchronize();
  EXPECT_EQ(recv.download(), elements(DType::Float32, 0, 256));
}

TEST(NcclOneGpu, ReductionsOfInt16AreRefusedBeforeNcclIsCalled) {
  TGC_REQUIRE_NCCL();
  CudaDevice& d = cuda::cuda_device(0);
  Ranks ranks({&d}, "solo");
  DeviceBytes x(d, 8);
  try {
    ranks.comms[0]->all_reduce(x.get(), x.get(), 4, DType::Int16, CollectiveReduce::Sum, d.default_stream());
    FAIL() << "no error";
  } catch (const CommError& e) {
    EXPECT_NE(e.what_part().find("all_reduce{sum} of int16"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("int32"), std::string::npos) << e.hint();
  }
  EXPECT_THROW(ranks.comms[0]->reduce_scatter(x.get(), x.get(), 4, DType::Int16, CollectiveReduce::Max,
                                              d.default_stream()),
               CommError);
  // The communicator is still good: NCCL was never called.
  ranks.comms[0]->all_reduce(x.get(), x.get(), 2, DType::Int32, CollectiveReduce::Sum, d.default_stream());
  d.synchronize();
}

TEST(NcclOneGpu, ABroadcastRootOutsideTheWorldIsACommError) {
  TGC_REQUIRE_NCCL();
  CudaDevice& d = cuda::cuda_device(0);
  Ranks ranks({&d}, "solo");
  DeviceBytes x(d, 4);
  try {
    ranks.comms[0]->broadcast(x.get(), x.get(), 1, DType::Float32, 1, d.default_stream());
    FAIL() << "no error";
  } catch (const CommError& e) {
    EXPECT_NE(e.what_part().find("root 1: the world has ranks 0 to 0"), std::string::npos) << e.what();
  }
}

TEST(NcclOneGpu, OneDeviceTwiceInAGroupIsRefused) {
  TGC_REQUIRE_NCCL();
  CudaDevice& d = cuda::cuda_device(0);
  try {
    cuda::make_nccl_communicators({&d, &d});
    FAIL() << "no error";
  } catch (const CommError& e) {
    EXPECT_NE(e.what_part().find("cuda:0 twice"), std::string::npos) << e.what();
  }
}

// A world of two processes where the second never starts: the first rank's communicator is
// a CommError after the timeout, not a hang.
TEST(NcclOneGpu, ARankThatNeverJoinsIsACommErrorAfterTheTimeout) {
  TGC_REQUIRE_NCCL();
  CudaDevice& d = cuda::cuda_device(0);
  const ncclUniqueId id = cuda::make_unique_id();
  const auto start = std::chrono::steady_clock::now();
  try {
    cuda::make_nccl_communicator(d, 0, 2, 0, id, std::chrono::seconds(2));
    FAIL() << "no error";
  } catch (const CommError& e) {
    EXPECT_NE(e.what_part().find("not ready after 2 s: not every rank joined"), std::string::npos) << e.what();
    EXPECT_EQ(e.where(), "rank 0 of 2 on cuda:0");
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(waited, 2.0);
  EXPECT_LT(waited, 60.0) << "aborting the half-made communicator should not hang";
}

// A group across processes without tgc launch or mpirun has no way to share the unique id.
TEST(NcclOneGpu, AWorldAcrossProcessesNeedsTheUniqueId) {
  TGC_REQUIRE_NCCL();
  if (std::getenv("TGC_NCCL_UNIQUE_ID") || std::getenv("OMPI_COMM_WORLD_RANK")) GTEST_SKIP() << "launched";
  CommGroup group(0, 2, "world");
  try {
    cuda::make_nccl_group_communicator(cuda::cuda_device(0), group);
    FAIL() << "no error";
  } catch (const CommError& e) {
    EXPECT_NE(e.what_part().find("NCCL needs a unique id shared by the 2 ranks of group world"), std::string::npos)
        << e.what();
    EXPECT_NE(e.hint().find("tgc launch"), std::string::npos) << e.hint();
  }
}

}  // namespace
}  // namespace tgc
