// A per-kernel device-time table for any CUDA program, graph replays included, where no
// profiler is installed (the lent GPU machines have no Nsight Systems): preloaded, it records
// every kernel, copy and memset through CUPTI's activity API and prints at exit, per name, the
// count and the device time per step, and the span per step from the first start to the last
// end. KERNEL_TRACE_STEPS=N says how many steps the program ran, KERNEL_TRACE_WARMUP=W how many
// of the first to leave out (their share of the records, in start order: compilation, first
// calls). Built and used on a GPU machine:
//   g++ -O2 -shared -fPIC kernel_trace.cpp -I$CUDA/include $CUDA/lib64/libcupti.so -o libkt.so
//   KERNEL_TRACE_STEPS=2000 KERNEL_TRACE_WARMUP=1000 LD_PRELOAD=./libkt.so tgc run --device cuda mlp.tg --iters 2000
// KERNEL_TRACE_TIMELINE=PATH also writes the last KERNEL_TRACE_TIMELINE_RECORDS (default 400)
// activities to PATH.<pid>, one per line (start and end in us from the first, stream, name), and
// the summary line says how much of the collectives' time (kernels named nccl*) ran beside
// other kernels and how much ran alone (data-parallel steps: is the all_reduce hidden?).
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

#include <unistd.h>

namespace {

struct Record {
  std::string name;
  uint64_t start, end;
  uint32_t stream = 0;
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

void note(std::string name, uint64_t start, uint64_t end, uint32_t stream = 0) {
  g_records.push_back({std::move(name), start, end, stream});
}

bool is_collective(const Record& r) { return r.name.rfind("nccl", 0) == 0; }

// Of the collectives' kernel time among `records` (sorted by start): how much had another
// kernel running at the same moment, and how much ran alone. Swept over start/end events.
void collective_overlap(const std::vector<Record>& records, size_t from, double* beside_ns, double* alone_ns) {
  struct Event { uint64_t t; int coll, other; };
  std::vector<Event> events;
  for (size_t i = from; i < records.size(); ++i) {
    const Record& r = records[i];
    const bool c = is_collective(r);
    events.push_back({r.start, c ? 1 : 0, c ? 0 : 1});
    events.push_back({r.end, c ? -1 : 0, c ? 0 : -1});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.t < b.t; });
  int coll = 0, other = 0;
  *beside_ns = *alone_ns = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (i > 0 && coll > 0) (other > 0 ? *beside_ns : *alone_ns) += double(events[i].t - events[i - 1].t);
    coll += events[i].coll;
    other += events[i].other;
  }
}

void write_timeline(const std::vector<Record>& records) {
  const char* path = std::getenv("KERNEL_TRACE_TIMELINE");
  if (!path || records.empty()) return;
  const char* n = std::getenv("KERNEL_TRACE_TIMELINE_RECORDS");
  const size_t count = std::min(records.size(), static_cast<size_t>(n ? std::atol(n) : 400));
  const std::string file = std::string(path) + "." + std::to_string(getpid());
  FILE* f = std::fopen(file.c_str(), "w");
  if (!f) return;
  const size_t first = records.size() - count;
  const uint64_t t0 = records[first].start;
  for (size_t i = first; i < records.size(); ++i)
    std::fprintf(f, "%10.2f %10.2f %4u  %s\n", (records[i].start - t0) / 1e3, (records[i].end - t0) / 1e3,
                 records[i].stream, records[i].name.c_str());
  std::fclose(f);
}

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
        note(short_name(k->name), k->start, k->end, k->streamId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        note("[memcpy kind " + std::to_string(m->copyKind) + "]", m->start, m->end, m->streamId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        note("[memset]", m->start, m->end, m->streamId);
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
    double beside = 0, alone = 0;
    collective_overlap(g_records, skip, &beside, &alone);
    if (beside + alone > 0)
      std::fprintf(stderr, "== collectives per step: %.2f us beside other kernels, %.2f us alone\n",
                   beside / 1e3 / kept_steps, alone / 1e3 / kept_steps);
    write_timeline(g_records);
    std::fprintf(stderr, "%10s %10s %10s  %s\n", "per step", "us/step", "us each", "name");
    for (const auto& [name, t] : rows)
      std::fprintf(stderr, "%10.2f %10.2f %10.2f  %s\n", t.count / kept_steps, t.ns / 1e3 / kept_steps,
                   t.ns / 1e3 / t.count, name.c_str());
  }
};

Tracer g_tracer;

}  // namespace
