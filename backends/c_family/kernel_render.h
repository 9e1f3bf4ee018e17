// The C-family renderer: Kernel IR -> CUDA C or OpenCL C source, plus the launch plan that
// goes with a rendered variant (collapsed shape, strides, grid, reduction passes). Shared by
// backends/cuda and backends/opencl; the dialects differ only through hooks inside the
// renderer (qualifiers, address spaces, built-ins, vector types, warp/sub-group reductions).
// Device-agnostic: no CUDA or OpenCL headers, so it builds and is tested everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/kernel/kernel_ir.h"
#include "runtime/shape.h"

namespace tgc::cfam {

enum class Dialect { Cuda, OpenCL };

// The specialisations of a kernel. render() puts an entry point for every variant the
// kernel can need into one translation unit, so a kernel is compiled once, inside
// function(), and a call only picks an entry (plan_launch). Shapes are never compiled in:
// a new batch size reuses the entries.
struct Variant {
  int outer_rank = 1;        // collapsed loop dims (elementwise) or kept dims (reduction)
  int reduce_rank = 0;       // collapsed reduced dims; 0 for elementwise kernels
  // Elementwise: every operand dense and in C order over the loop (a flat index).
  // Reductions: the loop-space inputs read densely along the reduced dim, with vectors.
  bool contiguous = false;
  int vector_width = 1;      // contiguous only: elements per 16-byte access (1 = scalar)
  bool index32 = true;       // every element offset of every operand fits in int32
  std::string key() const;   // "o2r0c1v4i32": readable, stable
  bool operator==(const Variant&) const = default;
};

// One translation unit holding every entry point of the kernel (each variant, and each
// pass of a multi-pass reduction). Every entry takes the same arguments, in this order (the
// ABI):
//   operand pointers: the kernel's inputs then its outputs (global memory, element types
//     from the Kernel; OpenCL: __global T*),
//   a scratch pointer (void*; partial results of multi-pass reductions, else unused),
//   the kernel's state (int*, zero when the kernel is first launched, kept across calls):
//     state[0] the error flag (kernels OR error bits into it, never clear it); then, for
//     reductions whose last block combines (LongReduction::last_block_combines), one ticket
//     counter per output (LaunchPlan::tickets), which the launch leaves at zero again,
//   the params blob by value: struct { long long v[N]; } holding LaunchPlan::params
//     (N = params_capacity, the same for every call of the kernel),
//   OpenCL only: one ulong per operand (inputs then outputs), the operand's offset in
//     elements into the buffer passed for it (cl_mem handles admit no pointer arithmetic on
//     the host, and tensors are views at any element offset of their buffer); the entry
//     adds it to the pointer first. Scratch and error flag are whole buffers (offset 0).
// Entry names start with `name_prefix`, so several kernels' sources can share one
// translation unit (render_preamble() once, then each kernel's body).
struct Source {
  std::string code;                  // preamble + body
  std::vector<std::string> entries;  // entry-point names, referenced by Launch::entry
  // Per entry: whether it indexes with 64-bit offsets (Variant::index32 false), which only
  // operands of 2^31 elements or more need: a backend may build those entries apart, late.
  std::vector<bool> wide_index;
  size_t params_capacity = 0;        // N above
  bool may_fail = false;             // some value can set an error bit (integer div/mod by 0, ...)
};

struct RenderOptions {
  Dialect dialect = Dialect::Cuda;
  bool fast_math = false;  // the backend also passes its compiler flag (--use_fast_math, ...)
  std::string name_prefix = "tgc_k";
  // float32_math=double: float32 transcendental rows compute in double and round once (the
  // reference's bits). The default computes them with the dialect's float functions, whose
  // error bounds (a few ulps) docs/cpu-backend.md ("Scalar semantics") states.
  bool float32_in_double = false;
  // >= 0: define only Source::entries[only_entry]; the others keep their names and indices
  // (Launch::entry still indexes the full list) but get no definition. A backend whose
  // compiler is slow per entry (PoCL compiles each kernel of a program into machine code)
  // builds only the entries a call launches, each on its first launch.
  int only_entry = -1;
  // Non-empty (one flag per entry of Source::entries): define only the entries flagged, the
  // others keeping their names and indices. A backend that builds a whole unit at once (CUDA)
  // builds the entries a call is expected to launch with the module and the others on the
  // first launch that needs one (gpu::ModuleSource::late): most of a kernel's entries are
  // variants for other layouts, and NVRTC's time is mostly per entry.
  std::vector<bool> only_entries;
};

// The shared definitions every kernel body relies on (types, scalar helpers).
std::string render_preamble(Dialect dialect);
// The kernel's entries without the preamble (to batch kernels into one translation unit).
Source render_body(const Kernel& kernel, const RenderOptions& options);
// render_preamble() + render_body(): a complete translation unit.
Source render(const Kernel& kernel, const RenderOptions& options);

// Where an operand lies: enough for planning (alignment of vector paths, strides) without
// touching its memory.
struct Geometry {
  DType dtype = DType::Float32;
  Shape shape;
  Strides strides;        // in elements
  uintptr_t address = 0;  // of element [0, ..., 0] (for alignment checks only)
};

// How a dialect runs long reductions with few outputs (the pass-1 schedule: blocks reduce
// fixed chunks of an output into partials). The grid is sized for `blocks_per_multiprocessor`
// resident blocks of `threads` (CUDA compiles those entries with launch bounds that keep that
// many resident), so every chunk runs in one wave. With `last_block_combines` the block that
// takes an output's last ticket combines its partials in the same launch (device-scope fences
// and an integer atomic: CUDA); otherwise a second launch (pass 2) does.
struct LongReduction {
  int threads = 256;
  int blocks_per_multiprocessor = 8;
  bool last_block_combines = false;
};
LongReduction long_reduction(Dialect dialect);

// What the planner needs of the device.
struct DeviceLimits {
  int multiprocessors = 1;
  int max_threads_per_block = 256;
  int warp_size = 32;  // sub-group width for OpenCL; 1 when the device has none to rely on
  LongReduction long_reduction;  // long_reduction() of the device's dialect
};

// One launch of one entry point, over a 1-D grid of blocks (work-groups).
struct Launch {
  int entry = 0;
  int64_t blocks = 1;
  int threads = 256;        // per block
  size_t shared_bytes = 0;  // dynamic shared / local memory
};

struct LaunchPlan {
  Variant variant;              // which specialisation the entries below belong to
  std::vector<int64_t> params;  // the params blob (collapsed shape, strides, sizes)
  size_t scratch_bytes = 0;     // device scratch the launches need (0: none)
  int64_t tickets = 0;          // ticket counters the launches use after state[0] (0: none)
  std::vector<Launch> launches; // in order, on one in-order stream/queue
};

// The plan for one call. `outputs` are already allocated at kernel_output_shapes().
// nullopt when the single-pass fast path does not apply to these shapes
// (kernel_fast_path_applies() is false): the caller then runs the kernel another way.
// Deterministic: the same shapes and limits give the same plan, so reductions combine
// partial results in the same order on every run (no float atomics anywhere).
std::optional<LaunchPlan> plan_launch(const Kernel& kernel, const std::vector<Geometry>& inputs,
                                      const std::vector<Geometry>& outputs, const DeviceLimits& limits);

}  // namespace tgc::cfam
