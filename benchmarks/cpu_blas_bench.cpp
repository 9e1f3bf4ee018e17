// Issue 19's CPU measurement: which single-precision matrix-product library is fastest on this
// CPU for the products of the benchmark networks, and how close each comes to the measured peak.
//
// Every library a user could have is loaded side by side in one process with dlopen(RTLD_LOCAL |
// RTLD_DEEPBIND), so two BLAS builds that export the same symbols (Debian's OpenBLAS, BLIS, a
// wheel's OpenBLAS) never see each other; oneDNN is called through its dnnl_sgemm and through
// its matmul primitive (one primitive per shape, made on the first call). Each product
// is timed for every library in turn, interleaved, median of the repetitions, at 1 thread and at
// all threads. The peak is a register-only FMA loop (AVX-512 where the CPU has it, else AVX2),
// timed the same way. Output: one table, GFLOP/s and percent of peak.
//
//   cpu_blas_bench [--reps N] [--threads a,b] [--lib name=path ...] [--only mlp|bigmlp|sweep]
//
// A library that is not installed is reported as missing, never a failure: the benchmark is
// for choosing, on the machine at hand, among what is there.
#include <dlfcn.h>
#include <immintrin.h>
#include <omp.h>
#if __has_include(<oneapi/dnnl/dnnl_types.h>)
#include <oneapi/dnnl/dnnl_types.h>  // types only: the functions come from dlsym
#define TGC_BENCH_DNNL_TYPES 1
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// C = A·B in row-major float32 with A (m×k) or its transpose stored, B (k×n) or its transpose.
struct Product {
  const char* net;
  const char* what;
  int m, n, k;
  bool trans_a, trans_b;
  double flops() const { return 2.0 * m * n * k; }
};

// The products of one training step of each benchmark network (batch b): forward, then the
// backward pass's weight and activation gradients, as tgc's optimized graphs compute them.
const std::vector<Product> kProducts = {
    {"mlp", "x·W1 256x784·784x512", 256, 512, 784, false, false},
    {"mlp", "h·W2 256x512·512x10", 256, 10, 512, false, false},
    {"mlp", "hᵀ·g 512x256·256x10", 512, 10, 256, true, false},
    {"mlp", "g·W2ᵀ 256x10·10x512", 256, 512, 10, false, true},
    {"mlp", "xᵀ·gh 784x256·256x512", 784, 512, 256, true, false},
    {"bigmlp", "x·W1 4096x784·784x4096", 4096, 4096, 784, false, false},
    {"bigmlp", "h1·W2 4096x4096·4096x4096", 4096, 4096, 4096, false, false},
    {"bigmlp", "gh2·W2ᵀ 4096x4096·4096x4096", 4096, 4096, 4096, false, true},
    {"bigmlp", "h1ᵀ·gh2 4096x4096·4096x4096", 4096, 4096, 4096, true, false},
    {"bigmlp", "xᵀ·gh1 784x4096·4096x4096", 784, 4096, 4096, true, false},
    // Cubes and flat products around the size where a second thread starts to pay
    // (ops/blas/product_library.h's threshold): run with --only sweep --threads 1,2.
    {"sweep", "32^3", 32, 32, 32, false, false},
    {"sweep", "48^3", 48, 48, 48, false, false},
    {"sweep", "64^3", 64, 64, 64, false, false},
    {"sweep", "80^3", 80, 80, 80, false, false},
    {"sweep", "96^3", 96, 96, 96, false, false},
    {"sweep", "128^3", 128, 128, 128, false, false},
    {"sweep", "160^3", 160, 160, 160, false, false},
    {"sweep", "192^3", 192, 192, 192, false, false},
    {"sweep", "256^3", 256, 256, 256, false, false},
    {"sweep", "384^3", 384, 384, 384, false, false},
    {"sweep", "512^3", 512, 512, 512, false, false},
    {"sweep", "256x32x512", 256, 32, 512, false, false},
    {"sweep", "256x10x2048", 256, 10, 2048, false, false},
    {"sweep", "1024x10x512", 1024, 10, 512, false, false},
};

// One library's row-major sgemm, whatever its own entry point.
using Sgemm = std::function<void(const Product&, const float*, const float*, float*)>;

struct Library {
  std::string name;
  std::string path;
  void* handle = nullptr;
  Sgemm sgemm;
  std::function<void(int)> set_threads;
};

enum CblasOrder { kRowMajor = 101 };
enum CblasTrans { kNoTrans = 111, kTrans = 112 };
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);
using DnnlSgemm = int (*)(char, char, int64_t, int64_t, int64_t, float, const float*, int64_t,
                          const float*, int64_t, float, float*, int64_t);

void* open_local(const std::string& path) {
  return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
}

