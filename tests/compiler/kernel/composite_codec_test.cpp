// The Composite codec: kernels lowered from real fused groups (elementwise, reductions with
// keepdims and epilogues, casts, constants no JSON number holds, inplace variants) come back
// as the same op with the same kernel bit for bit; malformed kernels and inplace maps are
// IOErrors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "compiler/kernel/composite_op.h"
#include "kernel_test_util.h"
#include "ops/core/apply.h"
#include "ops/reduce/careduce.h"
#include "support/catch_error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::shared_ptr<const Composite> composite_of(const std::vector<Var>& in, const std::vector<Var>& out) {
  return std::make_shared<const Composite>(lower_group(test::whole_group(in, out).group).kernel);
}

// The kernel with every constant as its bit pattern: == compares doubles as numbers, which
// makes NaN unequal to itself and -0.0 equal to 0.0.
struct ExactKernel {
  Kernel kernel;
  std::vector<uint64_t> constant_bits;
  explicit ExactKernel(Kernel k) : kernel(std::move(k)) {
    for (KernelValue& v : kernel.values) {
      constant_bits.push_back(std::bit_cast<uint64_t>(v.constant));
      v.constant = 0;
    }
  }
  bool operator==(const ExactKernel&) const = default;
};

// The op read back is the same op (equals, hash, name) over the same kernel and inplace map.
void expect_exact_round_trip(const Composite& op) {
  SCOPED_TRACE(op.kernel().str());
  testing::expect_codec_round_trip(op);
  std::shared_ptr<const Op> back = testing::codec_round_trip(op);
  const auto* c = dynamic_cast<const Composite*>(back.get());
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(ExactKernel(c->kernel()) == ExactKernel(op.kernel())) << c->kernel().str();
  EXPECT_EQ(c->kernel().hash(), op.kernel().hash());
  EXPECT_EQ(c->inplace_map(), op.inplace_map());
  if (op.kernel().str().find("nan") == std::string::npos) {
    EXPECT_TRUE(c->kernel() == op.kernel());
  }
}

Json written(const Op& op) {
  testing::MemoryOpContext ctx;
  return Json::parse(write_op(op, ctx).dump());
}

std::shared_ptr<const Op> read(const Json& j) {
  testing::MemoryOpContext ctx;
  return read_op(j, ctx);
}

std::string io_error_of(const Json& j) {
  return test::catch_error<IOError>([&] { read(j); }).what();
}

TEST(CompositeCodec, ElementwiseMultiOutput) {
  Var x = matrix("x"), y = matrix("y");
  Var a = tensor("a", DType::Float32, {3, -1}), b = tensor("b", DType::Float32, {1, 4});
  expect_exact_round_trip(*composite_of({x, y}, {x + y, x - y, exp(x) * y}));
  expect_exact_round_trip(*composite_of({a, b}, {a * b + 1.5, sigmoid(a), -b}));  // static dims, broadcasting
  Var i = tensor("i", DType::Int32, {-1}), f = vector("f", DType::Float64);
  expect_exact_round_trip(*composite_of({i, f}, {floor_div(i, 3), mod(i, 7), where(gt(f, 0), f, i)}));
}

TEST(CompositeCodec, ReductionsWithKeepdimsAndEpilogues) {
  Var x = matrix("x"), y = matrix("y"), b = vector("b"), c = tensor("c", DType::Float32, {-1, 1});
  expect_exact_round_trip(*composite_of({x, y, b}, {sum(x * y, 1) / 7 + b, max(x - y, 1)}));
  expect_exact_round_trip(*composite_of({x, c}, {sum(x * x, 1, true) * 2.0 + c}));
  expect_exact_round_trip(*composite_of({x}, {mean(exp(x), 0, true), min(x, 0, true)}));
  Var m = tensor3("m", DType::Float64);
  expect_exact_round_trip(*composite_of({m}, {sqrt(sum(sqr(m), {0, 2}))}));
  expect_exact_round_trip(*composite_of({x}, {all(gt(x, 0), 1), any(lt(x, -1), 1)}));
  Var i = matrix("i", DType::Int32);
  expect_exact_round_trip(*composite_of({i}, {mean(i, 1), prod(i, 1)}));
  // max with identity_when_empty (the softmax decomposition's shift).
  Var shift(apply1(std::make_shared<CAReduce>(ReduceKind::Max, std::vector<int>{1}, true, true), {x.ptr()}));
  auto op = composite_of({x}, {shift + 1.0});
  ASSERT_THAT(op->kernel().str(), HasSubstr("empty=identity"));
  expect_exact_round_trip(*op);
}

