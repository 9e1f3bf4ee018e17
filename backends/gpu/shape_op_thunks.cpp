// ReduceCount and SumToLike on a GPU (see shape_op_thunks.h).
#include "backends/gpu/shape_op_thunks.h"

#include <map>

#include "backends/gpu/composite_thunk.h"
#include "backends/gpu/host_fallback.h"
#include "compiler/kernel/lower.h"
#include "ops/core/apply.h"
#include "ops/gradient/sum_to_like.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/reduce_count.h"

namespace tgc::gpu {

bool is_device_shape_op(const Node& node) {
  const Op& op = node.op();
  return dynamic_cast<const ReduceCount*>(&op) || dynamic_cast<const SumToLike*>(&op);
}

ThunkFn make_shape_op_thunk(GpuDevice& device, const Node& node, const Config& config) {
  GpuDevice* dev = &device;
  std::shared_ptr<const Op> op = node.op_ptr();
  if (dynamic_cast<const ReduceCount*>(op.get())) {
    // The count depends on the input's shape alone: the device copy made for the last shape is
    // handed out again while the shape repeats, so a steady-state call does no device work
    // (and holds no host copy, which a recorded CUDA graph could not replay). The kept tensor
    // is never overwritten: an op reuses a buffer only when nothing else holds it.
    struct Kept {
      Shape input_shape;
      Tensor count;
    };
    auto kept = std::make_shared<Kept>();
    return [dev, op, kept](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
      if (kept->count.defined() && kept->input_shape == inputs[0].shape()) {
        outputs[0] = kept->count;
        return;
      }
      // perform() reads only the input's shape: a device tensor does, without a wait.
      std::vector<Tensor> host(1);
      op->perform(inputs, host);
      Tensor out = Tensor::empty(host[0].dtype(), host[0].shape(), *dev);
      dev->copy_from_host(out.raw_data(), host[0].raw_data(), host[0].nbytes(), dev->default_stream());
      kept->input_shape = inputs[0].shape();
      kept->count = out;
      outputs[0] = std::move(out);
    };
  }
  // SumToLike folds g over the axes its runtime shapes say (the leading dims `like` lacks and
  // the dims where it has size 1), which the graph does not know. Each distinct set of folded
  // axes gets its sum kernel (a one-node Composite, keepdims, through the Composite thunk), made
  // on the first call that needs it and kept; the result is that kernel's output viewed at
  // like's shape. The last call's shapes and kernel are kept, so a steady-state call is one
  // shape compare and one reduction launch, recordable like any other. Integers sum in a wider
  // type than g's, which the op keeps: those run the reference on the host.
  if (!is_float(node.output_raw(0)->type().dtype))
    return [dev, op](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
      if (inputs[0].shape() == op->infer_shapes({inputs[0].shape(), inputs[1].shape()})[0])
        outputs[0] = inputs[0];
      else
        run_on_host(*op, *dev, inputs, outputs);
    };
  struct SumToLikeState {
    std::map<std::vector<int>, ThunkFn> by_axes;
    bool planned = false;
    Shape last_g, last_like, out_shape;  // the last call's shapes and result shape
    const ThunkFn* sum = nullptr;        // its kernel; nullptr: nothing to fold
    std::vector<Tensor> in = std::vector<Tensor>(1), out = std::vector<Tensor>(1);
  };
  auto st = std::make_shared<SumToLikeState>();
  const std::string label = node.describe();
  return [dev, op, st, config, label](const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
    const Tensor& g = inputs[0];
    if (!st->planned || g.shape() != st->last_g || inputs[1].shape() != st->last_like) {
      st->out_shape = op->infer_shapes({g.shape(), inputs[1].shape()})[0];
      st->sum = nullptr;
      if (st->out_shape != g.shape()) {
        const int lead = g.ndim() - static_cast<int>(st->out_shape.size());
        std::vector<int> axes;
        for (int d = 0; d < g.ndim(); ++d)
          if (d < lead || (st->out_shape[d - lead] == 1 && g.shape()[d] != 1)) axes.push_back(d);
        ThunkFn& sum = st->by_axes[axes];
        if (!sum) {
          VarPtr in = Variable::input(Type::unknown(g.dtype(), g.ndim()), "g");
          VarPtr folded =
              apply1(std::make_shared<CAReduce>(ReduceKind::Sum, ReduceAxes(axes), /*keepdims=*/true), {in});
          LoweredGroup lowered = lower_group(FusedGroup{{folded->owner()}, {in}, {folded}});
          sum = make_composite_thunk(*dev, std::make_shared<const Composite>(std::move(lowered.kernel)), config, label);
        }
        st->sum = &sum;  // map nodes stay put
      }
      st->last_g = g.shape();
      st->last_like = inputs[1].shape();
      st->planned = true;
    }
    if (!st->sum) {
      outputs[0] = g;  // the op's view_of_input: the executor knows it aliases
      return;
    }
    st->in[0] = g;
    (*st->sum)(st->in, st->out);
    st->in[0] = Tensor();
    outputs[0] = st->out[0].reshape(st->out_shape);  // contiguous: a view
    st->out[0] = Tensor();  // the next call's kernel writes a fresh (or recycled) buffer
  };
}

}  // namespace tgc::gpu
