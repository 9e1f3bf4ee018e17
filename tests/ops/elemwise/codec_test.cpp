// The codec of Elemwise: every scalar op, every cast target, floatX and every in-place input
// survive a saved function's JSON, field for field; malformed fields are IOErrors.
#include <gtest/gtest.h>

#include <memory>

#include "ops/core/op_codec.h"
#include "ops/elemwise/elemwise.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...

// The round trip, and the fields name() leaves out (floatX of a row that does not use it).
void expect_same_elemwise(const Elemwise& op) {
  expect_codec_round_trip(op);
  auto back = std::dynamic_pointer_cast<const Elemwise>(codec_round_trip(op));
  ASSERT_TRUE(back != nullptr) << op.name();
  EXPECT_EQ(back->kind(), op.kind()) << op.name();
  EXPECT_EQ(back->cast_to(), op.cast_to()) << op.name();
  EXPECT_EQ(back->floatx(), op.floatx()) << op.name();
  EXPECT_EQ(back->inplace_input(0), op.inplace_input(0)) << op.name();
}

TEST(ElemwiseCodec, EveryScalarOpWithEveryFloatX) {
  for (const ScalarOpInfo& row : scalar_op_table()) {
    if (row.kind == ScalarOpKind::Cast) continue;
    for (DType floatx : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16})
      expect_same_elemwise(Elemwise(row.kind, std::nullopt, floatx));
  }
}

TEST(ElemwiseCodec, CastToEveryDType) {
  for (DType to : kAllDTypes) {
    expect_same_elemwise(Elemwise(ScalarOpKind::Cast, to));
    expect_same_elemwise(Elemwise(ScalarOpKind::Cast, to, DType::Float64));
  }
}

TEST(ElemwiseCodec, EveryInplaceInput) {
  for (const ScalarOpInfo& row : scalar_op_table()) {
    const std::optional<DType> cast_to =
        row.kind == ScalarOpKind::Cast ? std::optional<DType>(DType::Int32) : std::nullopt;
    for (int input = -1; input < row.arity; ++input) {
      expect_same_elemwise(Elemwise(row.kind, cast_to, DType::Float32, input));
      expect_same_elemwise(Elemwise(row.kind, cast_to, DType::Float64, input));
    }
  }
  // The variant the inplace pass makes.
  auto inplace = Elemwise(ScalarOpKind::Where).make_inplace(0, 2);
  ASSERT_TRUE(inplace != nullptr);
  expect_same_elemwise(static_cast<const Elemwise&>(*inplace));
}

TEST(ElemwiseCodec, FloatXIsWrittenNotTakenFromTheConfig) {
  MemoryOpContext ctx;
  const Json j = write_op(Elemwise(ScalarOpKind::Add, std::nullopt, DType::Float64), ctx);
  EXPECT_EQ(j["op"], "Elemwise");
  EXPECT_EQ(j["fields"]["floatx"], "float64");
}

TEST(ElemwiseCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  const Json good = write_op(Elemwise(ScalarOpKind::Add, std::nullopt, DType::Float32, 1), ctx);
  ASSERT_NO_THROW(read_op(good, ctx));
  EXPECT_THROW(read_op(with_field(good, "scalar_op", 3), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "scalar_op", "frobnicate"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "cast_to", "float32"), ctx), IOError);  // add takes no target
  EXPECT_THROW(read_op(with_field(good, "cast_to", "float31"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "floatx", "int32"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "floatx", true), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "inplace", 2), ctx), IOError);  // add has inputs 0 and 1
  EXPECT_THROW(read_op(with_field(good, "inplace", -2), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "inplace", 1.0), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "inplace", "1"), ctx), IOError);
  EXPECT_THROW(read_op(with_field(good, "inplace", Json::parse("18446744073709551615")), ctx), IOError);
  Json cast = with_field(good, "scalar_op", "cast");  // cast needs a target
  cast["fields"]["inplace"] = 0;
  EXPECT_THROW(read_op(cast, ctx), IOError);
  Json missing = good;
  missing["fields"].erase("floatx");
  EXPECT_THROW(read_op(missing, ctx), IOError);
  EXPECT_THROW(read_op(Json{{"op", "Elemwise"}, {"fields", "add"}}, ctx), IOError);
}

}  // namespace
}  // namespace tgc
