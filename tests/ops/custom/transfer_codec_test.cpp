// Codecs of the transfer family (kept here: the transfer ops have no test folder of their own):
// HostToDevice and DeviceToHost survive a saved function's JSON, and fields that are not an
// object are IOErrors.
#include <gtest/gtest.h>

#include "ops/core/op_codec.h"
#include "ops/transfer/transfer.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

TEST(TransferCodec, HostToDeviceAndDeviceToHost) {
  expect_codec_round_trip(HostToDevice());
  expect_codec_round_trip(DeviceToHost());
  EXPECT_TRUE(codec_round_trip(HostToDevice())->is_transfer());
  EXPECT_FALSE(codec_round_trip(HostToDevice())->equals(DeviceToHost()));
}

TEST(TransferCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  EXPECT_NO_THROW(read_op(Json{{"op", "HostToDevice"}}, ctx));
  EXPECT_THROW(read_op(Json{{"op", "HostToDevice"}, {"fields", "cuda"}}, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "DeviceToHost"}, {"fields", {1, 2}}}, ctx), IOError);
}

}  // namespace
}  // namespace tgc
