// The soak run of issue 20 (not in CI): the tutorial's programs called in a loop for at least
// --minutes and --calls, while --threads threads call one shared Function and increment one
// shared variable through Functions of their own; the resident set (and on CUDA the device
// memory in use) sampled every --interval seconds. After the warm-up (the first fifth of the
// run) both must stay within 1% of their first sample; every thread's results are checked
// exactly and the shared counter must equal the number of increments (no lost update).
//   soak --device cpu --minutes 10
//   soak --device cuda --minutes 10 --threads 8
// Exit status 1 when memory grew, a result was wrong or an update was lost.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include <tgc/tgc.h>

#if SOAK_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using namespace tgc;
using Clock = std::chrono::steady_clock;

// Resident set size of this process, from /proc/self/statm (pages).
double rss_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return static_cast<double>(pages_resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

// Device memory in use on the current CUDA device (the whole device: other processes too), or
// -1 without CUDA.
double device_mib(bool cuda) {
#if SOAK_HAVE_CUDA
  size_t free_bytes = 0, total_bytes = 0;
  if (cuda && cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
    return static_cast<double>(total_bytes - free_bytes) / (1 << 20);
#else
  (void)cuda;
#endif
  return -1;
}

struct Sample {
  double seconds, rss, device;
  long long calls;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tgc soak run: tutorial programs and a multi-threaded mix, memory sampled"};
  std::string device = "cpu";
  double minutes = 10, interval = 30;
  long long min_calls = 1000000;
  int threads = 4;
  app.add_option("--device", device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--minutes", minutes, "run at least this long")->check(CLI::PositiveNumber);
  app.add_option("--calls", min_calls, "and at least this many calls of the tutorial programs");
  app.add_option("--threads", threads, "threads of the multi-threaded mix (0: none)")->check(CLI::Range(0, 256));
  app.add_option("--interval", interval, "seconds between memory samples")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  const bool cuda = device == "cuda";
  const std::map<std::string, std::string> config = {{"device", device}};

  // The tutorial's programs: check1 (exp of a shared vector), check2 (the same left on the
  // device), and one training step of the logistic regression.
  RandomState rng(22);
  Shared x = shared(rng.rand({230400}).astype(DType::Float32), "x");
  Function check1 = function({}, {exp(x)}, {}, {.name = "check1", .config = config});
  Function check2 = function({}, {gpu_from_host(exp(x))}, {}, {.name = "check2", .config = config});
  const int64_t n = 400, feats = 784;
  Tensor data_x = rng.randn({n, feats}).astype(DType::Float32);
  Tensor data_y = rng.randint(0, 2, {n}).astype(DType::Float32);
  Var mx = matrix("x", DType::Float32), vy = vector("y", DType::Float32);
  Shared w = shared(rng.randn({feats}).astype(DType::Float32), "w");
  Shared b = shared(Tensor::full(DType::Float32, {}, 0.0), "b");
  Var p_1 = 1 / (1 + exp(-dot(mx, w) - b));
  Var xent = -vy * log(p_1) - (1 - vy) * log(1 - p_1);
  Var cost = mean(xent) + 0.01 * sum(pow(w, 2));
  std::vector<Var> g = grad(cost, {w, b});
  Function train = function({mx, vy}, {p_1 > 0.5, xent}, {{w, w - 0.01 * g[0]}, {b, b - 0.01 * g[1]}},
                            {.name = "train", .config = config});

  // The multi-threaded mix: every thread calls `affine` (one Function for all) on inputs of
  // its own and checks the result exactly, then increments `counter` through its own Function.
  Var v = vector("v", DType::Float64);
  Function affine = function({v}, {v * 2.0 + 1.0}, {}, {.name = "affine", .config = config});
  Shared counter = shared(Tensor::full(DType::Float64, {}, 0.0), "counter");
  std::vector<Function> increments;
  for (int t = 0; t < threads; ++t)
    increments.push_back(function({}, {}, {{counter, counter + 1.0}}, {.name = fmt::format("increment {}", t), .config = config}));
  std::atomic<bool> stop{false};
  std::atomic<long long> wrong{0}, increments_done{0}, affine_calls{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      long long k = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        const double base = t * 1e6 + static_cast<double>(k++ % 1000000);
        Tensor in = Tensor::from_vector(std::vector<double>{base, base + 0.5, -base}, {3});
        const std::vector<double> got = affine(in)[0].to_vector<double>();
        if (got != std::vector<double>{base * 2 + 1, (base + 0.5) * 2 + 1, -base * 2 + 1}) ++wrong;
        ++affine_calls;
        increments[static_cast<size_t>(t)]();
        ++increments_done;
      }
    });

  std::printf("soak: device %s, %d threads, at least %g minutes and %lld calls, a sample every %.0f s\n",
              device.c_str(), threads, minutes, min_calls, interval);
  std::printf("%9s %12s %10s %12s %14s %14s\n", "seconds", "calls", "RSS MiB", "device MiB", "affine calls",
              "increments");
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::vector<Sample> samples;
  long long calls = 0;
  double next_sample = 0;
  while (elapsed() < minutes * 60 || calls < min_calls) {
    check1();
    check2();
    train(data_x, data_y);
    calls += 3;
    if (elapsed() >= next_sample) {
      samples.push_back({elapsed(), rss_mib(), device_mib(cuda), calls});
      const Sample& s = samples.back();
      std::printf("%9.0f %12lld %10.1f %12.1f %14lld %14lld\n", s.seconds, s.calls, s.rss, s.device,
                  affine_calls.load(), increments_done.load());
      std::fflush(stdout);
      next_sample += interval;
    }
  }
  stop = true;
  for (std::thread& t : pool) t.join();
  samples.push_back({elapsed(), rss_mib(), device_mib(cuda), calls});

  // Flat after the warm-up: every later sample within 1% of the first one past it.
  const double warm = samples.back().seconds / 5;
  const auto first = std::find_if(samples.begin(), samples.end(), [&](const Sample& s) { return s.seconds >= warm; });
  double rss_growth = 0, device_growth = 0;
  for (auto s = first; s != samples.end(); ++s) {
    rss_growth = std::max(rss_growth, std::abs(s->rss - first->rss) / first->rss);
    if (first->device > 0) device_growth = std::max(device_growth, std::abs(s->device - first->device) / first->device);
  }
  const double count = counter.get_value().astype(DType::Float64).item<double>();
  std::printf("calls: %lld of the tutorial programs, %lld of affine by %d threads, %lld increments\n", calls,
              affine_calls.load(), threads, increments_done.load());
  std::printf("after the warm-up (from %.0f s): RSS %.1f -> %.1f MiB (largest change %.2f%%)", first->seconds,
              first->rss, samples.back().rss, rss_growth * 100);
  if (first->device > 0)
    std::printf(", device %.1f -> %.1f MiB (largest change %.2f%%)", first->device, samples.back().device,
                device_growth * 100);
  std::printf("\nwrong results: %lld; shared counter %.0f for %lld increments\n", wrong.load(), count,
              increments_done.load());
  const bool ok = rss_growth <= 0.01 && device_growth <= 0.01 && wrong == 0 &&
                  count == static_cast<double>(increments_done.load());
  std::printf("%s\n", ok ? "flat and exact" : "FAILED: memory grew, a result was wrong or an update was lost");
  return ok ? 0 : 1;
}
