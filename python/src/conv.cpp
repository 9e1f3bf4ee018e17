// Convolutional layers from Python, over <tgc/conv.h> and <tgc/norm.h>, with PyTorch's
// argument forms: stride/dilation an int or (h, w); padding "valid", "same", an int, (h, w)
// or (top, bottom, left, right); layout "NCHW" or "NHWC".
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"

namespace tgc::python {
namespace {

std::vector<int64_t> ints(nb::handle v) {
  if (PyLong_Check(v.ptr())) return {nb::cast<int64_t>(v)};
  std::vector<int64_t> out;
  for (nb::handle d : v) out.push_back(nb::cast<int64_t>(nb::int_(d)));
  return out;
}

std::array<int64_t, 2> pair_of(nb::handle v, const char* what) {
  const std::vector<int64_t> d = ints(v);
  if (d.size() == 1) return {d[0], d[0]};
  if (d.size() == 2) return {d[0], d[1]};
  throw ValueError(std::string(what) + " has " + std::to_string(d.size()) + " entries", "",
                   "give one int, or (height, width)");
}

ConvLayout layout_of(const std::string& s) {
  if (s == "NCHW") return ConvLayout::NCHW;
  if (s == "NHWC") return ConvLayout::NHWC;
  throw ValueError("layout \"" + s + "\"", "", "layout is \"NCHW\" or \"NHWC\"");
}

ConvPadding padding_of(nb::handle p) {
  if (nb::isinstance<nb::str>(p)) {
    const std::string s = nb::cast<std::string>(p);
    if (s == "valid") return ConvPadding::valid();
    if (s == "same") return ConvPadding::same();
    throw ValueError("padding \"" + s + "\"", "", "padding is \"valid\", \"same\", an int, (h, w) or (t, b, l, r)");
  }
  const std::vector<int64_t> d = ints(p);
  if (d.size() == 1) return ConvPadding(d[0]);
  if (d.size() == 2) return ConvPadding(d[0], d[1]);
  if (d.size() == 4) return ConvPadding(d[0], d[1], d[2], d[3]);
  throw ValueError("padding has " + std::to_string(d.size()) + " entries", "",
                   "padding is \"valid\", \"same\", an int, (h, w) or (t, b, l, r)");
}

Conv2dOptions conv_options(nb::handle stride, nb::handle padding, nb::handle dilation, int64_t groups,
                           const std::string& layout) {
  return {layout_of(layout), pair_of(stride, "stride"), padding_of(padding), pair_of(dilation, "dilation"), groups};
}

Pool2dOptions pool_options(nb::handle stride, nb::handle padding, bool ceil_mode, bool count_include_pad,
                           const std::string& layout) {
  Pool2dOptions o;
  o.layout = layout_of(layout);
  if (!stride.is_none()) o.stride = pair_of(stride, "stride");
  o.padding = pair_of(padding, "padding");
  o.ceil_mode = ceil_mode;
  o.count_include_pad = count_include_pad;
  return o;
}

BatchNormOptions norm_options(double epsilon, double momentum, const std::string& layout) {
  return {layout_of(layout), epsilon, momentum};
}

}  // namespace

void bind_conv(nb::module_& m) {
  m.def(
      "conv2d",
      [](nb::handle x, nb::handle w, nb::handle stride, nb::handle padding, nb::handle dilation, int64_t groups,
         const std::string& layout) {
        return conv2d(as_var(x), as_var(w), conv_options(stride, padding, dilation, groups, layout));
      },
      nb::arg("x"), nb::arg("w"), nb::arg("stride") = 1, nb::arg("padding") = "valid", nb::arg("dilation") = 1,
      nb::arg("groups") = 1, nb::arg("layout") = "NCHW",
      "2-d convolution (cross-correlation, as PyTorch); NCHW: x (N, C, H, W), w (O, C/groups, KH, KW); NHWC: x "
      "(N, H, W, C), w (O, KH, KW, C/groups).");
  m.def(
      "conv2d_grad_input",
      [](nb::handle dy, nb::handle w, nb::handle x_like, nb::handle stride, nb::handle padding, nb::handle dilation,
         int64_t groups, const std::string& layout) {
        return conv2d_grad_input(as_var(dy), as_var(w), as_var(x_like),
                                 conv_options(stride, padding, dilation, groups, layout));
      },
      nb::arg("dy"), nb::arg("w"), nb::arg("x_like"), nb::arg("stride") = 1, nb::arg("padding") = "valid",
      nb::arg("dilation") = 1, nb::arg("groups") = 1, nb::arg("layout") = "NCHW",
      "The gradient of conv2d(x, w) with respect to x given dy (x_like: any tensor of x's shape).");
  m.def(
      "conv2d_grad_weights",
      [](nb::handle x, nb::handle dy, nb::handle w_like, nb::handle stride, nb::handle padding, nb::handle dilation,
         int64_t groups, const std::string& layout) {
        return conv2d_grad_weights(as_var(x), as_var(dy), as_var(w_like),
                                   conv_options(stride, padding, dilation, groups, layout));
      },
      nb::arg("x"), nb::arg("dy"), nb::arg("w_like"), nb::arg("stride") = 1, nb::arg("padding") = "valid",
      nb::arg("dilation") = 1, nb::arg("groups") = 1, nb::arg("layout") = "NCHW",
      "The gradient of conv2d(x, w) with respect to w given dy (w_like: any tensor of w's shape).");
  m.def(
      "conv_transpose2d",
      [](nb::handle x, nb::handle w, nb::handle stride, nb::handle padding, nb::handle output_padding,
         nb::handle dilation, int64_t groups, const std::string& layout) {
        return conv_transpose2d(as_var(x), as_var(w), conv_options(stride, padding, dilation, groups, layout),
                                pair_of(output_padding, "output_padding"));
      },
      nb::arg("x"), nb::arg("w"), nb::arg("stride") = 1, nb::arg("padding") = 0, nb::arg("output_padding") = 0,
      nb::arg("dilation") = 1, nb::arg("groups") = 1, nb::arg("layout") = "NCHW",
      "PyTorch's conv_transpose2d: w (C_in, C_out/groups, KH, KW) in NCHW.");
  m.def(
      "max_pool2d",
      [](nb::handle x, nb::handle kernel, nb::handle stride, nb::handle padding, bool ceil_mode,
         const std::string& layout) {
        return max_pool2d(as_var(x), pair_of(kernel, "kernel"), pool_options(stride, padding, ceil_mode, true, layout));
      },
      nb::arg("x"), nb::arg("kernel"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
      nb::arg("ceil_mode") = false, nb::arg("layout") = "NCHW", "PyTorch's max_pool2d.");
  m.def(
      "avg_pool2d",
      [](nb::handle x, nb::handle kernel, nb::handle stride, nb::handle padding, bool ceil_mode,
         bool count_include_pad, const std::string& layout) {
        return avg_pool2d(as_var(x), pair_of(kernel, "kernel"),
                          pool_options(stride, padding, ceil_mode, count_include_pad, layout));
      },
      nb::arg("x"), nb::arg("kernel"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
      nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true, nb::arg("layout") = "NCHW",
      "PyTorch's avg_pool2d.");
  m.def(
      "batch_normalization_train",
      [](nb::handle x, nb::handle gamma, nb::handle beta, const Shared& running_mean, const Shared& running_var,
         double epsilon, double momentum, const std::string& layout) {
        BatchNormTrain r = batch_normalization_train(as_var(x), as_var(gamma), as_var(beta), running_mean, running_var,
                                                     norm_options(epsilon, momentum, layout));
        std::vector<std::pair<Shared, Var>> updates(r.updates.begin(), r.updates.end());
        return std::make_tuple(r.y, r.mean, r.var, updates);
      },
      nb::arg("x"), nb::arg("gamma"), nb::arg("beta"), nb::arg("running_mean"), nb::arg("running_var"),
      nb::arg("epsilon") = 1e-5, nb::arg("momentum") = 0.1, nb::arg("layout") = "NCHW",
      "Normalizes by the batch's per-channel statistics; returns (y, mean, var, updates), updates moving the shared "
      "running statistics by PyTorch's momentum rule (pass them to function's updates).");
  m.def(
      "batch_normalization_test",
      [](nb::handle x, nb::handle gamma, nb::handle beta, nb::handle mean, nb::handle var, double epsilon,
         const std::string& layout) {
        return batch_normalization_test(as_var(x), as_var(gamma), as_var(beta), as_var(mean), as_var(var),
                                        norm_options(epsilon, 0.1, layout));
      },
      nb::arg("x"), nb::arg("gamma"), nb::arg("beta"), nb::arg("mean"), nb::arg("var"), nb::arg("epsilon") = 1e-5,
      nb::arg("layout") = "NCHW", "Normalizes by given per-channel statistics (the running ones at inference).");
}

}  // namespace tgc::python
