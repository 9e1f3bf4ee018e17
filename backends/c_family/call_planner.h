// The per-call planning of a rendered Composite, shared by the CUDA and OpenCL thunks and
// cached across calls: a steady-state call with unchanged shapes and layouts only compares.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "runtime/tensor.h"

namespace tgc::cfam {

class CallPlanner {
 public:
  // `params_capacity` is the rendered Source's; `label` names the node in internal errors.
  CallPlanner(const Kernel& kernel, size_t params_capacity, DeviceLimits limits, std::string label);

  // The output shapes for these inputs; raises the reference's ShapeError / ValueError
  // before anything is enqueued. `fast` says whether the device path applies to them
  // (kernel_fast_path_applies); when it does not, the caller runs the node on the host.
  const std::vector<Shape>& output_shapes(const std::vector<Tensor>& inputs, bool& fast);

  // The launch plan for these operands (outputs already allocated at output_shapes()), the
  // kept one when every operand's dtype, shape, strides and 16-byte alignment match the last
  // plan's; nullptr when no device plan exists (the host runs the node).
  const LaunchPlan* plan(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);
  // The kept plan's params padded to the Source's capacity (at least one element): the
  // params blob every entry takes by value.
  const std::vector<int64_t>& blob() const { return blob_; }

 private:
  void add_layout(const Tensor& t);

  const Kernel& kernel_;
  size_t params_capacity_;
  DeviceLimits limits_;
  std::string label_;
  std::vector<Shape> last_in_shapes_, out_shapes_;
  bool shapes_known_ = false, fast_ = false;
  std::vector<int64_t> layout_key_, plan_key_;
  LaunchPlan plan_;
  std::vector<int64_t> blob_;
};

// The entries (flags over Source::entries, `num_entries` of them) a call launches when its
// inputs have these shapes and every operand is dense and 16-byte aligned, as the device's
// fresh buffers are: what a backend that builds a whole unit at once (CUDA) builds with the
// module before the first call. Empty when nothing can be said: the shapes raise, or the
// device path does not apply to them. A prediction only: a call whose operands are laid out
// otherwise launches what its own plan says.
std::vector<bool> entries_launched_for(const Kernel& kernel, size_t num_entries, const std::vector<Shape>& input_shapes,
                                       const DeviceLimits& limits);

}  // namespace tgc::cfam
