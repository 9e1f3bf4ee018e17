// at_call: frontend argument checks report the user's call, as op checks do through apply().
#include "frontend/api/call_site.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tgc/tgc.h>

namespace tgc {
namespace {

using ::testing::HasSubstr;

TEST(AtCall, ReturnsTheValueAndFillsAnEmptyLocation) {
  EXPECT_EQ(at_call("f(x)", [] { return 3; }), 3);
  try {
    at_call("f(x)", []() -> int { throw ShapeError("f: bad axis", "", "hint"); });
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.where(), "f(x)");
    EXPECT_EQ(e.what_part(), "f: bad axis");
  }
  try {
    at_call("f(x)", []() -> int { throw ValueError("g: bad", "g(y)"); });
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_EQ(e.where(), "g(y)");  // a location already given is kept
  }
}

// Each frontend function that normalizes an axis before building an op names the call.
TEST(AtCall, BadAxesNameTheUsersCall) {
  Var x = matrix("x");
  auto where_of = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.where();
    }
    return std::string("no error");
  };
  EXPECT_EQ(where_of([&] { transpose(x, {0, 2}); }), "transpose(x)");
  EXPECT_EQ(where_of([&] { squeeze(x, {5}); }), "squeeze(x)");
  EXPECT_EQ(where_of([&] { expand_dims(x, 4); }), "expand_dims(x)");
  EXPECT_EQ(where_of([&] { take(x, vector("i", DType::Int64), 2); }), "take(x, i)");
  EXPECT_EQ(where_of([&] { sum(x, {2}); }), "sum(x)");
  EXPECT_EQ(where_of([&] { argmax(x, -3); }), "argmax(x)");
  EXPECT_EQ(where_of([&] { softmax(x, 2); }), "softmax(x)");
}

TEST(AtCall, ZeroDimAxisIsOnlyAcceptedByReductions) {
  Var s = scalar("s");
  EXPECT_NO_THROW(sum(s, {0}));
  EXPECT_NO_THROW(softmax(s, -1));
  try {
    squeeze(s, {0});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what_part(), HasSubstr("squeeze: axis 0 is out of bounds for a 0-d tensor"));
    EXPECT_EQ(e.hint(), "a 0-d tensor has no axes");
  }
}

}  // namespace
}  // namespace tgc
