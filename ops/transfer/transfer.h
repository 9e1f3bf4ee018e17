// The transfer ops HostToDevice and DeviceToHost: explicit graph nodes for every copy
// between host memory and a device, so the profiler classes them as transfers and the
// placement pass can cancel a DeviceToHost(HostToDevice(x)) pair. The user writes
// gpu_from_host(x) to ask for a result left on the device; the placement pass inserts the
// others. Their thunks come from the device backend; perform() is the host's meaning of a
// transfer (there is no device to move to: the value itself).
#pragma once

#include "ops/core/op.h"

namespace tgc {

class TransferOp : public Op {
 public:
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  // On the host a transfer is the identity (a view of its input).
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  bool is_transfer() const override { return true; }
  int view_of_input(int /*output*/) const override { return 0; }
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;
};

// Host memory -> the function's device. Theano prints it GpuFromHost.
class HostToDevice final : public TransferOp {
 public:
  std::string name() const override { return "HostToDevice"; }
  std::string op_class() const override { return "HostToDevice"; }
  std::string user_name() const override { return "gpu_from_host"; }
};

// The function's device -> host memory. Theano prints it HostFromGpu.
class DeviceToHost final : public TransferOp {
 public:
  std::string name() const override { return "DeviceToHost"; }
  std::string op_class() const override { return "DeviceToHost"; }
  std::string user_name() const override { return "host_from_gpu"; }
};

}  // namespace tgc
