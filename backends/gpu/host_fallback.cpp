// The host fallback of device nodes.
#include "backends/gpu/host_fallback.h"

namespace tgc::gpu {

Tensor host_copy(const Tensor& t) { return t.on_host() ? t : t.to(host_device()); }

void run_on_host(const Op& op, Device& device, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  std::vector<Tensor> host_in;
  host_in.reserve(inputs.size());
  for (const Tensor& t : inputs) host_in.push_back(host_copy(t));
  std::vector<Tensor> host_out(outputs.size());
  op.perform(host_in, host_out);
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor src = host_out[k].contiguous();
    Tensor& out = ensure_output(outputs[k], src.dtype(), src.shape(), device);
    device.copy_from_host(out.raw_data(), src.raw_data(), src.nbytes(), device.default_stream());
  }
}

}  // namespace tgc::gpu