TEST(CompositeCodec, Casts) {
  Var a = matrix("a"), i = matrix("i", DType::Int32), u = vector("u", DType::UInt8), h = vector("h", DType::Float16);
  auto op = composite_of({a, i}, {a * i + i, cast(a, DType::Int64), cast(i, DType::Bool)});
  ASSERT_THAT(op->kernel().str(), HasSubstr("Cast{"));
  expect_exact_round_trip(*op);
  expect_exact_round_trip(*composite_of({u, h}, {u + h, cast(h, DType::Float64) * 0.1}));
}

TEST(CompositeCodec, ConstantsComeBackBitForBit) {
  Var x = matrix("x", DType::Float64), f = matrix("f");
  Var i = vector("i", DType::Int64);
  const int64_t big = (int64_t{1} << 62) + 1;  // no double holds it
  for (const auto& op : {composite_of({x}, {x * kInf, x - kInf, x + kNaN, x / -0.0, x / 0.0, x * 0.1}),
                         composite_of({f}, {f * kInf, f + kNaN, f / -0.0, f * 0.1}),
                         composite_of({i}, {i * constant(Tensor::scalar(big)) + std::numeric_limits<int64_t>::min(),
                                            i - constant(Tensor::scalar(std::numeric_limits<int64_t>::max()))})}) {
    expect_exact_round_trip(*op);
  }
  // 0.0 and -0.0 stay apart; a NaN keeps its payload.
  auto pos = composite_of({x}, {x / 0.0}), neg = composite_of({x}, {x / -0.0});
  EXPECT_FALSE(testing::codec_round_trip(*pos)->equals(*neg));
  Kernel k = pos->kernel();
  for (KernelValue& v : k.values)
    if (v.kind == KernelValue::Kind::Constant) v.constant = std::bit_cast<double>(uint64_t{0x7ff80000deadbeef});
  Composite payload(k);
  expect_exact_round_trip(payload);
  // The JSON holds the bit pattern, not a number that JSON could not hold.
  EXPECT_THAT(written(*neg).dump(), HasSubstr("\"8000000000000000\""));
  EXPECT_THAT(written(payload).dump(), HasSubstr("\"7ff80000deadbeef\""));
}

TEST(CompositeCodec, InplaceVariants) {
  Var x = matrix("x"), y = matrix("y");
  auto c = composite_of({x, y}, {exp(y) * 2.0 + x});
  auto variant = std::dynamic_pointer_cast<const Composite>(c->make_inplace(0, 0));
  ASSERT_NE(variant, nullptr);
  expect_exact_round_trip(*variant);
  EXPECT_FALSE(testing::codec_round_trip(*variant)->equals(*c));

  auto multi = composite_of({x, y}, {-x, sigmoid(y), x * y});
  auto first = std::dynamic_pointer_cast<const Composite>(multi->make_inplace(1, 1));
  ASSERT_NE(first, nullptr);
  auto both = std::dynamic_pointer_cast<const Composite>(first->make_inplace(2, 0));
  ASSERT_NE(both, nullptr);
  expect_exact_round_trip(*first);
  expect_exact_round_trip(*both);
  std::shared_ptr<const Op> back = testing::codec_round_trip(*both);
  EXPECT_EQ(back->inplace_input(1), 1);
  EXPECT_EQ(back->inplace_input(2), 0);
  // A map of -1 entries is kept as written (it is another op than the empty map).
  expect_exact_round_trip(Composite(multi->kernel(), {-1, -1, -1}));
}

