// Calls from many threads at once (docs/api.md#threads): each call of one Function sees its
// own arguments and results; updates of shared variables made by calls of several Functions
// are never lost; a call reads one version of each shared variable; get_value/set_value from
// other threads are safe. Results are checked exactly. TGC_THREADS_CALLS sets the calls per
// thread (default 2,000, a few seconds in all; the 8 x 100,000 is
// TGC_THREADS_CALLS=100000 build/tests/frontend/threads_tests).
#include <tgc/tgc.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/on_threads.h"

namespace tgc {
namespace {

constexpr int kThreads = 8;

using test::on_threads;
int calls_per_thread(int fallback = 2000) { return test::calls_per_thread(fallback); }

TEST(Threads, EachCallOfOneFunctionSeesItsOwnArgumentsAndResults) {
  // Several thunks (an elementwise kernel, a reduction, a product) so that a call has
  // intermediates in its slots while another call runs.
  for (const char* gc : {"true", "false"}) {
    Var x = vector("x", DType::Float64), y = vector("y", DType::Float64);
    Var e = x * 2.0 + y;
    Function f = function({x, y}, {e, e.sum(), dot(x, y)}, {}, {.config = {{"allow_gc", gc}}});
    const int calls = calls_per_thread();
    std::atomic<int> wrong{0};
    on_threads(kThreads, [&](int t) {
      for (int c = 0; c < calls; ++c) {
        const double a = t * 1000.0 + c % 1000, b = c % 7;
        std::vector<Tensor> r = f(Tensor::from_vector(std::vector<double>{a, 1, 2}),
                                  Tensor::from_vector(std::vector<double>{b, b, b}));
        const std::vector<double> ev = r[0].to_vector<double>();
        const bool ok = ev == std::vector<double>{2 * a + b, 2 + b, 4 + b} && r[1].item<double>() == 2 * a + 6 + 3 * b &&
                        r[2].item<double>() == a * b + 3 * b;
        if (!ok) wrong.fetch_add(1);
      }
    });
    EXPECT_EQ(wrong.load(), 0) << "allow_gc=" << gc << ": calls that returned another call's results";
  }
}

TEST(Threads, FunctionsSharingAVariableLoseNoUpdate) {
  // Each thread calls its own Function; all of them add to one variable (in place: the update
  // is written into the variable's buffer) and to one of their own.
  Shared count = shared(Tensor::from_vector(std::vector<int64_t>{0, 0}), "count");
  std::vector<Shared> own;
  std::vector<Function> fs;
  Var step = scalar("step", DType::Int64);
  for (int t = 0; t < kThreads; ++t) {
    own.push_back(shared(Tensor::scalar<int64_t>(0), "own" + std::to_string(t)));
    fs.push_back(function({step}, {count.sum()}, {{count, count + step}, {own[t], own[t] + 1}}));
  }
  const int calls = calls_per_thread();
  std::atomic<int> odd{0};
  on_threads(kThreads, [&](int t) {
    for (int c = 0; c < calls; ++c) {
      // Both entries always move together: a sum that is odd read a torn value.
      const int64_t seen = fs[t](Tensor::scalar<int64_t>(1))[0].item<int64_t>();
      if (seen % 2 != 0) odd.fetch_add(1);
    }
  });
  EXPECT_EQ(odd.load(), 0);
  const int64_t total = int64_t{kThreads} * calls;
  EXPECT_THAT(count.get_value().to_vector<int64_t>(), ::testing::ElementsAre(total, total));
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(own[t].get_value().item<int64_t>(), calls) << own[t].name();
}

TEST(Threads, OneFunctionWithAnUpdateCalledFromManyThreadsLosesNone) {
  Shared total = shared(Tensor::scalar<double>(0), "total");
  Var x = scalar("x", DType::Float64);
  Function f = function({x}, {total}, {{total, total + x}});
  const int calls = calls_per_thread();
  on_threads(kThreads, [&](int) {
    for (int c = 0; c < calls; ++c) f(Tensor::scalar<double>(1.0));
  });
  EXPECT_EQ(total.get_value().item<double>(), double(kThreads) * calls);
}

TEST(Threads, ACallReadsOneVersionOfEachVariable) {
  // The writer adds 1 to every element of v in place; a reader that saw half of a write would
  // find two different values in v.
  const int n = 4096;
  Shared v = shared(Tensor::zeros(DType::Float64, {n}), "v");
  Function write = function({}, {}, {{v, v + 1.0}});
  Function spread = function({}, {v.max() - v.min()});
  const int calls = calls_per_thread(500);
  std::atomic<int> torn{0};
  on_threads(4, [&](int t) {
    for (int c = 0; c < calls; ++c) {
      if (t % 2 == 0) {
        write();
      } else if (spread()[0].item<double>() != 0.0) {
        torn.fetch_add(1);
      }
    }
  });
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(v.get_value().to_vector<double>(), std::vector<double>(n, 2.0 * calls));
}

TEST(Threads, FunctionsLockingOverlappingVariablesInOppositeOrderDoNotDeadlock) {
  // f reads b and updates a; g reads a and updates b: locks taken in the order of the
  // functions' own lists would deadlock.
  Shared a = shared(Tensor::scalar<int64_t>(0), "a"), b = shared(Tensor::scalar<int64_t>(0), "b");
  Function f = function({}, {b * 1}, {{a, a + 1}});
  Function g = function({}, {a * 1}, {{b, b + 1}});
  const int calls = calls_per_thread();
  on_threads(4, [&](int t) {
    for (int c = 0; c < calls; ++c) (t % 2 ? f : g)();
  });
  EXPECT_EQ(a.get_value().item<int64_t>(), 2 * calls);
  EXPECT_EQ(b.get_value().item<int64_t>(), 2 * calls);
}

TEST(Threads, GetAndSetValueFromOtherThreadsWhileCallsRun) {
  // Calls add 1 to both entries; another thread reads the value (always two equal entries)
  // and now and then replaces it with a new pair of equal entries.
  Shared p = shared(Tensor::from_vector(std::vector<int64_t>{0, 0}), "p");
  Function inc = function({}, {}, {{p, p + 1}});
  const int calls = calls_per_thread(500);
  std::atomic<int> torn{0};
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    int k = 0;
    while (!done.load()) {
      std::vector<int64_t> seen = p.get_value().to_vector<int64_t>();
      if (seen[0] != seen[1]) torn.fetch_add(1);
      seen = p.get_value(/*borrow=*/false).to_vector<int64_t>();
      if (++k % 50 == 0) p.set_value(Tensor::from_vector(std::vector<int64_t>{seen[0], seen[0]}));
    }
  });
  on_threads(4, [&](int) {
    for (int c = 0; c < calls; ++c) inc();
  });
  done.store(true);
  watcher.join();
  EXPECT_EQ(torn.load(), 0);
  const std::vector<int64_t> last = p.get_value().to_vector<int64_t>();
  EXPECT_EQ(last[0], last[1]);
}

