// Gradient rules of the join family: joining splits its gradient back into the inputs'
// pieces, and splitting joins the pieces' gradients (zeros for pieces the cost ignores).
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/gradient/build.h"
#include "ops/join/join.h"
#include "ops/join/split.h"
#include "ops/join/split_like.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {

namespace {

// The piece gradients joined along `axis`, with zeros shaped like the piece where the cost
// does not reach it; null when it reaches none.
VarPtr join_pieces(const Node& node, int axis, const std::vector<VarPtr>& output_grads) {
  const VarPtr& x = node.inputs()[0];
  bool any = false;
  for (const VarPtr& g : output_grads) any |= g != nullptr;
  if (!any || !is_float(x->type().dtype)) return nullptr;
  std::vector<VarPtr> parts;
  for (size_t i = 0; i < output_grads.size(); ++i) {
    // output() only hands out a shared handle to the node's own output; nothing changes.
    parts.push_back(output_grads[i] ? gradient::cast(output_grads[i], x->type().dtype)
                                    : gradient::zeros_like(node.output(static_cast<int>(i))));
  }
  if (parts.size() == 1) return parts[0];
  return apply1(std::make_shared<Concatenate>(axis), parts);
}

}  // namespace

// Split g by the inputs' sizes along the axis: static sizes when all are known, else
// sizes read from the inputs when the function runs.
std::vector<VarPtr> Concatenate::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const std::vector<VarPtr>& in = node.inputs();
  const VarPtr& g = output_grads[0];
  std::vector<VarPtr> out(in.size(), nullptr);
  if (!g) return out;
  const int axis = normalize_axis(axis_, g->type().ndim(), "concatenate");
  std::vector<int64_t> sizes;
  for (const VarPtr& x : in)
    if (x->type().shape[axis] != kUnknownDim) sizes.push_back(x->type().shape[axis]);
  std::vector<VarPtr> pieces;
  if (sizes.size() == in.size()) {
    pieces = tgc::apply(std::make_shared<Split>(axis, sizes), {g});
  } else {
    std::vector<VarPtr> inputs = {g};
    inputs.insert(inputs.end(), in.begin(), in.end());
    pieces = tgc::apply(std::make_shared<SplitLike>(axis, static_cast<int>(in.size())), inputs);
  }
  for (size_t i = 0; i < in.size(); ++i)
    if (is_float(in[i]->type().dtype)) out[i] = gradient::cast(pieces[i], in[i]->type().dtype);
  return out;
}

// Input i's gradient is g[:, ..., :, i] (i at the stacking axis).
std::vector<VarPtr> Stack::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const std::vector<VarPtr>& in = node.inputs();
  const VarPtr& g = output_grads[0];
  std::vector<VarPtr> out(in.size(), nullptr);
  if (!g) return out;
  const int axis = normalize_axis(axis_, g->type().ndim(), "stack");
  for (size_t i = 0; i < in.size(); ++i) {
    if (!is_float(in[i]->type().dtype)) continue;
    IndexSpec spec;
    spec.entries.assign(axis, IndexEntry::slice());
    spec.entries.push_back(IndexEntry::integer(static_cast<int64_t>(i)));
    out[i] = gradient::cast(apply1(std::make_shared<Subtensor>(spec), {g}), in[i]->type().dtype);
  }
  return out;
}

std::vector<VarPtr> Split::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  return {join_pieces(node, axis_, output_grads)};
}

// The like inputs only lend their sizes.
std::vector<VarPtr> SplitLike::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  std::vector<VarPtr> out(node.inputs().size(), nullptr);
  out[0] = join_pieces(node, axis_, output_grads);
  return out;
}

}  // namespace tgc
