// Float32 transcendental functions computed in float32 (config float32_math=float32): which
// scalar-op rows have a float libm/libmvec function, and the error bound tgc promises.
#pragma once

#include "ops/elemwise/scalar_op.h"

namespace tgc::cpu {

// The float libm function that computes `op` on float32 operands ("expf", "atan2f"), or
// nullptr when the row keeps computing in double (sigmoid, softplus, and every exact row).
// The loop vectorizer maps each name to its libmvec variant (libmvec_table.cpp).
const char* float32_libm_name(ScalarOpKind op);

// The most float32 ulps between a float32-math result and the exact value: the largest of
// glibc's documented errors (sysdeps/x86_64/fpu/libm-test-ulps) for the scalar function and
// its SSE, AVX2 and AVX-512 libmvec variants. 0 for rows without a float function.
int float32_math_ulps(ScalarOpKind op);

// The most float32 ulps between a float32-math result and the reference's (computed in
// double, rounded once, so itself up to half an ulp from the exact value): one more than
// float32_math_ulps. This is tgc's promise; tests/backends/cpu/float32_math_test.cpp checks it
// over a wide sweep, since glibc's figures come from glibc's test inputs, not from a proof.
int float32_math_reference_ulps(ScalarOpKind op);

// A tolerance for comparing float32-math results with the reference's: relative
// float32_math_reference_ulps * 2^-23 (an ulp is at most that fraction of a normal value),
// absolute as many denormal steps (2^-149 each) for denormal results.
double float32_math_rtol(ScalarOpKind op);
double float32_math_atol(ScalarOpKind op);

}  // namespace tgc::cpu
