// Transfers and device views.
#include "backends/gpu/transfer_thunks.h"

#include "backends/gpu/device_copy.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"

namespace tgc::gpu {

ThunkFn make_host_to_device_thunk(GpuDevice& device) {
  GpuDevice* dev = &device;
  return [dev](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Tensor& in = inputs.at(0);
    if (&in.device() == dev) {  // already here (a device argument): nothing to move
      outputs[0] = in;
      return;
    }
    const Tensor host = in.on_host() ? in.contiguous() : in.to(host_device());
    Tensor& out = ensure_output(outputs[0], host.dtype(), host.shape(), *dev);
    dev->copy_from_host(out.raw_data(), host.raw_data(), host.nbytes(), dev->default_stream());
  };
}

ThunkFn make_device_to_host_thunk(GpuDevice& device) {
  GpuDevice* dev = &device;
  return [dev](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Tensor& in = inputs.at(0);
    if (in.on_host()) {
      outputs[0] = in;
      return;
    }
    // A strided view (a transpose left on the device) is made dense there: one copy back.
    const Tensor src = contiguous_on_device(*dev, in);
    Tensor& out = ensure_output(outputs[0], src.dtype(), src.shape(), dev->host_result_memory());
    dev->copy_to_host(out.raw_data(), src.raw_data(), src.nbytes(), dev->default_stream());
    dev->wait_for_host_results();  // deferred to the replay's end while a call is recorded
  };
}

bool is_device_view_op(const Node& node) {
  const Op& op = node.op();
  return dynamic_cast<const DimShuffle*>(&op) || dynamic_cast<const Reshape*>(&op) ||
         dynamic_cast<const Flatten*>(&op);
}

ThunkFn make_view_thunk(GpuDevice& device, const Node& node) {
  GpuDevice* dev = &device;
  std::shared_ptr<const Op> op = node.op_ptr();
  const bool needs_dense = !dynamic_cast<const DimShuffle*>(op.get());
  const auto* flatten = dynamic_cast<const Flatten*>(op.get());
  return [dev, op, needs_dense, flatten](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    // A Flatten whose merged axes walk as one (a transposed view of stacked loop steps) is a
    // view of its input as it is, on the device as on the host: no dense copy first.
    if (!needs_dense || (flatten && flatten->views(inputs.at(0)))) return op->perform(inputs, outputs);
    op->perform({contiguous_on_device(*dev, inputs.at(0))}, outputs);
  };
}

}  // namespace tgc::gpu