TEST(CompositeCodec, MalformedKernelsAreIOErrors) {
  Var x = matrix("x"), y = matrix("y");
  auto op = composite_of({x, y}, {x * y + 2.0, x - y});
  const Json good = written(*op);
  ASSERT_NE(read(good), nullptr);
  const Json& values = good.at("fields").at("values");
  auto first_of_kind = [&](const char* kind) {
    size_t i = 0;
    while (i < values.size() && values[i].at("kind") != kind) ++i;
    return i;
  };
  const size_t m = first_of_kind("op"), c = first_of_kind("constant");
  ASSERT_LT(m, values.size());
  ASSERT_LT(c, values.size());
  ASSERT_EQ(values[m].at("args").size(), 2u);

  Json forward = good;
  forward["fields"]["values"][m]["args"][1] = m + 1;
  EXPECT_THAT(io_error_of(forward), HasSubstr("not an earlier value"));

  Json bad_op = good;
  bad_op["fields"]["values"][m]["op"] = "frobnicate";
  EXPECT_THAT(io_error_of(bad_op), HasSubstr("frobnicate"));

  Json bad_kind = good;
  bad_kind["fields"]["values"][m]["kind"] = "gather";
  EXPECT_THAT(io_error_of(bad_kind), HasSubstr("gather"));

  Json bad_constant = good;
  bad_constant["fields"]["values"][c]["constant"] = 2.0;
  EXPECT_THAT(io_error_of(bad_constant), HasSubstr("16 hex digits"));
  bad_constant["fields"]["values"][c]["constant"] = "40000000000000zz";
  EXPECT_THAT(io_error_of(bad_constant), HasSubstr("16 hex digits"));

  Json bad_load = good;
  bad_load["fields"]["values"][first_of_kind("load")]["input"] = 5;
  EXPECT_THAT(io_error_of(bad_load), HasSubstr("does not exist"));

  Json bad_output = good;
  bad_output["fields"]["outputs"][0]["value"] = 99;
  EXPECT_THAT(io_error_of(bad_output), HasSubstr("does not exist"));

  Json bad_dtype = good;
  bad_dtype["fields"]["outputs"][0]["dtype"] = "int32";
  EXPECT_THROW(read(bad_dtype), IOError);

  Json missing = good;
  missing["fields"].erase("values");
  EXPECT_THROW(read(missing), IOError);

  Json fractional = good;
  fractional["fields"]["ndim"] = 1.5;
  EXPECT_THAT(io_error_of(fractional), HasSubstr("the field 'ndim' holds no"));

  // Malformed reductions: a reduction op of no name, axes out of range.
  auto reduction = composite_of({x}, {sum(x, 1, true)});
  const Json r = written(*reduction);
  Json bad_reduce = r;
  for (Json& v : bad_reduce["fields"]["values"])
    if (v["kind"] == "reduce") v["reduce_op"] = "median";
  EXPECT_THAT(io_error_of(bad_reduce), HasSubstr("median"));
  Json bad_axes = r;
  bad_axes["fields"]["reduce_axes"] = {7};
  EXPECT_THAT(io_error_of(bad_axes), HasSubstr("reduce axis 7"));
}

TEST(CompositeCodec, InplaceMapsTgcWouldNotMakeAreIOErrors) {
  Var x = matrix("x"), y = matrix("y");
  auto multi = composite_of({x, y}, {-x, sigmoid(y)});
  Json j = written(*multi);
  j["fields"]["inplace"] = {1, -1};  // -x does not read y
  EXPECT_THAT(io_error_of(j), HasSubstr("in place"));
  j["fields"]["inplace"] = {0, 0, -1};  // one entry per output
  EXPECT_THAT(io_error_of(j), HasSubstr("inplace map"));
  j["fields"]["inplace"] = {-7, -1};
  EXPECT_THROW(read(j), IOError);
  j["fields"]["inplace"] = {0, 1};  // what make_inplace grants
  EXPECT_EQ(read(j)->inplace_input(1), 1);

  auto reduction = composite_of({x}, {sum(x * 2.0, 1, true)});
  Json r = written(*reduction);
  r["fields"]["inplace"] = {0};  // a reduction's loop space is wider than its output
  EXPECT_THAT(io_error_of(r), HasSubstr("in place"));
}

}  // namespace
}  // namespace tgc
