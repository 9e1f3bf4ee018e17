// Codecs of the collective family, which refuse: a collective runs over a group that only
// lives in this process, so saving one is a ValueError naming the op and its group (not the
// generic "no codec"), and a file naming one is an IOError.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "ops/collective/all_gather.h"
#include "ops/collective/all_reduce.h"
#include "ops/collective/broadcast.h"
#include "ops/collective/reduce_scatter.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using testing::MemoryOpContext;

TEST(CollectiveCodec, SavingNamesTheGroupAndTheReason) {
  // A group of two ranks made here: no communicator is made until a collective runs.
  auto group = std::make_shared<CommGroup>(0, 2, "dp_replicas");
  const std::vector<std::shared_ptr<const Op>> ops{
      std::make_shared<AllReduce>(CollectiveOpKind::Mean, group),
      std::make_shared<AllGather>(1, group),
      std::make_shared<ReduceScatter>(CollectiveOpKind::Sum, 0, group),
      std::make_shared<Broadcast>(1, group),
  };
  MemoryOpContext ctx;
  for (const auto& op : ops) {
    SCOPED_TRACE(op->name());
    EXPECT_TRUE(has_op_codec(*op));
    try {
      write_op(*op, ctx);
      ADD_FAILURE() << "a collective was written";
    } catch (const ValueError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("over group dp_replicas"), std::string::npos) << what;
      EXPECT_NE(what.find(op->name()), std::string::npos) << what;
      EXPECT_NE(what.find("a saved function runs in one process"), std::string::npos) << what;
      EXPECT_EQ(e.hint(), "save the function built without data_parallel / collectives");
    }
  }
}

TEST(CollectiveCodec, AFileNamingACollectiveIsAnIOError) {
  MemoryOpContext ctx;
  for (const char* tag : {"AllReduce", "AllGather", "ReduceScatter", "Broadcast"}) {
    SCOPED_TRACE(tag);
    EXPECT_THROW(read_op(Json{{"op", tag}, {"fields", Json::object()}}, ctx), IOError);
    EXPECT_THROW(read_op(Json{{"op", tag}, {"fields", {{"kind", "sum"}, {"group", "world"}}}}, ctx), IOError);
  }
}

}  // namespace
}  // namespace tgc
