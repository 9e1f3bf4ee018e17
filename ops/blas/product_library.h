// Which library computes a host matrix product, and on how many threads: the one place that
// decides, from the measurements below (cpu_blas_bench on the development machine, Intel
// Sapphire Rapids, 2 cores; docs/cpu-backend.md, "Matrix products", has the tables).
#pragma once

#include <cstdint>

#include "runtime/dtype.h"

namespace tgc {

enum class ProductLibrary { OpenBlas, OneDnn };

struct ProductChoice {
  ProductLibrary library;
  int threads;  // 1, or the library's whole count
  bool operator==(const ProductChoice&) const = default;
};

// float32 products of at least this many multiply-adds (m*n*k) go to oneDNN's dnnl_sgemm when
// tgc is built with it: from 80^3 up it beat OpenBLAS on every measured shape on one thread
// (128^3: 174 vs 138 GFLOP/s; the MLP's 256x512x784: 158 vs 143; its 10-column products
// 1.3-1.7x), while below, OpenBLAS's lighter call wins (32^3: 153 vs 98 GFLOP/s, 64^3: 170 vs
// 155). The crossing lies between 64^3 and 80^3; the boundary sits at its lower end, where
// the loser is 10% behind on a product of about 3 microseconds.
inline constexpr int64_t kOneDnnMinWork = int64_t(1) << 18;

// From this many multiply-adds a oneDNN product uses every OpenMP thread: at 2 threads it won
// from 96^3 (0.9M: 213 vs 176 GFLOP/s), and the 10-column products of 2.6-5M multiply-adds
// nearly doubled (256x10x2048: 143 vs 74), while 64^3 (0.26M) lost (116 vs 155). 2^20 (about
// 10 microseconds of one core) keeps every product of the batch-256 MLP threaded.
inline constexpr int64_t kOneDnnThreadedWork = int64_t(1) << 20;

// OpenBLAS (pthread build) gets its threads only from 512^3 on: its threads busy-wait beside
// tgc's OpenMP threads, and below that size its second thread lost even on the quiet machine
// (docs/cpu-backend.md, "BLAS threads"). In a build with oneDNN this serves float64 only.
inline constexpr int64_t kOpenBlasThreadedWork = int64_t(1) << 27;

// The choice for a product of (m, k) by (k, n) in `dtype` (float32 or float64). Vectors
// (m == 1 or n == 1: dot, gemv; memory-bound and short) go to OpenBLAS on one thread.
// `have_dnnl`: tgc was built with oneDNN (dnnl_available()); `omp_threads`: the OpenMP
// threads oneDNN may use; `blas_threads`: OpenBLAS's count (OPENBLAS_NUM_THREADS, ...).
ProductChoice choose_product(DType dtype, int64_t m, int64_t n, int64_t k, bool have_dnnl, int omp_threads,
                             int blas_threads);

// Test hook: while one lives, choose_product sends every float32 matrix-matrix product to
// `library` whatever its size (oneDNN only where have_dnnl), on one thread unless the rule
// gives more, so that the ops' tests run through each library (tests/ops/blas: the
// ops_blas_dnnl_tests binary runs them all through oneDNN). Not for concurrent use.
class ForcedProductLibraryForTests {
 public:
  explicit ForcedProductLibraryForTests(ProductLibrary library);
  ~ForcedProductLibraryForTests();
  ForcedProductLibraryForTests(const ForcedProductLibraryForTests&) = delete;
  ForcedProductLibraryForTests& operator=(const ForcedProductLibraryForTests&) = delete;

 private:
  int previous_;
};

// Whether m*n*k >= work, without overflow.
bool product_work_at_least(int64_t m, int64_t n, int64_t k, int64_t work);

}  // namespace tgc
