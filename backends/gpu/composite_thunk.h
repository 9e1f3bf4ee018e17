// The device thunk of a Composite (a fused kernel) on any GPU: rendered to the device's
// dialect and loaded once, when the thunk is made; each call plans the launch for its shapes
// (the CallPlanner keeps the last plan) and enqueues it.
#pragma once

#include <memory>
#include <string>

#include "backends/c_family/kernel_render.h"
#include "backends/gpu/gpu_device.h"
#include "compiler/kernel/composite_op.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace tgc::gpu {

// How `op` renders on `device` under `config` (the options the thunk uses too). Its entries'
// names start with its kernel's content hash, so that the units of several Composites can be
// compiled as one program (GpuDevice::compile_ahead) and the same kernel is the same source.
cfam::RenderOptions composite_render_options(const GpuDevice& device, const Config& config, const Composite& op);

// The Composite's whole unit, rendered with `options`; the time goes to the compile log.
cfam::Source render_composite(const GpuDevice& device, const Composite& op, const cfam::RenderOptions& options);

// The module of a Composite whose whole unit `whole` was rendered with `options` (an entry
// alone is rendered again when the device asks for it). `label` names the node. Built with the
// module (where the device builds whole units): the entries flagged in `expected_entries`
// (cfam::entries_launched_for), or every 32-bit-index one where that is empty; the others
// are ModuleSource::late.
ModuleSource composite_module_source(std::shared_ptr<const Composite> op, const cfam::RenderOptions& options,
                                     const cfam::Source& whole, const Config& config, const std::string& label,
                                     const std::vector<bool>& expected_entries = {});

// `label` names the node in compile and launch errors. `rendered`: the whole unit rendered
// already with composite_render_options (by GpuBackend::prepare), else it is rendered here.
// `expected_entries`: composite_module_source's.
ThunkFn make_composite_thunk(GpuDevice& device, std::shared_ptr<const Composite> op, const Config& config,
                             const std::string& label, const cfam::Source* rendered = nullptr,
                             const std::vector<bool>& expected_entries = {});

}  // namespace tgc::gpu
