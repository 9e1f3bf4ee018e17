// Codecs of the conv family: Conv2d, Conv2dGradInput (conv_transpose2d's too), Conv2dGradWeights
// and FusedConv2d survive a saved function's JSON with every Conv2dParams field (those the name
// leaves out included), and malformed or out-of-range fields are IOErrors.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "ops/conv/conv2d.h"
#include "ops/conv/fused_conv2d.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

// Parameter variants: the defaults, and each field away from its default.
std::vector<Conv2dParams> variants() {
  std::vector<Conv2dParams> out(1);
  Conv2dParams p;
  p.layout = ConvLayout::NHWC;
  out.push_back(p);
  p = {};
  p.stride = {2, 3};
  p.pad = {1, 0, 2, 1};
  out.push_back(p);
  p = {};
  p.dilation = {2, 1};
  p.groups = 4;
  out.push_back(p);
  p = {};
  p.same = true;
  p.dilation = {1, 3};
  out.push_back(p);
  p = {};
  p.stride = {3, 2};
  p.output_padding = {2, 1};
  p.layout = ConvLayout::NHWC;
  out.push_back(p);
  return out;
}

// Every field (operator== of the params), with both descriptions on a mismatch.
void expect_same_params(const Conv2dParams& a, const Conv2dParams& b) {
  EXPECT_TRUE(a == b) << a.describe() << " vs " << b.describe();
}

const Conv2dParams& params_of(const std::shared_ptr<const Op>& op) {
  return dynamic_cast<const ConvOpBase&>(*op).params();
}

TEST(ConvCodec, EveryOpWithEveryParamsVariant) {
  for (const Conv2dParams& p : variants()) {
    SCOPED_TRACE(p.describe());
    expect_codec_round_trip(Conv2d(p));
    expect_codec_round_trip(Conv2dGradInput(p, false));
    expect_codec_round_trip(Conv2dGradInput(p, true));
    expect_codec_round_trip(Conv2dGradWeights(p));
    expect_codec_round_trip(FusedConv2d(p, false));
    expect_codec_round_trip(FusedConv2d(p, true));
    expect_same_params(params_of(codec_round_trip(Conv2d(p))), p);
    expect_same_params(params_of(codec_round_trip(Conv2dGradWeights(p))), p);
  }
}

TEST(ConvCodec, FieldsTheNameLeavesOutAreKept) {
  // With "same" padding the name does not show the explicit pads, which the op still holds.
  Conv2dParams p;
  p.same = true;
  p.pad = {1, 2, 3, 4};
  expect_same_params(params_of(codec_round_trip(Conv2d(p))), p);
  auto gi = std::dynamic_pointer_cast<const Conv2dGradInput>(codec_round_trip(Conv2dGradInput(p, true)));
  ASSERT_TRUE(gi);
  EXPECT_TRUE(gi->transpose());
  EXPECT_EQ(gi->user_name(), "conv_transpose2d");
  expect_same_params(gi->params(), p);
  auto fused = std::dynamic_pointer_cast<const FusedConv2d>(codec_round_trip(FusedConv2d(p, true)));
  ASSERT_TRUE(fused);
  EXPECT_TRUE(fused->relu());
  expect_same_params(fused->params(), p);
}

TEST(ConvCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  const Json good = write_op(Conv2d(Conv2dParams{}), ctx);
  EXPECT_NO_THROW(read_op(good, ctx));
  EXPECT_THROW(read_op(Json{{"op", "Conv2d"}, {"fields", Json::object()}}, ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "layout", "NCWH"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "stride", {1, 1, 1}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "stride", {1, 1.5}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "pad", {0, 0}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "groups", "2"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "same", 1), ctx), IOError);
  // Out of range: the checks conv2d() makes of the user's values.
  EXPECT_THROW(read_op(with_field(good, "stride", {0, 1}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "groups", 0), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "pad", {0, -1, 0, 0}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "output_padding", {1, 0}), ctx), IOError);
  Json grad_input = write_op(Conv2dGradInput(Conv2dParams{}, true), ctx);
  grad_input["fields"].erase("transpose");
  EXPECT_THROW(read_op(grad_input, ctx), IOError);
  Json fused = write_op(FusedConv2d(Conv2dParams{}, true), ctx);
  fused["fields"]["relu"] = "yes";
  EXPECT_THROW(read_op(fused, ctx), IOError);
}

}  // namespace
}  // namespace tgc
