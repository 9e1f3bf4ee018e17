// The random-draw kernels of GPU devices: Philox4x32-10 draws (uniform, normal, integers;
// ops/random/random_draw.h), rendered once as C-family source for CUDA C and OpenCL C 1.2
// through the dialect hooks. Device-agnostic: backends/gpu/random_thunk plans and launches.
//
// The arithmetic is the host's (ops/random/philox.h) step for step: a thread makes whole
// blocks (block b: counter state[1] + b, key state[0]), each block's elements from its own
// words, so the numbers do not depend on the grid. The state is read on the device and the
// advanced state written there (by thread 0 of block 0, into a buffer other than the state's),
// so a draw needs no host synchronisation and can be recorded in a CUDA graph.
//
// The ABI of every entry: (out, state, next) pointers, then the params blob by value
// (`struct { long long v[kRandomParams]; }`: n, low, range, vector), then, OpenCL only, one
// ulong per pointer: its offset in elements (kernel_render.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "runtime/dtype.h"

namespace tgc::cfam {

// Permutation: RandomPermutation's Fisher-Yates shuffle (int64), sequential: one thread runs
// it, so it stays on the device (no host round trip) at the price of being serial.
enum class RandomDist : uint8_t { Uniform, Normal, Integers, Permutation };

struct RandomKernel {
  RandomDist dist = RandomDist::Uniform;
  DType dtype = DType::Float32;  // float32/float64 (uniform, normal), an integer dtype (integers)
  bool operator==(const RandomKernel&) const = default;
};

// Params slots: elements to draw, the integers' low and range (high - low, as unsigned), and
// whether out is 16-byte aligned (float32 uniforms then store a float4 per block).
namespace randp {
constexpr int kN = 0, kLow = 1, kRange = 2, kVector = 3;
}
constexpr int kRandomParams = 4;

const std::vector<RandomKernel>& random_kernels();
int random_entry(const RandomKernel& k);  // -1: none
std::string random_entry_name(const RandomKernel& k);  // "tgc_random_uniform_float32"
// Elements a block of four words makes: 4 for float32 uniforms, else 2 (philox.h; for the
// permutation: swaps).
int random_per_block(const RandomKernel& k);

// The whole unit (only_entry < 0) or the unit with only that entry defined.
std::string render_random(Dialect dialect, int only_entry = -1);

}  // namespace tgc::cfam
