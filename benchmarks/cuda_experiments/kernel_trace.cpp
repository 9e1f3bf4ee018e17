// A per-kernel device-time table for any CUDA program, graph replays included, where no
// profiler is installed (the lent GPU machines have no Nsight Systems): preloaded, it records
// every kernel, copy and memset through CUPTI's activity API and prints at exit, per name, the
// count and the device time per step, and the span per step from the first start to the last
// end. KERNEL_TRACE_STEPS=N says how many steps the program ran, KERNEL_TRACE_WARMUP=W how many
// of the first to leave out (their share of the records, in start order: compilation, first
// calls). Built and used on a GPU machine:
//   g++ -O2 -shared -fPIC kernel_trace.cpp -I$CUDA/include $CUDA/lib64/libcupti.so -o libkt.so
//   KERNEL_TRACE_STEPS=2000 KERNEL_TRACE_WARMUP=1000 LD_PRELOAD=./libkt.so tgc run --device cuda mlp.tg --iters 2000
// Not part of the CMake build: a measuring tool of docs/performance.md's GPU runs.
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Record {
  std::string name;
  uint64_t start, end;
};

struct Totals {
  uint64_t count = 0;
  uint64_t ns = 0;
};

std::mutex g_mutex;
std::vector<Record> g_records;

constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

void note(std::string name, uint64_t start, uint64_t end) { g_records.push_back({std::move(name), start, end}); }

// Kernel names shortened to what tells them apart: tgc's entries, cuBLAS's kernels.
std::string short_name(const char* name) {
  std::string s = name ? name : "?";
  if (s.size() > 90) s = s.substr(0, 87) + "...";
  return s;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  CUpti_Activity* record = nullptr;  // records are kept whole: the warm-up is cut at exit
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        note(short_name(k->name), k->start, k->end);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        note("[memcpy kind " + std::to_string(m->copyKind) + "]", m->start, m->end);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        note("[memset]", m->start, m->end);
        break;
      }
      default: break;
    }
  }
  std::free(buffer);
}

struct Tracer {
  Tracer() {
    cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  }
  ~Tracer() {
    cuptiActivityFlushAll(1);
    std::lock_guard<std::mutex> lock(g_mutex);
    const double steps = std::max(1.0, std::atof(std::getenv("KERNEL_TRACE_STEPS") ? std::getenv("KERNEL_TRACE_STEPS") : "1"));
    const double warmup = std::atof(std::getenv("KERNEL_TRACE_WARMUP") ? std::getenv("KERNEL_TRACE_WARMUP") : "0");
    std::sort(g_records.begin(), g_records.end(), [](const Record& a, const Record& b) { return a.start < b.start; });
    const size_t skip = static_cast<size_t>(g_records.size() * std::clamp(warmup / steps, 0.0, 1.0));
    const double kept_steps = std::max(1.0, steps - warmup);
    std::map<std::string, Totals> by_name;
    uint64_t busy = 0, first = UINT64_MAX, last = 0;
    for (size_t i = skip; i < g_records.size(); ++i) {
      const Record& r = g_records[i];
      Totals& t = by_name[r.name];
      ++t.count;
      t.ns += r.end - r.start;
      busy += r.end - r.start;
      first = std::min(first, r.start);
      last = std::max(last, r.end);
    }
    std::vector<std::pair<std::string, Totals>> rows(by_name.begin(), by_name.end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    std::fprintf(stderr,
                 "\n== kernel_trace: %zu activities, the first %zu left out; per step (%.0f steps): %.1f "
                 "activities, %.2f us busy, %.2f us from first start to last end\n",
                 g_records.size(), skip, kept_steps, (g_records.size() - skip) / kept_steps, busy / 1e3 / kept_steps,
                 last > first ? (last - first) / 1e3 / kept_steps : 0.0);
    std::fprintf(stderr, "%10s %10s %10s  %s\n", "per step", "us/step", "us each", "name");
    for (const auto& [name, t] : rows)
      std::fprintf(stderr, "%10.2f %10.2f %10.2f  %s\n", t.count / kept_steps, t.ns / 1e3 / kept_steps,
                   t.ns / 1e3 / t.count, name.c_str());
  }
};

Tracer g_tracer;

}  // namespace
