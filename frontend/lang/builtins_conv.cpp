// The .tg builtins of convolutional layers (<tgc/conv.h>, <tgc/norm.h>): conv2d, its two
// gradients, conv_transpose2d, max/avg pooling and batch normalization, with PyTorch's
// argument names (stride, padding="valid"|"same"|ints, dilation, groups, layout).
#include <fmt/format.h>

#include <tgc/conv.h>
#include <tgc/norm.h>

#include "frontend/lang/builtins.h"
#include "frontend/lang/convert.h"

namespace tgc::lang {

namespace {

// An int, or a list of two ints.
std::array<int64_t, 2> pair_of(Args& a, std::string_view name) {
  const std::vector<int64_t> v = a.int_list(name);
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1]};
  a.fail(name, fmt::format("{} has {} entries", a.what(name), v.size()), "give one int, or [height, width]");
}

ConvLayout layout_of(Args& a) {
  const std::string s = a.string("layout");
  if (s == "NCHW") return ConvLayout::NCHW;
  if (s == "NHWC") return ConvLayout::NHWC;
  a.fail("layout", fmt::format("{} is \"{}\"", a.what("layout"), s), "layout is \"NCHW\" or \"NHWC\"");
}

ConvPadding padding_of(Args& a) {
  const Value& v = a.value("padding");
  if (v.is_string()) {
    if (v.as_string() == "valid") return ConvPadding::valid();
    if (v.as_string() == "same") return ConvPadding::same();
    a.fail("padding", fmt::format("{} is \"{}\"", a.what("padding"), v.as_string()),
           "padding is \"valid\", \"same\", an int, [h, w] or [top, bottom, left, right]");
  }
  const std::vector<int64_t> p = a.int_list("padding");
  if (p.size() == 1) return ConvPadding(p[0]);
  if (p.size() == 2) return ConvPadding(p[0], p[1]);
  if (p.size() == 4) return ConvPadding(p[0], p[1], p[2], p[3]);
  a.fail("padding", fmt::format("{} has {} entries", a.what("padding"), p.size()),
         "padding is \"valid\", \"same\", an int, [h, w] or [top, bottom, left, right]");
}

Conv2dOptions conv_options(Args& a) {
  Conv2dOptions o;
  o.layout = layout_of(a);
  o.stride = pair_of(a, "stride");
  o.padding = padding_of(a);
  o.dilation = pair_of(a, "dilation");
  o.groups = a.integer("groups");
  return o;
}

Pool2dOptions pool_options(Args& a) {
  Pool2dOptions o;
  o.layout = layout_of(a);
  if (!a.is_none("stride")) o.stride = pair_of(a, "stride");
  o.padding = pair_of(a, "padding");
  o.ceil_mode = a.boolean("ceil_mode");
  return o;
}

BatchNormOptions norm_options(Args& a) {
  BatchNormOptions o;
  o.layout = layout_of(a);
  o.epsilon = a.number("epsilon");
  if (a.given("momentum")) o.momentum = a.number("momentum");
  return o;
}

Shared shared_arg(Args& a, std::string_view name) {
  const Value& v = a.value(name);
  if (!v.is_shared())
    a.fail(name, fmt::format("{} must be a shared variable, got {}", a.what(name), v.describe()),
           "the running statistics are updated in place: make them with shared(zeros(C)) / shared(ones(C))");
  return Shared(v.as_var().ptr());
}

}  // namespace

std::vector<BuiltinRow> conv_builtins() {
  constexpr const char* kConv = "stride=1, padding=\"valid\", dilation=1, groups=1, layout=\"NCHW\"";
  return {
      {"conv2d", std::string("x, w, ") + kConv,
       "2-d convolution (cross-correlation, as PyTorch); NCHW: x (N, C, H, W), w (O, C/groups, KH, KW); NHWC: x "
       "(N, H, W, C), w (O, KH, KW, C/groups); padding \"valid\", \"same\" (stride 1), an int, [h, w] or [top, "
       "bottom, left, right]; docs/conv.md",
       [](Args& a) -> Value { return conv2d(a.var("x"), a.var("w"), conv_options(a)); }},
      {"conv2d_grad_input", std::string("dy, w, x_like, ") + kConv,
       "the gradient of conv2d(x, w) with respect to x given dy (x_like: any tensor of x's shape)",
       [](Args& a) -> Value {
         return conv2d_grad_input(a.var("dy"), a.var("w"), a.var("x_like"), conv_options(a));
       }},
      {"conv2d_grad_weights", std::string("x, dy, w_like, ") + kConv,
       "the gradient of conv2d(x, w) with respect to w given dy (w_like: any tensor of w's shape)",
       [](Args& a) -> Value {
         return conv2d_grad_weights(a.var("x"), a.var("dy"), a.var("w_like"), conv_options(a));
       }},
      {"conv_transpose2d", std::string("x, w, ") + kConv + ", output_padding=0",
       "PyTorch's conv_transpose2d: w (C_in, C_out/groups, KH, KW) in NCHW; output_padding (< stride) adds rows "
       "and columns at the end",
       [](Args& a) -> Value {
         return conv_transpose2d(a.var("x"), a.var("w"), conv_options(a), pair_of(a, "output_padding"));
       }},
      {"max_pool2d", "x, kernel, stride=None, padding=0, ceil_mode=false, layout=\"NCHW\"",
       "PyTorch's max_pool2d: the max of each kernel window (stride: the kernel by default; padding at most half "
       "the kernel)",
       [](Args& a) -> Value { return max_pool2d(a.var("x"), pair_of(a, "kernel"), pool_options(a)); }},
      {"avg_pool2d", "x, kernel, stride=None, padding=0, ceil_mode=false, count_include_pad=true, layout=\"NCHW\"",
       "PyTorch's avg_pool2d: the mean of each window, the divisor counting padded cells unless count_include_pad "
       "is false",
       [](Args& a) -> Value {
         Pool2dOptions o = pool_options(a);
         o.count_include_pad = a.boolean("count_include_pad");
         return avg_pool2d(a.var("x"), pair_of(a, "kernel"), o);
       }},
      {"batch_normalization_train",
       "x, gamma, beta, running_mean, running_var, epsilon=1e-5, momentum=0.1, layout=\"NCHW\"",
       "normalizes by the batch's statistics per channel; gives (y, mean, var, updates), updates moving the shared "
       "running statistics by PyTorch's momentum rule (pass them to function's updates)",
       [](Args& a) -> Value {
         BatchNormTrain r = batch_normalization_train(a.var("x"), a.var("gamma"), a.var("beta"),
                                                      shared_arg(a, "running_mean"), shared_arg(a, "running_var"),
                                                      norm_options(a));
         std::vector<Value> updates;
         for (auto& [s, v] : r.updates) updates.push_back(Value::tuple({Value(Var(s)), Value(v)}));
         return Value::tuple({r.y, r.mean, r.var, Value::list(std::move(updates))});
       },
       Receiver::None, OnConcrete::Graph},  // its running statistics are shared variables: a graph's updates
      {"batch_normalization_test", "x, gamma, beta, mean, var, epsilon=1e-5, layout=\"NCHW\"",
       "normalizes by given per-channel statistics (the running ones at inference)",
       [](Args& a) -> Value {
         return batch_normalization_test(a.var("x"), a.var("gamma"), a.var("beta"), a.var("mean"), a.var("var"),
                                         norm_options(a));
       }},
  };
}

}  // namespace tgc::lang