TEST(Threads, ProfiledCallsFromManyThreadsAreAllCounted) {
  // profile=true times every node of one call: calls of one profiled function run one at a time.
  Var x = vector("x", DType::Float64);
  Function f = function({x}, {(x * x).sum()}, {}, {.name = "profiled", .config = {{"profile", "true"}}});
  const int calls = calls_per_thread(500);
  std::atomic<int> wrong{0};
  on_threads(4, [&](int t) {
    for (int c = 0; c < calls; ++c)
      if (f(Tensor::from_vector(std::vector<double>{double(t), 1}))[0].item<double>() != t * t + 1.0) wrong.fetch_add(1);
  });
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_THAT(f.profile_report(), ::testing::HasSubstr("Time in " + std::to_string(4 * calls) + " calls to Function.__call__"));
}

TEST(Threads, ASharedShapeChangeUnderConcurrentCallsCompilesOnce) {
  // set_value() with a new shape while other threads call: each call runs a program compiled
  // for the shapes it read, and the new program is compiled once.
  Shared w = shared(Tensor::full(DType::Float64, {3}, 1.0), "w");
  Var x = scalar("x", DType::Float64);
  Function f = function({x}, {(w * x).sum()});
  const int calls = calls_per_thread(500);
  std::atomic<int> wrong{0};
  on_threads(4, [&](int t) {
    for (int c = 0; c < calls; ++c) {
      if (t == 0 && c == calls / 2) w.set_value(Tensor::full(DType::Float64, {5}, 1.0));
      const double s = f(Tensor::scalar<double>(2.0))[0].item<double>();
      if (s != 6.0 && s != 10.0) wrong.fetch_add(1);
    }
  });
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(f.compiled_programs(), 2);
  EXPECT_EQ(f(Tensor::scalar<double>(2.0))[0].item<double>(), 10.0);
}

// function() on several threads at once (docs/api.md#threads): graphs built, differentiated,
// optimized, compiled and linked side by side, some with kernels no other thread compiles,
// some with the same kernels at the same moment (one kernel-cache entry written by several
// compiles), into one disk cache; every function then computes its own result.
TEST(Threads, FunctionsCompileOnSeveralThreadsAtOnce) {
  const std::string dir = ::testing::TempDir() + "tgc_threads_compile_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  const int rounds = std::max(1, calls_per_thread(2000) / 500);  // 4 by default
  std::atomic<int> wrong{0};
  on_threads(kThreads, [&](int t) {
    for (int r = 0; r < rounds; ++r) {
      const double own = t * 10.0 + r;  // a constant of this thread and round: a kernel of its own
      Var x = vector("x", DType::Float64);
      Shared w = shared(Tensor::from_vector(std::vector<double>{1, 2, 3}), "w");
      Var cost = sum(exp(x * w) + own * x);
      std::vector<Var> g = grad(cost, std::vector<Var>{w});
      Function f = function({x}, {cost, g[0], tanh(x) * 2.0}, {{w, w - 0.5 * g[0]}},
                            {.config = {{"cache_dir", dir}, {"compile_threads", r % 2 ? "1" : "0"}}});
      const std::vector<Tensor> out = f(Tensor::from_vector(std::vector<double>{0, 0, 0}));
      // x = 0: cost = 3, d cost / d w = x * exp(x * w) = 0, tanh(0) * 2 = 0; w unchanged.
      const bool ok = out[0].item<double>() == 3.0 && out[1].to_vector<double>() == std::vector<double>{0, 0, 0} &&
                      out[2].to_vector<double>() == std::vector<double>{0, 0, 0};
      const std::vector<Tensor> two = f(Tensor::from_vector(std::vector<double>{1, 0, 0}));
      const bool ok2 = std::abs(two[0].item<double>() - (std::exp(1.0) + 2 + own)) < 1e-12;
      if (!ok || !ok2) wrong.fetch_add(1);
    }
  });
  std::filesystem::remove_all(dir);
  EXPECT_EQ(wrong.load(), 0) << "functions compiled side by side computed a wrong result";
}

}  // namespace
}  // namespace tgc
