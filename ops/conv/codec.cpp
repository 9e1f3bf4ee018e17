// Codecs of the conv family (ops/core/op_codec.h): every op keeps its Conv2dParams (layout,
// stride, padding or "same", dilation, groups, output_padding), checked on reading as the
// user's call checks them; Conv2dGradInput adds whether conv_transpose2d built it, FusedConv2d
// its epilogue (bias, or bias then relu).
#include <array>
#include <memory>

#include "ops/conv/conv2d.h"
#include "ops/conv/fused_conv2d.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// Exactly N integers (nlohmann's own conversion would take a longer array, or 1.5 as 1).
template <size_t N>
std::array<int64_t, N> ints_from_json(const Json& j, const std::string& tag, const char* field) {
  std::array<int64_t, N> out{};
  bool ok = j.is_array() && j.size() == N;
  for (size_t i = 0; ok && i < N; ++i) {
    ok = j[i].is_number_integer();
    if (ok) out[i] = j[i].get<int64_t>();
  }
  if (!ok) throw IOError(tag + ": the field '" + field + "' is not " + std::to_string(N) + " integers: " + j.dump());
  return out;
}

ConvLayout layout_from_json(const Json& j, const std::string& tag) {
  for (ConvLayout l : {ConvLayout::NCHW, ConvLayout::NHWC})
    if (j.is_string() && j.get<std::string>() == layout_name(l)) return l;
  throw IOError(tag + ": the layout is not NCHW or NHWC: " + j.dump());
}

Json params_to_json(const Conv2dParams& p) {
  return Json{{"layout", layout_name(p.layout)}, {"stride", p.stride},     {"dilation", p.dilation},
              {"pad", p.pad},                    {"same", p.same},         {"groups", p.groups},
              {"output_padding", p.output_padding}};
}

// The params of `f`, checked as conv2d() checks the user's (ValueError naming `tag`).
Conv2dParams params_from_json(const Json& f, const std::string& tag) {
  Conv2dParams p;
  p.layout = layout_from_json(f.at("layout"), tag);
  p.stride = ints_from_json<2>(f.at("stride"), tag, "stride");
  p.dilation = ints_from_json<2>(f.at("dilation"), tag, "dilation");
  p.pad = ints_from_json<4>(f.at("pad"), tag, "pad");
  p.same = f.at("same").get<bool>();
  const Json& groups = f.at("groups");
  if (!groups.is_number_integer()) throw IOError(tag + ": the field 'groups' is not an integer: " + groups.dump());
  p.groups = groups.get<int64_t>();
  p.output_padding = ints_from_json<2>(f.at("output_padding"), tag, "output_padding");
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
  return std::make_shared<Conv2dGradInput>(params_from_json(f, "Conv2dGradInput"), f.at("transpose").get<bool>());
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
  return std::make_shared<FusedConv2d>(params_from_json(f, "FusedConv2d"), f.at("relu").get<bool>());
}

[[maybe_unused]] const bool registered =
    register_op_codec<Conv2d>("Conv2d", write_conv2d, read_conv2d) &&
    register_op_codec<Conv2dGradInput>("Conv2dGradInput", write_grad_input, read_grad_input) &&
    register_op_codec<Conv2dGradWeights>("Conv2dGradWeights", write_grad_weights, read_grad_weights) &&
    register_op_codec<FusedConv2d>("FusedConv2d", write_fused, read_fused);

}  // namespace
}  // namespace tgc
