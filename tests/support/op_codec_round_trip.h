// Test helper for the op codecs (ops/core/op_codec.h): writes an op, prints and parses the
// JSON as a file would, reads it back, and checks the copy is the same op (equals() and
// name()). Tensors an op holds are kept in memory; graphs are refused (ops holding graphs are
// tested through compiler/serialize's graph codec).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "ops/core/op_codec.h"

namespace tgc::testing {

class MemoryOpContext final : public OpWriteContext, public OpReadContext {
 public:
  Json tensor(const Tensor& value) override {
    tensors_.push_back(value.to_host());
    return static_cast<int64_t>(tensors_.size() - 1);
  }
  Json graph(const std::vector<VarPtr>& /*inputs*/, const std::vector<VarPtr>& /*outputs*/) override {
    ADD_FAILURE() << "MemoryOpContext cannot write graphs";
    return Json();
  }
  Tensor tensor(const Json& ref) override { return tensors_.at(ref.get<size_t>()); }
  Subgraph graph(const Json& /*ref*/) override {
    ADD_FAILURE() << "MemoryOpContext cannot read graphs";
    return {};
  }

 private:
  std::vector<Tensor> tensors_;
};

// The op read back from `op`'s JSON (printed and parsed again, as a file holds it).
inline std::shared_ptr<const Op> codec_round_trip(const Op& op) {
  MemoryOpContext ctx;
  const std::string text = write_op(op, ctx).dump();
  return read_op(Json::parse(text), ctx);
}

// Asserts that `op` survives the round trip as the same op.
inline void expect_codec_round_trip(const Op& op) {
  std::shared_ptr<const Op> back = codec_round_trip(op);
  ASSERT_TRUE(back != nullptr) << op.name();
  EXPECT_EQ(typeid(*back), typeid(op)) << op.name();
  EXPECT_EQ(back->name(), op.name());
  EXPECT_TRUE(back->equals(op)) << op.name() << " read back as " << back->name();
  EXPECT_EQ(back->hash(), op.hash()) << op.name();
}

// An op's JSON (write_op's {"op", "fields"}) with one field replaced, or removed: the
// malformed files the codecs' tests feed read_op.
inline Json with_field(Json op, const char* key, Json value) {
  op["fields"][key] = std::move(value);
  return op;
}
inline Json without_field(Json op, const char* key) {
  op["fields"].erase(key);
  return op;
}

}  // namespace tgc::testing
