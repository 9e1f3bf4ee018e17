// 2-d pooling: Pool2d (max or average) and its gradient Pool2dGrad, an op of its own so that
// a backend maps it to one library call (oneDNN's / cuDNN's pooling backward). Sizes and
// divisors follow PyTorch's max_pool2d / avg_pool2d: symmetric padding of at most half the
// kernel, ceil_mode (a last window that starts inside the input or its left padding),
// count_include_pad (the average's divisor counts the padding inside the window). A max
// window that holds a NaN is NaN; the gradient of a max goes to the first maximum in row order.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "ops/conv/conv_params.h"
#include "ops/core/op.h"

namespace tgc {

enum class PoolMode { Max, Avg };

struct Pool2dParams {
  PoolMode mode = PoolMode::Max;
  ConvLayout layout = ConvLayout::NCHW;
  std::array<int64_t, 2> kernel{2, 2};
  std::array<int64_t, 2> stride{2, 2};
  std::array<int64_t, 2> pad{0, 0};  // rows added above and below, columns left and right
  bool ceil_mode = false;
  bool count_include_pad = true;  // Avg only

  std::string describe() const;
  // ValueError naming `what` for a non-positive kernel or stride, or padding over half the kernel.
  void check(const std::string& what) const;
  // Output extent along axis i (0: height, 1: width) of an input extent `in`.
  int64_t out_size(int64_t in, int i) const;
  bool operator==(const Pool2dParams&) const = default;
};

class Pool2d : public Op {
 public:
  explicit Pool2d(Pool2dParams params) : params_(params) {}
  const Pool2dParams& params() const { return params_; }
  std::string name() const override;
  std::string op_class() const override { return "Pool2d"; }
  std::string user_name() const override { return params_.mode == PoolMode::Max ? "max_pool2d" : "avg_pool2d"; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // gx = Pool2dGrad(x, g).
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;

 private:
  Pool2dParams params_;
};

// gx = Pool2dGrad(x, gy): max routes each gy to its window's first maximum, avg spreads it
// over the window by the forward divisor. No gradient of its own yet (second order).
class Pool2dGrad : public Op {
 public:
  explicit Pool2dGrad(Pool2dParams params) : params_(params) {}
  const Pool2dParams& params() const { return params_; }
  std::string name() const override;
  std::string op_class() const override { return "Pool2dGrad"; }
  std::string user_name() const override {
    return params_.mode == PoolMode::Max ? "max_pool2d_grad" : "avg_pool2d_grad";
  }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;

 private:
  Pool2dParams params_;
};

}  // namespace tgc
