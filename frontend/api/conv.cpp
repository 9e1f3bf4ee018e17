// Frontend API: conv2d, its gradients, conv_transpose2d and pooling, building the ops of
// ops/conv and ops/pool from the public options.
#include <tgc/conv.h>

#include <memory>

#include "ops/conv/conv2d.h"
#include "ops/core/apply.h"
#include "ops/pool/pool2d.h"

namespace tgc {
namespace {

Conv2dParams to_params(const Conv2dOptions& o) {
  Conv2dParams p;
  p.layout = o.layout;
  p.stride = o.stride;
  p.dilation = o.dilation;
  p.pad = o.padding.pad;
  p.same = o.padding.is_same;
  p.groups = o.groups;
  return p;
}

Var make_pool(const Var& x, PoolMode mode, std::array<int64_t, 2> kernel, const Pool2dOptions& o) {
  Pool2dParams p;
  p.mode = mode;
  p.layout = o.layout;
  p.kernel = kernel;
  p.stride = o.stride.value_or(kernel);
  p.pad = o.padding;
  p.ceil_mode = o.ceil_mode;
  p.count_include_pad = o.count_include_pad;
  return Var(apply1(std::make_shared<Pool2d>(p), {checked_ptr(x)}));
}

}  // namespace

Var conv2d(const Var& x, const Var& w, const Conv2dOptions& options) {
  return Var(apply1(std::make_shared<Conv2d>(to_params(options)), {checked_ptr(x), checked_ptr(w)}));
}

Var conv2d_grad_input(const Var& dy, const Var& w, const Var& x_like, const Conv2dOptions& options) {
  return Var(apply1(std::make_shared<Conv2dGradInput>(to_params(options), false),
                    {checked_ptr(dy), checked_ptr(w), checked_ptr(x_like)}));
}

Var conv2d_grad_weights(const Var& x, const Var& dy, const Var& w_like, const Conv2dOptions& options) {
  return Var(apply1(std::make_shared<Conv2dGradWeights>(to_params(options)),
                    {checked_ptr(x), checked_ptr(dy), checked_ptr(w_like)}));
}

Var conv_transpose2d(const Var& x, const Var& w, const Conv2dOptions& options, std::array<int64_t, 2> output_padding) {
  Conv2dParams p = to_params(options);
  p.output_padding = output_padding;
  return Var(apply1(std::make_shared<Conv2dGradInput>(p, true), {checked_ptr(x), checked_ptr(w)}));
}

Var max_pool2d(const Var& x, std::array<int64_t, 2> kernel, const Pool2dOptions& options) {
  return make_pool(x, PoolMode::Max, kernel, options);
}

Var avg_pool2d(const Var& x, std::array<int64_t, 2> kernel, const Pool2dOptions& options) {
  return make_pool(x, PoolMode::Avg, kernel, options);
}

}  // namespace tgc
