// The collectives' rule and thunk: the group's communicator for this device, the operands
// laid out as the engine's rank-major blocks by tgc's copy kernels where the axis is not the
// first, and a mean's division by the group's size as a scaled copy on the device. A
// collective whose result needs no copy after it runs on the device's side stream
// (GpuDevice::run_beside, Config::comm_overlap), beside the work the schedule puts after it.
#include "backends/gpu/collective_rules.h"

#include <fmt/format.h>

#include <functional>

#include "backends/gpu/device_copy.h"
#include "ops/collective/all_gather.h"
#include "ops/collective/all_reduce.h"
#include "ops/collective/broadcast.h"
#include "ops/collective/reduce_scatter.h"
#include "ops/core/node.h"
#include "runtime/error.h"

namespace tgc::gpu {
namespace {

bool is_collective(const Node& n) { return n.op().is_collective(); }

std::string collective_declines(const Node& n) {
  const auto& op = static_cast<const CollectiveOp&>(n.op());
  const auto* ar = dynamic_cast<const AllReduce*>(&op);
  const auto* rs = dynamic_cast<const ReduceScatter*>(&op);
  if ((ar && ar->kind() == CollectiveOpKind::Mean) || (rs && rs->kind() == CollectiveOpKind::Mean))
    return "a mean over ranks runs on the device as a sum and a division (tgc::all_reduce builds it so)";
  if (op.group_size() > 1 && !has_comm_factory(DeviceKind::Cuda))
    return fmt::format("no collective engine for the device (NCCL was not found: tgc devices says why); {} runs on "
                       "the host through MPI",
                       op.user_name());
  return "";
}

struct CollectiveThunk {
  GpuDevice* device;
  std::shared_ptr<const CollectiveOp> op;
  bool beside;  // Config::comm_overlap, and neither profiled (per-node device times) nor sync

  void operator()(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
    Communicator& comm = *op->group()->communicator(*device);
    const Tensor in = contiguous_on_device(*device, inputs[0]);
    const Shape out_shape = op->infer_shapes({in.shape()})[0];
    Tensor& out = ensure_output(outputs[0], in.dtype(), out_shape, *device);
    const DType dt = in.dtype();
    // One engine call from `send` (`in` or a copy of it) into `out`: beside the default
    // stream's work where allowed, keeping what it reads and writes alive until joined.
    auto engine_call = [&](const Tensor& send, const std::function<void(Stream&)>& call) {
      if (beside)
        device->run_beside({in, send, out}, call);
      else
        call(device->default_stream());
    };
    if (const auto* ar = dynamic_cast<const AllReduce*>(op.get())) {
      engine_call(in, [&](Stream& s) {
        comm.all_reduce(in.raw_data(), out.raw_data(), static_cast<size_t>(in.numel()), dt, engine_reduce(ar->kind()), s);
      });
    } else if (const auto* b = dynamic_cast<const Broadcast*>(op.get())) {
      engine_call(in, [&](Stream& s) {
        comm.broadcast(in.raw_data(), out.raw_data(), static_cast<size_t>(in.numel()), dt, b->root(), s);
      });
    } else if (const auto* ag = dynamic_cast<const AllGather*>(op.get())) {
      const size_t count = static_cast<size_t>(in.numel());
      if (ag->axis() == 0) {
        engine_call(in, [&](Stream& s) { comm.all_gather(in.raw_data(), out.raw_data(), count, dt, s); });
      } else {
        // Gathered as rank-major blocks, then copied into place on the default stream.
        Stream& stream = device->default_stream();
        Shape blocks_shape = in.shape();
        blocks_shape.insert(blocks_shape.begin(), op->group_size());
        Tensor blocks = Tensor::empty(dt, blocks_shape, *device);
        comm.all_gather(in.raw_data(), blocks.raw_data(), count, dt, stream);
        Shape split = in.shape();
        split.insert(split.begin() + ag->axis(), op->group_size());
        copy_strided(*device, gathered_view(blocks, ag->axis()), out.reshape(split));
      }
    } else if (const auto* rs = dynamic_cast<const ReduceScatter*>(op.get())) {
      const Tensor send =
          rs->axis() == 0 ? in : contiguous_on_device(*device, scattered_blocks_view(in, rs->axis(), op->group_size()));
      engine_call(send, [&](Stream& s) {
        comm.reduce_scatter(send.raw_data(), out.raw_data(), static_cast<size_t>(out.numel()), dt,
                            engine_reduce(rs->kind()), s);
      });
    } else {
      TGC_INTERNAL_CHECK(false, "collective thunk for " + op->name());
    }
  }
};

ThunkFn make_collective_thunk(GpuDevice& device, const Node& node, const Config& config) {
  auto op = std::dynamic_pointer_cast<const CollectiveOp>(node.op_ptr());
  // A group of several devices of this process keeps its collectives in line: on 4 H200s,
  // its 4 ranks' collectives on side streams hung (as its recorded calls did; the cause is
  // not known: see docs/distributed.md), while 2 such ranks, and ranks of separate
  // processes, ran them beside the products.
  const bool in_process_group = op->group()->peers().size() > 1;
  return CollectiveThunk{&device, op, config.comm_overlap && !config.profile && !config.sync && !in_process_group};
}

}  // namespace

const DeviceOpRule& collective_op_rule() {
  // all_reduce, all_gather, reduce_scatter, broadcast through the device's engine. Not
  // self-contained: the collectives of a communicator run in the order every rank issues
  // them (NCCL's rule, in a recorded call too); a domain of their own, so they run beside
  // the products.
  static const DeviceOpRule rule{"collective", is_collective, collective_declines, make_collective_thunk, false,
                                 kCollectiveDomain};
  return rule;
}

}  // namespace tgc::gpu
