// Modules a GPU device keeps for the whole process: the copy kernels and the entries of the
// index, row, pool, conv and random kernel units, each built (NVRTC, the OpenCL compiler) on its first use
// and then shared by every function on that device. The kernel-cache entries a module's build
// read or wrote are noted in the thread's kernel-use record on each use (once per record), so
// a function saved after another function built a module still ships its binary
// (runtime/kernel_uses.h, docs/save.md).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "backends/gpu/gpu_device.h"

namespace tgc::gpu {

// The module `variant` of the unit `family` (a string literal: "row") on `device`, noted in
// the thread's kernel-use record; null when it was not made yet.
GpuModule* find_process_module(GpuDevice& device, std::string_view family, int variant);
// Builds `source` into that module (unless another thread did meanwhile) and returns it, noted.
GpuModule& add_process_module(GpuDevice& device, std::string_view family, int variant, ModuleSource source);

// The module `variant` of `family` on `device`, made from make() (a ModuleSource) the first
// time; the pair says everything its source depends on (an entry, an option). Called on every
// launch: a lookup under a mutex, no allocation, once the module exists.
template <class Make>
GpuModule& process_module(GpuDevice& device, std::string_view family, int variant, Make&& make) {
  if (GpuModule* m = find_process_module(device, family, variant)) return *m;
  return add_process_module(device, family, variant, make());
}

// The source of one entry of a hand-written kernel unit (render_index, render_rows, ...) built
// as a module of its own, as the units' entries are (a function launches a few of a unit's
// many): labelled "<unit> kernel <entry>", `render` giving the unit with only that entry.
ModuleSource unit_entry_source(std::string_view unit, std::string entry, std::function<std::string()> render,
                               bool fast_math, std::string cache_dir);

}  // namespace tgc::gpu
