// Index descriptions: printing (op names encode every parameter) and static result types.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;
using E = IndexEntry;

IndexSpec spec(std::vector<IndexEntry> entries) { return IndexSpec{std::move(entries)}; }

TEST(IndexSpec, PrintsLikePython) {
  EXPECT_EQ(E::integer(-3).str(), "-3");
  EXPECT_EQ(E::slice().str(), ":");
  EXPECT_EQ(E::slice(1, 5, 2).str(), "1:5:2");
  EXPECT_EQ(E::slice(std::nullopt, std::nullopt, -1).str(), "::-1");
  EXPECT_EQ(E::slice(2).str(), "2:");
  EXPECT_EQ(E::slice(std::nullopt, 3).str(), ":3");
  EXPECT_EQ(E::new_axis().str(), "newaxis");
  EXPECT_EQ(E::array().str(), "array");
}

TEST(IndexSpec, OpNamesEncodeTheIndex) {
  EXPECT_EQ(Subtensor(spec({E::integer(1), E::slice(std::nullopt, std::nullopt, 2)})).name(), "Subtensor{1, ::2}");
  EXPECT_EQ(Subtensor(spec({E::slice(-1, 2, -1), E::new_axis()})).name(), "Subtensor{-1:2:-1, newaxis}");
  EXPECT_EQ(AdvancedSubtensor(spec({E::slice(), E::array(), E::integer(1)})).name(),
            "AdvancedSubtensor{:, array, 1}");
  EXPECT_EQ(IncSubtensor(IncSubtensor::Mode::Set, spec({E::integer(1), E::slice(std::nullopt, std::nullopt, 2)}))
                .name(),
            "IncSubtensor{Set;1, ::2}");
  EXPECT_EQ(IncSubtensor(IncSubtensor::Mode::Inc, spec({E::array()})).name(), "IncSubtensor{Inc;array}");
  EXPECT_FALSE(Subtensor(spec({E::integer(1)})).equals(Subtensor(spec({E::integer(2)}))));
  EXPECT_FALSE(Subtensor(spec({E::slice(1)})).equals(Subtensor(spec({E::slice(std::nullopt, 1)}))));
  EXPECT_TRUE(Subtensor(spec({E::slice(1)})).equals(Subtensor(spec({E::slice(1)}))));
  EXPECT_FALSE(IncSubtensor(IncSubtensor::Mode::Set, spec({E::integer(0)}))
                   .equals(IncSubtensor(IncSubtensor::Mode::Inc, spec({E::integer(0)}))));
}

TEST(IndexSpec, BasicStaticTypes) {
  Type x(DType::Float32, {kUnknownDim, 5, 4});
  auto type = [&](std::vector<IndexEntry> e) { return Subtensor(spec(std::move(e))).infer_types({x})[0]; };
  EXPECT_EQ(type({E::integer(1)}), Type(DType::Float32, {5, 4}));
  EXPECT_EQ(type({E::slice(), E::slice(1, 4)}), Type(DType::Float32, {kUnknownDim, 3, 4}));
  EXPECT_EQ(type({E::slice(), E::slice(std::nullopt, std::nullopt, -2), E::new_axis()}),
            Type(DType::Float32, {kUnknownDim, 3, 1, 4}));
  EXPECT_EQ(type({E::slice(0, 1)}), Type(DType::Float32, {kUnknownDim, 5, 4}));  // 0 or 1: unknown
  EXPECT_EQ(type({E::integer(-1), E::integer(-5), E::integer(3)}), Type(DType::Float32, {}));
  EXPECT_EQ(type({E::new_axis(), E::slice(), E::integer(0), E::slice(10, 20)}),
            Type(DType::Float32, {1, kUnknownDim, 0}));
}

TEST(IndexSpec, StaticErrors) {
  Type x(DType::Float32, {kUnknownDim, 5});
  auto type = [&](std::vector<IndexEntry> e) { return Subtensor(spec(std::move(e))).infer_types({x})[0]; };
  EXPECT_THAT([&] { type({E::slice(), E::integer(5)}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("index 5 is out of bounds for axis 1 with size 5")));
  EXPECT_THAT([&] { type({E::slice(), E::integer(-6)}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("index -6 is out of bounds for axis 1 with size 5")));
  EXPECT_THAT([&] { type({E::integer(0), E::integer(0), E::integer(0)}); },
              ::testing::ThrowsMessage<TypeError>(
                  HasSubstr("too many indices for tensor: tensor is 2-dimensional, but 3 were indexed")));
  EXPECT_THAT([&] { type({E::slice(std::nullopt, std::nullopt, 0)}); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("slice step cannot be zero")));
  // newaxis does not count against the rank.
  EXPECT_NO_THROW(type({E::new_axis(), E::integer(0), E::new_axis(), E::integer(0)}));
}

TEST(IndexSpec, AdvancedStaticTypes) {
  Type x(DType::Int32, {7, kUnknownDim, 4});
  AdvancedSubtensor middle(spec({E::slice(), E::array(), E::array()}));
  // Arrays (2, 1) and (3,) broadcast to (2, 3), in place of axes 1 and 2.
  EXPECT_EQ(middle.infer_types({x, Type(DType::Int64, {2, 1}), Type(DType::UInt8, {3})})[0],
            Type(DType::Int32, {7, 2, 3}));
  // An unknown dim broadcast with 1 stays unknown; with a known size it takes it.
  EXPECT_EQ(middle.infer_types({x, Type(DType::Int64, {kUnknownDim}), Type(DType::Int64, {1})})[0],
            Type(DType::Int32, {7, kUnknownDim}));
  EXPECT_EQ(middle.infer_types({x, Type(DType::Int64, {kUnknownDim}), Type(DType::Int64, {5})})[0],
            Type(DType::Int32, {7, 5}));
  // Separated by a slice: the broadcast dims go first.
  AdvancedSubtensor apart(spec({E::array(), E::slice(), E::integer(2)}));
  EXPECT_EQ(apart.infer_types({x, Type(DType::Int16, {2, 3})})[0], Type(DType::Int32, {2, 3, kUnknownDim}));
}

TEST(IndexSpec, AdvancedStaticErrors) {
  Type x(DType::Float64, {4, 4});
  AdvancedSubtensor two(spec({E::array(), E::array()}));
  EXPECT_THAT([&] { two.infer_types({x, Type(DType::Int64, {2}), Type(DType::Int64, {3})}); },
              ::testing::ThrowsMessage<ShapeError>(
                  HasSubstr("indexing arrays could not be broadcast together with shapes (2,) (3,)")));
  AdvancedSubtensor one(spec({E::array()}));
  try {
    one.infer_types({x, Type(DType::Bool, {4})});
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("integer dtype, got bool"));
    EXPECT_THAT(e.hint(), HasSubstr("boolean mask indexing is not supported"));
  }
  EXPECT_THAT([&] { one.infer_types({x, Type(DType::Float32, {4})}); },
              ::testing::ThrowsMessage<TypeError>(HasSubstr("integer dtype, got float32")));
  EXPECT_THAT([&] { one.infer_types({x}); }, ::testing::ThrowsMessage<TypeError>(HasSubstr("takes 2 input(s), got 1")));
}

}  // namespace
}  // namespace tgc
