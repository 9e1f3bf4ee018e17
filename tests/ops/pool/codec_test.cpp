// Codecs of the pool family: Pool2d and Pool2dGrad survive a saved function's JSON with every
// Pool2dParams field (count_include_pad of a max pooling, which its name leaves out, included),
// and malformed or out-of-range fields are IOErrors.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "ops/core/op_codec.h"
#include "ops/pool/pool2d.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

std::vector<Pool2dParams> variants() {
  std::vector<Pool2dParams> out;
  for (PoolMode mode : {PoolMode::Max, PoolMode::Avg})
    for (bool include_pad : {true, false}) {
      Pool2dParams p;
      p.mode = mode;
      p.count_include_pad = include_pad;
      out.push_back(p);
      p.layout = ConvLayout::NHWC;
      p.kernel = {3, 5};
      p.stride = {1, 2};
      p.pad = {1, 2};
      p.ceil_mode = true;
      out.push_back(p);
    }
  return out;
}

// Every field (operator== of the params), with both descriptions on a mismatch.
void expect_same_params(const Pool2dParams& a, const Pool2dParams& b) {
  EXPECT_TRUE(a == b) << a.describe() << " vs " << b.describe();
}

TEST(PoolCodec, Pool2dAndItsGradientWithEveryVariant) {
  for (const Pool2dParams& p : variants()) {
    SCOPED_TRACE(p.describe());
    expect_codec_round_trip(Pool2d(p));
    expect_codec_round_trip(Pool2dGrad(p));
    auto pool = std::dynamic_pointer_cast<const Pool2d>(codec_round_trip(Pool2d(p)));
    ASSERT_TRUE(pool);
    expect_same_params(pool->params(), p);
    auto grad = std::dynamic_pointer_cast<const Pool2dGrad>(codec_round_trip(Pool2dGrad(p)));
    ASSERT_TRUE(grad);
    expect_same_params(grad->params(), p);
  }
}

TEST(PoolCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  const Json good = write_op(Pool2d(Pool2dParams{}), ctx);
  EXPECT_NO_THROW(read_op(good, ctx));
  EXPECT_THROW(read_op(Json{{"op", "Pool2dGrad"}, {"fields", Json::object()}}, ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "mode", "min"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "layout", 0), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "kernel", {2}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "stride", {2, "2"}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "ceil_mode", "false"), ctx), IOError);
  // Out of range: the checks max_pool2d() makes of the user's values.
  EXPECT_THROW(read_op(with_field(good, "kernel", {0, 2}), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "pad", {2, 0}), ctx), IOError);
}

}  // namespace
}  // namespace tgc