// A CBLAS library (OpenBLAS, BLIS, a wheel's OpenBLAS whose symbols carry a suffix).
bool load_cblas(Library& lib, const std::string& suffix, const char* threads_symbol) {
  lib.handle = open_local(lib.path);
  if (!lib.handle) return false;
  auto gemm = reinterpret_cast<CblasSgemm>(dlsym(lib.handle, ("cblas_sgemm" + suffix).c_str()));
  if (!gemm) return false;
  lib.sgemm = [gemm](const Product& p, const float* a, const float* b, float* c) {
    gemm(kRowMajor, p.trans_a ? kTrans : kNoTrans, p.trans_b ? kTrans : kNoTrans, p.m, p.n, p.k,
         1.0f, a, p.trans_a ? p.m : p.k, b, p.trans_b ? p.k : p.n, 0.0f, c, p.n);
  };
  auto set = reinterpret_cast<void (*)(int)>(dlsym(lib.handle, threads_symbol));
  lib.set_threads = [set](int t) {
    omp_set_num_threads(t);
    if (set) set(t);
  };
  return true;
}

bool load_dnnl(Library& lib) {
  lib.handle = open_local(lib.path);
  if (!lib.handle) return false;
  auto gemm = reinterpret_cast<DnnlSgemm>(dlsym(lib.handle, "dnnl_sgemm"));
  if (!gemm) return false;
  lib.sgemm = [gemm](const Product& p, const float* a, const float* b, float* c) {
    gemm(p.trans_a ? 'T' : 'N', p.trans_b ? 'T' : 'N', p.m, p.n, p.k, 1.0f, a,
         p.trans_a ? p.m : p.k, b, p.trans_b ? p.k : p.n, 0.0f, c, p.n);
  };
  lib.set_threads = [](int t) { omp_set_num_threads(t); };  // oneDNN's Debian build uses OpenMP
  return true;
}

#if TGC_BENCH_DNNL_TYPES
// oneDNN's matmul primitive (brgemm kernels on AVX-512), one primitive per product shape made
// on its first call, as a library would cache them; the call then only rebinds the pointers.
bool load_dnnl_matmul(Library& lib) {
  lib.handle = open_local(lib.path);
  if (!lib.handle) return false;
  auto sym = [&](const char* name) { return dlsym(lib.handle, name); };
  using EngineCreate = dnnl_status_t (*)(dnnl_engine_t*, dnnl_engine_kind_t, size_t);
  using StreamCreate = dnnl_status_t (*)(dnnl_stream_t*, dnnl_engine_t, unsigned);
  using MdInit = dnnl_status_t (*)(dnnl_memory_desc_t*, int, const dnnl_dims_t, dnnl_data_type_t, const dnnl_dims_t);
  using MatmulInit = dnnl_status_t (*)(dnnl_matmul_desc_t*, const dnnl_memory_desc_t*, const dnnl_memory_desc_t*,
                                       const dnnl_memory_desc_t*, const dnnl_memory_desc_t*);
  using PdCreate = dnnl_status_t (*)(dnnl_primitive_desc_t*, const_dnnl_op_desc_t, const_dnnl_primitive_attr_t,
                                     dnnl_engine_t, const_dnnl_primitive_desc_t);
  using PrimCreate = dnnl_status_t (*)(dnnl_primitive_t*, const_dnnl_primitive_desc_t);
  using MemCreate = dnnl_status_t (*)(dnnl_memory_t*, const dnnl_memory_desc_t*, dnnl_engine_t, void*);
  using SetHandle = dnnl_status_t (*)(dnnl_memory_t, void*);
  using Execute = dnnl_status_t (*)(const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t*);
  using Wait = dnnl_status_t (*)(dnnl_stream_t);
  auto engine_create = reinterpret_cast<EngineCreate>(sym("dnnl_engine_create"));
  auto stream_create = reinterpret_cast<StreamCreate>(sym("dnnl_stream_create"));
  auto md_init = reinterpret_cast<MdInit>(sym("dnnl_memory_desc_init_by_strides"));
  auto matmul_init = reinterpret_cast<MatmulInit>(sym("dnnl_matmul_desc_init"));
  auto pd_create = reinterpret_cast<PdCreate>(sym("dnnl_primitive_desc_create"));
  auto prim_create = reinterpret_cast<PrimCreate>(sym("dnnl_primitive_create"));
  auto mem_create = reinterpret_cast<MemCreate>(sym("dnnl_memory_create"));
  auto set_handle = reinterpret_cast<SetHandle>(sym("dnnl_memory_set_data_handle"));
  auto execute = reinterpret_cast<Execute>(sym("dnnl_primitive_execute"));
  auto wait = reinterpret_cast<Wait>(sym("dnnl_stream_wait"));
  if (!engine_create || !stream_create || !md_init || !matmul_init || !pd_create || !prim_create || !mem_create ||
      !set_handle || !execute || !wait)
    return false;
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  if (engine_create(&engine, dnnl_cpu, 0) != dnnl_success) return false;
  if (stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) return false;
  struct Prim {
    dnnl_primitive_t prim;
    dnnl_memory_t a, b, c;
  };
  auto cache = std::make_shared<std::map<const Product*, Prim>>();
  lib.sgemm = [=](const Product& p, const float* a, const float* b, float* c) {
    auto it = cache->find(&p);
    if (it == cache->end()) {
      dnnl_memory_desc_t amd, bmd, cmd;
      const dnnl_dims_t adims = {p.m, p.k}, bdims = {p.k, p.n}, cdims = {p.m, p.n};
      const dnnl_dims_t astr = {p.trans_a ? 1 : p.k, p.trans_a ? p.m : 1};
      const dnnl_dims_t bstr = {p.trans_b ? 1 : p.n, p.trans_b ? p.k : 1};
      const dnnl_dims_t cstr = {p.n, 1};
      md_init(&amd, 2, adims, dnnl_f32, astr);
      md_init(&bmd, 2, bdims, dnnl_f32, bstr);
      md_init(&cmd, 2, cdims, dnnl_f32, cstr);
      dnnl_matmul_desc_t desc;
      matmul_init(&desc, &amd, &bmd, nullptr, &cmd);
      dnnl_primitive_desc_t pd;
      pd_create(&pd, &desc, nullptr, engine, nullptr);
      Prim pr{};
      prim_create(&pr.prim, pd);
      mem_create(&pr.a, &amd, engine, const_cast<float*>(a));
      mem_create(&pr.b, &bmd, engine, const_cast<float*>(b));
      mem_create(&pr.c, &cmd, engine, c);
      it = cache->emplace(&p, pr).first;
    }
    Prim& pr = it->second;
    set_handle(pr.a, const_cast<float*>(a));
    set_handle(pr.b, const_cast<float*>(b));
    set_handle(pr.c, c);
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, pr.a}, {DNNL_ARG_WEIGHTS, pr.b}, {DNNL_ARG_DST, pr.c}};
    execute(pr.prim, stream, 3, args);
    wait(stream);
  };
  lib.set_threads = [](int t) { omp_set_num_threads(t); };
  return true;
}
#else
bool load_dnnl_matmul(Library&) { return false; }  // no oneDNN headers to describe its types
#endif

