// The host fallback of OpenCL nodes.
#include "backends/opencl/host_fallback.h"

namespace tgc::opencl {

void run_on_host(const Op& op, OpenCLDevice& device, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  std::vector<Tensor> host_in;
  host_in.reserve(inputs.size());
  for (const Tensor& t : inputs) host_in.push_back(t.on_host() ? t : t.to(host_device()));
  std::vector<Tensor> host_out(outputs.size());
  op.perform(host_in, host_out);
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor src = host_out[k].contiguous();
    Tensor& out = ensure_output(outputs[k], src.dtype(), src.shape(), device);
    device.copy_from_host(out.raw_data(), src.raw_data(), src.nbytes(), device.default_stream());
  }
}

}  // namespace tgc::opencl
