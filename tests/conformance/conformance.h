// The conformance harness: a Case is a graph plus argument sets; each case is compiled with
// function() on the backend under test (default optimizer) and on the reference backend with
// optimizer=none (the per-op evaluation), run on every argument set, and the results compared.
#pragma once

#include <gtest/gtest.h>
#include <tgc/tgc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "backends/c_family/render_scalar.h"
#include "backends/cpu/float32_math.h"
#include "ops/elemwise/scalar_op.h"

namespace tgc::conformance {

// The backends the suite is instantiated over: every backend this build has
// (built_backends() in backends/backend_registry.h), the reference first.
std::vector<std::string> suite_backends();

// Per-dtype tolerances of a float output: |got - want| <= atol + rtol * |want| where want is
// finite (NaN matches NaN, infinities must match). Integer and bool outputs are always exact.
struct Tolerance {
  double rtol32 = 0, atol32 = 0;  // float32 outputs
  double rtol64 = 0, atol64 = 0;  // float64 outputs
  // float32 outputs on the C-family backends where larger (their float functions' bounds,
  // cfam::float32_math_ulps); 0: rtol32.
  double cuda_rtol32 = 0, opencl_rtol32 = 0;
  // float16 and bfloat16 outputs: within half_ulps epsilons of the type, relative, plus
  // half_atol and the type's smallest subnormal, absolute (half_conformance_test.cpp).
  double half_ulps = 1, half_atol = 0;
  // float32 outputs on the GPU backends (cuda, opencl) where larger: an absolute bound for
  // library calls that sum in float32 in an order of their own (cuDNN's algorithms, CLBlast's
  // Convgemm); 0: atol32.
  double library_atol32 = 0;
};

// The tolerance an output is held to on `backend`.
Tolerance tolerance_on(const std::string& backend, Tolerance t);

// Non-transcendental float ops round once, like the reference: exact.
inline constexpr Tolerance kExact{};
// Transcendental rows: the LLVM backend's libmvec functions may differ from glibc's by one
// float32 ulp / a few float64 ulps (docs/cpu-backend.md, "Scalar semantics").
inline constexpr Tolerance kUlps{1.2e-7, 0, 1e-14, 0};
// A libm row: kUlps, widened for the float32 rows that the LLVM backend computes in float
// (float32_math=float32, the default): float libmvec functions are within 1-3 float32 ulps
// of the exact value by glibc's figures, so within 2-4 ulps of the reference's correctly
// rounded double result (backends/cpu/float32_math.h, docs/cpu-backend.md).
// On cuda and opencl the same rows compute with the dialect's float functions: their
// documented bound plus the reference's half ulp, the same way.
inline Tolerance libm_tolerance(ScalarOpKind kind) {
  Tolerance t = kUlps;
  if (cpu::float32_libm_name(kind)) {
    t.rtol32 = std::max(t.rtol32, cpu::float32_math_rtol(kind));
    t.atol32 = cpu::float32_math_atol(kind);  // denormal results, where relative ulps grow
  }
  auto rtol = [&](cfam::Dialect d) {
    const int ulps = cfam::float32_math_ulps(kind, d);
    return ulps ? std::ldexp(ulps + 1, -23) : 0.0;
  };
  t.cuda_rtol32 = rtol(cfam::Dialect::Cuda);
  t.opencl_rtol32 = rtol(cfam::Dialect::OpenCL);
  if (t.cuda_rtol32 > 0 || t.opencl_rtol32 > 0) t.atol32 = std::max(t.atol32, std::ldexp(17, -149));
  return t;
}
// Float32 expressions over such rows (a*exp(-b) + c*tanh(a) - ...): each libm term within
// float32_math's few ulps (4 at most: 4.8e-7 relative), carried through the sums; a result
// that cancels to near zero keeps the terms' absolute error, so an absolute part of a few
// ulps of the terms' size (below 10 in these cases) too. float64 as kUlps.
// OpenCL's functions are allowed more (tanh 5 ulps, the spec's full profile).
inline constexpr Tolerance kFloat32Math{5e-7, 4e-6, 1e-14, 0, 5e-7, 1.2e-6};
// Reductions and products: the summation order differs (vector partial sums, gemm
// blocking); the cases' inputs are of magnitude ~1.
inline constexpr Tolerance kSummation{2e-6, 2e-6, 1e-12, 1e-12};
// Convolutions: kSummation, and on CUDA cuDNN's float32 algorithms (implicit GEMM, Winograd,
// FFT, chosen per problem by its heuristics) sum in orders of their own: seen on an H200 up
// to 4.6e-6 relative on a gradient of magnitude 1.4 (a few float32 ulps over ~50 terms). On
// OpenCL tgc's direct kernels sum in double and round once, while the host's float32
// reference runs oneDNN, which sums in float32: 3.5e-6 relative seen on PoCL on an input
// gradient of magnitude 1.5 among terms of 100 (the host's rounding, not the device's). A
// one-group NCHW conv2d on OpenCL runs CLBlast's Convgemm, which sums in float32 in its own
// order: on PoCL an output of -0.2077 among outputs near 80 came out 2.0e-5 off (a few ulps
// of the terms it sums), and so did the same element through cuDNN on an H200 (1.9e-5, the
// attribute grid's first gradient), so on both GPU backends the absolute bound is 1e-4 (about
// one ulp of a term of 100).
inline constexpr Tolerance kConvolution{2e-6, 2e-6, 1e-12, 1e-12, 2e-5, 2e-5, 1, 0, 1e-4};
// Whole graphs the optimizer rewrites (stabilisation, sum(x*y) -> dot, reassociation): the
// tolerance of the optimizer's own property test (tests/compiler/optimizer_property_test.cpp).
inline constexpr Tolerance kRewritten{1e-3, 1e-4, 1e-8, 1e-10};

struct Case {
  std::string name;
  std::vector<Var> inputs;
  std::vector<Var> outputs;
  std::vector<std::vector<Tensor>> arg_sets;    // each one call, one tensor per input
  Tolerance tolerance = kExact;                 // of every output, unless...
  std::vector<Tolerance> tolerances{};          // ...given here, one per output
  std::map<std::string, std::string> config{};  // extra config keys of both functions (floatX)
  // The reference's own graph when it is not the case's (half_conformance_test.cpp: the wider
  // graph a half case was made from): evaluated with optimizer=none on the arguments
  // converted to its inputs' dtypes, its outputs then converted to the case outputs' dtypes
  // (rounded once). Empty: the reference evaluates the case's graph.
  std::vector<Var> reference_inputs{}, reference_outputs{};
};

// A family of cases, built on demand (graphs and values only: cheap). Each test file
// registers its families; the coverage test builds them all to check that every op of the op
// set appears in some case.
using CaseFamily = std::vector<Case> (*)();
bool register_family(const std::string& name, CaseFamily build);
const std::vector<std::pair<std::string, CaseFamily>>& families();

// On the GPU backends (cuda, opencl) every case compiles with assert_no_cpu_op=raise: each op
// must run on the device, only the function's own transfers aside. Case families whose ops
// are not on the device yet are listed, each with its reason, in one file,
// tests/conformance/device_skip_list.txt; their cases compile with assert_no_cpu_op=ignore.
// The run prints the list's size, so it visibly shrinks. Environment overrides, for a
// developer: TGC_CONFORMANCE_ASSERT_NO_CPU_OP=ignore|warn|raise (default raise) and
// TGC_CONFORMANCE_IGNORE_SKIP_LIST=1 (raise for the listed families too: what they lack).
struct SkipEntry {
  std::string backend;  // "cuda" or "opencl" from a "[cuda] " / "[opencl] " prefix; "": both
  std::string family;   // a registered family's name, or the first words of a case's name
  std::string reason;
  bool covers(const std::string& on, const std::string& case_family, const std::string& case_name) const;
};
const std::vector<SkipEntry>& device_skip_list();
// The assert_no_cpu_op setting a case compiles with on `backend`.
std::string assert_no_cpu_op_for(const std::string& backend, const Case& c);
// The registered family that builds a case of this name ("" when none does).
std::string family_of(const std::string& case_name);

// What the suite compiled, per backend (printed at the end of the run).
struct Counts {
  int cases = 0;
  int calls = 0;
  int composites = 0;                      // Composite nodes in the optimized graphs
  std::set<uint64_t> kernels;              // their distinct kernels (hashes): what a JIT compiles
  std::map<ScalarOpKind, int> kernel_ops;  // Op values of each scalar-op row in their kernels
};
Counts& counts(const std::string& backend);

// "" when every output of every call of `c` on `backend` matches the reference evaluation
// (the same error class and message when the reference throws); else what differs, with
// the case's name, the arguments and both graphs.
std::string check_case(const std::string& backend, const Case& c);

// ADD_FAILURE with check_case's report unless it is "".
void expect_conforms(const std::string& backend, const Case& c);

// The fixture of every conformance test: the parameter is the backend's name.
class Conformance : public ::testing::TestWithParam<std::string> {
 protected:
  const std::string& backend() const { return GetParam(); }
  void expect_conforms(const Case& c) const { conformance::expect_conforms(backend(), c); }
  void expect_all_conform(CaseFamily build) const {
    for (const Case& c : build()) expect_conforms(c);
  }
};

// How many seeds of tests/support/random_graph.h the random-graph conformance test runs.
inline constexpr int kRandomGraphSeeds = 200;

// Argument variants holding the same values in other memory layouts: the values as given,
// column-major (when an input has rank >= 2), read through a negative stride along axis 0,
// and every second element of a larger buffer along axis 0.
std::vector<std::vector<Tensor>> layouts(const std::vector<Tensor>& args);

// `t` repeated along axis 0 to length n, starting at element `phase` (rank >= 1).
Tensor tiled(const Tensor& t, int64_t n, int64_t phase = 0);

// Uniform values in [lo, hi) of `dtype` (integers: randint over [lo, hi)).
Tensor random_values(RandomState& rng, DType dtype, const Shape& shape, double lo = -2, double hi = 2);

}  // namespace tgc::conformance