// Single-precision peak of one core: 12 independent FMA chains on registers, so neither memory
// nor latency limits it. Returns GFLOP/s of `threads` threads together.
// The twelve accumulators are named, not an array: an array's elements stay in memory and the
// loop would measure loads and stores, not the FMA units.
#define TGC_TWELVE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((target("avx512f"))) double fma_loop_avx512(long iters) {
#define TGC_INIT(i) __m512 a##i = _mm512_set1_ps(1.0f + i);
  TGC_TWELVE(TGC_INIT)
#undef TGC_INIT
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < iters; ++i) {
#define TGC_FMA(i) a##i = _mm512_fmadd_ps(a##i, x, y);
    TGC_TWELVE(TGC_FMA)
#undef TGC_FMA
  }
  float sink = 0;
#define TGC_SUM(i) sink += _mm512_reduce_add_ps(a##i);
  TGC_TWELVE(TGC_SUM)
#undef TGC_SUM
  return sink;
}

__attribute__((target("avx2,fma"))) double fma_loop_avx2(long iters) {
#define TGC_INIT(i) __m256 a##i = _mm256_set1_ps(1.0f + i);
  TGC_TWELVE(TGC_INIT)
#undef TGC_INIT
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iters; ++i) {
#define TGC_FMA(i) a##i = _mm256_fmadd_ps(a##i, x, y);
    TGC_TWELVE(TGC_FMA)
#undef TGC_FMA
  }
  alignas(32) float out[8];
  float sink = 0;
#define TGC_SUM(i) \
  _mm256_store_ps(out, a##i); \
  for (float f : out) sink += f;
  TGC_TWELVE(TGC_SUM)
#undef TGC_SUM
  return sink;
}
#undef TGC_TWELVE

