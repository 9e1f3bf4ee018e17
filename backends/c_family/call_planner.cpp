// CallPlanner: output shapes, fast-path verdict and launch plan, kept while shapes and
// layouts repeat.
#include "backends/c_family/call_planner.h"

#include <algorithm>

#include "compiler/kernel/interpreter.h"
#include "runtime/error.h"

namespace tgc::cfam {

CallPlanner::CallPlanner(const Kernel& kernel, size_t params_capacity, DeviceLimits limits, std::string label)
    : kernel_(kernel), params_capacity_(params_capacity), limits_(limits), label_(std::move(label)) {}

const std::vector<Shape>& CallPlanner::output_shapes(const std::vector<Tensor>& inputs, bool& fast) {
  bool same = shapes_known_ && inputs.size() == last_in_shapes_.size();
  for (size_t j = 0; same && j < inputs.size(); ++j) same = inputs[j].shape() == last_in_shapes_[j];
  if (!same) {
    shapes_known_ = false;
    std::vector<Shape> in_shapes;
    for (const Tensor& t : inputs) in_shapes.push_back(t.shape());
    out_shapes_ = kernel_output_shapes(kernel_, in_shapes);  // may raise: nothing is kept then
    fast_ = kernel_fast_path_applies(kernel_, in_shapes);
    last_in_shapes_ = std::move(in_shapes);
    shapes_known_ = true;
  }
  fast = fast_;
  return out_shapes_;
}

void CallPlanner::add_layout(const Tensor& t) {
  layout_key_.push_back(static_cast<int64_t>(t.dtype()));
  layout_key_.push_back(t.ndim());
  for (int d = 0; d < t.ndim(); ++d) layout_key_.push_back(t.shape()[d]);
  for (int d = 0; d < t.ndim(); ++d) layout_key_.push_back(t.strides()[d]);
  // Vector paths need 16-byte alignment: the plan depends on the address modulo 16.
  layout_key_.push_back(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.raw_data()) % 16));
}

const LaunchPlan* CallPlanner::plan(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  layout_key_.clear();
  for (const Tensor& t : inputs) add_layout(t);
  for (const Tensor& t : outputs) add_layout(t);
  if (!plan_key_.empty() && layout_key_ == plan_key_) return &plan_;
  plan_key_.clear();
  auto geometry = [](const Tensor& t) {
    return Geometry{t.dtype(), t.shape(), t.strides(), reinterpret_cast<uintptr_t>(t.raw_data())};
  };
  std::vector<Geometry> in_geo, out_geo;
  for (const Tensor& t : inputs) in_geo.push_back(geometry(t));
  for (const Tensor& t : outputs) out_geo.push_back(geometry(t));
  std::optional<LaunchPlan> p = plan_launch(kernel_, in_geo, out_geo, limits_);
  if (!p) return nullptr;
  TGC_INTERNAL_CHECK(p->params.size() <= params_capacity_,
                     "launch plan of " + label_ + " has more params than the kernel's blob holds");
  plan_ = std::move(*p);
  blob_.assign(std::max<size_t>(params_capacity_, 1), 0);
  std::copy(plan_.params.begin(), plan_.params.end(), blob_.begin());
  plan_key_ = layout_key_;
  return &plan_;
}

std::vector<bool> entries_launched_for(const Kernel& kernel, size_t num_entries, const std::vector<Shape>& input_shapes,
                                       const DeviceLimits& limits) {
  if (input_shapes.size() != kernel.inputs.size()) return {};
  std::vector<Shape> output_shapes;
  try {
    if (!kernel_fast_path_applies(kernel, input_shapes)) return {};
    output_shapes = kernel_output_shapes(kernel, input_shapes);
  } catch (const Error&) {
    return {};  // the call will raise the same error: nothing to build for it
  }
  // Distinct aligned addresses: some plans treat an output written over its input apart.
  uintptr_t address = 0;
  auto dense = [&](DType dtype, const Shape& shape) {
    address += 4096;
    return Geometry{dtype, shape, contiguous_strides(shape), address};
  };
  std::vector<Geometry> in_geo, out_geo;
  for (size_t i = 0; i < input_shapes.size(); ++i) in_geo.push_back(dense(kernel.inputs[i].dtype, input_shapes[i]));
  for (size_t o = 0; o < output_shapes.size(); ++o) out_geo.push_back(dense(kernel.outputs[o].dtype, output_shapes[o]));
  const std::optional<LaunchPlan> plan = plan_launch(kernel, in_geo, out_geo, limits);
  if (!plan || plan->launches.empty()) return {};
  std::vector<bool> launched(num_entries, false);
  for (const Launch& l : plan->launches) {
    if (l.entry < 0 || static_cast<size_t>(l.entry) >= num_entries) return {};
    launched[l.entry] = true;
  }
  return launched;
}

}  // namespace tgc::cfam
