// Codecs of the conv family (ops/core/op_codec.h): every op keeps its Conv2dParams (layout,
// stride, padding or "same", dilation, groups, output_padding), checked on reading as the
// user's call checks them; Conv2dGradInput adds whether conv_transpose2d built it, FusedConv2d
// its epilogue (bias, or bias then relu).
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "ops/conv/conv2d.h"
#include "ops/conv/fused_conv2d.h"
#include "ops/conv/codec_fields.h"
#include "ops/core/op_codec.h"

namespace tgc {

ConvLayout layout_field(const Json& f, const char* key) {
  const std::string name = string_field(f, key);
  for (ConvLayout l : {ConvLayout::NCHW, ConvLayout::NHWC})
    if (name == layout_name(l)) return l;
  throw_bad_field(key, "layout NCHW or NHWC", f.at(key));
}

namespace {

Json params_to_json(const Conv2dParams& p) {
  return Json{{"layout", layout_name(p.layout)}, {"stride", p.stride},     {"dilation", p.dilation},
              {"pad", p.pad},                    {"same", p.same},         {"groups", p.groups},
              {"output_padding", p.output_padding}};
}

// The params of `f`, checked as conv2d() checks the user's (ValueError naming `tag`).
Conv2dParams params_from_json(const Json& f, const std::string& tag) {
  Conv2dParams p;
  p.layout = layout_field(f, "layout");
  p.stride = fixed_integers_field<int64_t, 2>(f, "stride");
  p.dilation = fixed_integers_field<int64_t, 2>(f, "dilation");
  p.pad = fixed_integers_field<int64_t, 4>(f, "pad");
  p.same = bool_field(f, "same");
  p.groups = integer_field<int64_t>(f, "groups");
  p.output_padding = fixed_integers_field<int64_t, 2>(f, "output_padding");
  p.check(tag);
  return p;
}

Json write_conv2d(const Conv2d& op, OpWriteContext&) { return params_to_json(op.params()); }
std::shared_ptr<const Op> read_conv2d(const Json& f, OpReadContext&) {
  return std::make_shared<Conv2d>(params_from_json(f, "Conv2d"));
}

Json write_grad_input(const Conv2dGradInput& op, OpWriteContext&) {
  Json f = params_to_json(op.params());
  f["transpose"] = op.transpose();
  return f;
}
std::shared_ptr<const Op> read_grad_input(const Json& f, OpReadContext&) {
  return std::make_shared<Conv2dGradInput>(params_from_json(f, "Conv2dGradInput"), bool_field(f, "transpose"));
}

Json write_grad_weights(const Conv2dGradWeights& op, OpWriteContext&) { return params_to_json(op.params()); }
std::shared_ptr<const Op> read_grad_weights(const Json& f, OpReadContext&) {
  return std::make_shared<Conv2dGradWeights>(params_from_json(f, "Conv2dGradWeights"));
}

// The epilogue always adds the bias (an input); relu is the only choice the op holds.
Json write_fused(const FusedConv2d& op, OpWriteContext&) {
  Json f = params_to_json(op.params());
  f["relu"] = op.relu();
  return f;
}
std::shared_ptr<const Op> read_fused(const Json& f, OpReadContext&) {
  return std::make_shared<FusedConv2d>(params_from_json(f, "FusedConv2d"), bool_field(f, "relu"));
}

[[maybe_unused]] const bool registered =
    register_op_codec<Conv2d>("Conv2d", write_conv2d, read_conv2d) &&
    register_op_codec<Conv2dGradInput>("Conv2dGradInput", write_grad_input, read_grad_input) &&
    register_op_codec<Conv2dGradWeights>("Conv2dGradWeights", write_grad_weights, read_grad_weights) &&
    register_op_codec<FusedConv2d>("FusedConv2d", write_fused, read_fused);

}  // namespace
}  // namespace tgc