double measured_peak(int threads, int reps, const char** isa) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  *isa = avx512 ? "AVX-512" : "AVX2";
  const long iters = 20'000'000;
  const double flops_per_iter = 12.0 * (avx512 ? 16 : 8) * 2;
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    std::vector<std::thread> pool;
    std::vector<double> sinks(threads);
    const auto start = Clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { sinks[t] = avx512 ? fma_loop_avx512(iters) : fma_loop_avx2(iters); });
    for (auto& th : pool) th.join();
    const double s = seconds_since(start);
    if (sinks[0] == 12345.0) std::puts("");  // keeps the loops' results alive
    rates.push_back(threads * iters * flops_per_iter / s / 1e9);
  }
  return median(rates);
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> out;
  for (const char* p = s; *p;) {
    out.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7;
  std::vector<int> thread_counts = {1, static_cast<int>(std::thread::hardware_concurrency())};
  std::string only;
  std::vector<Library> libs = {
      {"OpenBLAS (Debian, pthread)", "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"},
      {"BLIS (Debian, OpenMP)", "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4"},
      {"oneDNN dnnl_sgemm", "libdnnl.so.2"},
      {"oneDNN matmul primitive", "libdnnl.so.2"},
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (arg == "--threads" && i + 1 < argc) thread_counts = parse_list(argv[++i]);
    else if (arg == "--only" && i + 1 < argc) only = argv[++i];
    else if (arg == "--lib" && i + 1 < argc) {
      const std::string spec = argv[++i];
      const size_t eq = spec.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "--lib wants name=path, got '%s'\n", spec.c_str());
        return 2;
      }
      libs.push_back({spec.substr(0, eq), spec.substr(eq + 1)});
    } else {
      std::fprintf(stderr,
                   "usage: cpu_blas_bench [--reps N] [--threads 1,2] [--only mlp|bigmlp|sweep] "
                   "[--lib name=path]...\n");
      return 2;
    }
  }
  std::vector<Library*> loaded;
  for (Library& lib : libs) {
    bool ok = false;
    if (lib.name.find("oneDNN matmul") != std::string::npos) ok = load_dnnl_matmul(lib);
    else if (lib.name.find("oneDNN") != std::string::npos) ok = load_dnnl(lib);
    else if (lib.name.find("numpy") != std::string::npos) ok = load_cblas(lib, "64_", "openblas_set_num_threads64_");
    else if (lib.name.find("BLIS") != std::string::npos) ok = load_cblas(lib, "", "bli_thread_set_num_threads");
    else ok = load_cblas(lib, "", "openblas_set_num_threads");
    if (ok) loaded.push_back(&lib);
    else std::printf("missing: %s (%s): %s\n", lib.name.c_str(), lib.path.c_str(), dlerror() ? dlerror() : "no sgemm");
  }
  if (loaded.empty()) return 1;

  for (int threads : thread_counts) {
    const char* isa = "";
    const double peak = measured_peak(threads, 5, &isa);
    std::printf("\n## %d thread%s: measured single-precision peak %.1f GFLOP/s (%s FMA loop)\n\n",
                threads, threads == 1 ? "" : "s", peak, isa);
    std::printf("GFLOP/s per product (percent of the peak)\n\n| product |");
    for (Library* lib : loaded) std::printf(" %s |", lib->name.c_str());
    std::printf("\n|---|");
    for (size_t i = 0; i < loaded.size(); ++i) std::printf("---|");
    std::printf("\n");
    for (const Product& p : kProducts) {
      if (only.empty() ? std::strcmp(p.net, "sweep") == 0 : only != p.net) continue;  // sweep on request
      const size_t a_size = size_t(p.m) * p.k, b_size = size_t(p.k) * p.n, c_size = size_t(p.m) * p.n;
      std::vector<float> a(a_size), b(b_size), c(c_size);
      for (size_t i = 0; i < a_size; ++i) a[i] = float((i * 7) % 13) * 0.01f;
      for (size_t i = 0; i < b_size; ++i) b[i] = float((i * 5) % 11) * 0.01f;
      // Enough calls per repetition that a repetition lasts ~20 ms at 100 GFLOP/s.
      const int calls = std::max(1, int(2e9 / p.flops()));
      std::vector<std::vector<double>> times(loaded.size());
      for (Library* lib : loaded) {  // warm-up: first-call set-up, threads started, pages touched
        lib->set_threads(threads);
        lib->sgemm(p, a.data(), b.data(), c.data());
      }
      for (int r = 0; r < reps; ++r)
        for (size_t l = 0; l < loaded.size(); ++l) {
          loaded[l]->set_threads(threads);
          const auto start = Clock::now();
          for (int i = 0; i < calls; ++i) loaded[l]->sgemm(p, a.data(), b.data(), c.data());
          times[l].push_back(seconds_since(start) / calls);
        }
      std::printf("| %s %s%s |", p.net, p.what, p.trans_a ? " (Aᵀ)" : p.trans_b ? " (Bᵀ)" : "");
      for (size_t l = 0; l < loaded.size(); ++l) {
        const double gflops = p.flops() / median(times[l]) / 1e9;
        std::printf(" %.1f (%.0f%%) |", gflops, 100 * gflops / peak);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}
