// FusedConv2d: conv2d(x, w) + bias along the channels, optionally followed by relu, as one op
// — what the conv_epilogue rewrite (compiler/passes/conv_epilogue.h) makes of the graph's
// conv2d, bias add and maximum(., 0), so that oneDNN (and later cuDNN) applies them as the
// convolution's bias and post-op instead of two more passes over the output.
#pragma once

#include "ops/conv/conv2d.h"

namespace tgc {

class FusedConv2d : public ConvOpBase {
 public:
  FusedConv2d(Conv2dParams params, bool relu) : ConvOpBase(params), relu_(relu) {}
  bool relu() const { return relu_; }
  std::string name() const override;
  std::string user_name() const override { return "conv2d"; }
  // "conv2d(x, w) + b" or "relu(conv2d(x, w) + b)": the user's computation.
  std::string describe_call(const std::vector<std::string>& input_labels) const override;
  // Inputs x, w, bias (O,) of their dtype.
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // No grad(): the optimizer makes this op after the gradients are built.

 protected:
  std::string class_name() const override { return "FusedConv2d"; }

 private:
  bool relu_;
};

}  // namespace tgc
