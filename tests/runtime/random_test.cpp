// Tests that RandomState reproduces numpy.random.RandomState bit for bit, against values
// NumPy 1.24 produced (scripts/test_data/runtime.py), and its argument errors.
#include "runtime/random.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/npy.h"

namespace tgc {
namespace {

using ::testing::HasSubstr;

Tensor expected(const std::string& name) {
  return read_npy(std::string(TGC_TEST_DATA_DIR) + "/runtime/random/" + name);
}

// Same dtype, shape and bytes: stricter than ==, which would let -0.0 pass for 0.0.
void expect_bit_identical(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  Tensor g = got.contiguous(), w = want.contiguous();
  ASSERT_EQ(g.nbytes(), w.nbytes());
  if (g.nbytes() == 0) return;
  if (std::memcmp(g.raw_data(), w.raw_data(), g.nbytes()) == 0) return;
  auto gv = g.to_vector<double>(), wv = w.to_vector<double>();
  for (size_t i = 0; i < gv.size(); ++i)
    if (std::memcmp(&gv[i], &wv[i], sizeof(double)) != 0) {
      ADD_FAILURE() << "first difference at element " << i << ": got " << gv[i] << ", NumPy has " << wv[i];
      return;
    }
  ADD_FAILURE() << "bytes differ";
}

template <typename Fn>
std::string value_error(Fn&& fn) {
  try {
    fn();
  } catch (const ValueError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ValueError";
  return "";
}

std::string seeded(const std::string& what, int64_t seed) {
  return what + "_seed" + std::to_string(seed) + ".npy";
}

TEST(RandomState, RandMatchesNumpy) {
  for (int64_t seed : {22, 1234}) {
    SCOPED_TRACE(seed);
    expect_bit_identical(RandomState(seed).rand({1000}), expected(seeded("rand", seed)));
  }
  // The smallest and largest seeds.
  for (int64_t seed : {int64_t{0}, int64_t{4294967295}}) {
    SCOPED_TRACE(seed);
    expect_bit_identical(RandomState(seed).rand({100}), expected(seeded("rand", seed)));
  }
}

TEST(RandomState, RandomSampleIsRandAndFillsInCOrder) {
  Tensor want = expected("rand_seed22.npy");
  Tensor t = RandomState(22).random_sample({10, 100});
  EXPECT_EQ(t.shape(), (Shape{10, 100}));
  expect_bit_identical(t.reshape({1000}), want);
  // A 0-d draw takes one value; an empty one takes none.
  RandomState rs(22);
  EXPECT_EQ(rs.rand({0, 3}).numel(), 0);
  EXPECT_EQ(rs.rand({}).item<double>(), want.at({0}));
  EXPECT_EQ(rs.rand({}).item<double>(), want.at({1}));
}

TEST(RandomState, TutorialDataMatchesNumpy) {
  // theano-using-the-gpu.rst: numpy.random.RandomState(22).rand(230400).
  Tensor t = RandomState(22).rand({230400});
  expect_bit_identical(t.view({10}, {1}, 230390), expected("rand_seed22_230400_tail.npy"));
}

TEST(RandomState, RandnMatchesNumpy) {
  for (int64_t seed : {22, 1234}) {
    SCOPED_TRACE(seed);
    expect_bit_identical(RandomState(seed).randn({1000}), expected(seeded("randn", seed)));
  }
}

TEST(RandomState, UniformAndNormalMatchNumpy) {
  expect_bit_identical(RandomState(22).uniform(-3.0, 5.0, {20, 25}), expected("uniform_seed22.npy"));
  expect_bit_identical(RandomState(1234).normal(2.5, 0.5, {301}), expected("normal_seed1234.npy"));
}

TEST(RandomState, RandintMatchesNumpyOnEveryPath) {
  // Mirrors RANDINT_CASES in scripts/test_data/runtime.py.
  struct Case {
    DType dtype;
    int64_t low, high;
  };
  const int64_t p31 = int64_t{1} << 31, p32 = int64_t{1} << 32, p40 = int64_t{1} << 40,
                p62 = int64_t{1} << 62, i64min = std::numeric_limits<int64_t>::min(),
                i64max = std::numeric_limits<int64_t>::max();
  const Case cases[] = {
      {DType::Int64, 0, 10}, {DType::Int64, -5, 5}, {DType::Int64, 5, 6}, {DType::Int64, 0, p31 - 1},
      {DType::Int64, 0, p31}, {DType::Int64, -p31, p31}, {DType::Int64, 0, p32}, {DType::Int64, 0, p32 + 1},
      {DType::Int64, 0, p40}, {DType::Int64, -p40, p40 + 17}, {DType::Int64, -p62, p62},
      {DType::Int64, i64min, i64max}, {DType::Int64, 1000, 1001 + (int64_t{1} << 33)},
      {DType::Int32, 0, 10}, {DType::Int32, -7, 1000}, {DType::Int32, -p31, p31 - 1}, {DType::Int32, 0, p31 - 1},
      {DType::Int16, -1000, 1000}, {DType::Int16, -32768, 32767}, {DType::Int8, -100, 100}, {DType::Int8, 0, 3},
      {DType::UInt8, 0, 256}, {DType::UInt8, 10, 20}, {DType::Bool, 0, 2}, {DType::Bool, 1, 2},
  };
  auto num = [](int64_t v) { return v < 0 ? "m" + std::to_string(v).substr(1) : std::to_string(v); };
  for (const Case& c : cases) {
    const std::string name = "randint_" + std::string(dtype_name(c.dtype)) + "_" + num(c.low) + "_" + num(c.high) + ".npy";
    SCOPED_TRACE(name);
    expect_bit_identical(RandomState(1234).randint(c.low, c.high, {10, 20}, c.dtype), expected(name));
  }
}

TEST(RandomState, StateCarriesAcrossMethodsAndSeedForgetsTheCachedGaussian) {
  // Mirrors the call sequence that wrote mixed_seed22.npy.
  RandomState rs(22);
  std::vector<Tensor> parts = {
      rs.rand({3}),
      rs.randn({5}),
      rs.randint(0, 100, {4}),
      rs.randn({1}),
      rs.uniform(1.0, 2.0, {2}),
      rs.randint(-(int64_t{1} << 40), int64_t{1} << 40, {3}),
      rs.randint(7, 8, {2}),
      rs.randn({2}),
      rs.randint(0, 10, {5}, DType::Int8),
      rs.rand({2}),
      rs.randn({3}),
  };
  rs.seed(1234);
  parts.push_back(rs.randn({2}));
  parts.push_back(rs.normal(-1.0, 3.0, {3}));
  parts.push_back(rs.randint(-3, 3, {4}, DType::Int32));
  parts.push_back(rs.rand({1}));
  std::vector<double> all;
  for (const Tensor& p : parts)
    for (double v : p.to_vector<double>()) all.push_back(v);
  expect_bit_identical(Tensor::from_vector(all), expected("mixed_seed22.npy"));
}

TEST(RandomState, ScalarDrawsContinueTheSameStream) {
  RandomState a(1234), b(1234);
  Tensor want = b.rand({2});
  EXPECT_EQ(a.next_double(), want.at({0}));
  EXPECT_EQ(a.next_double(), want.at({1}));
  // next_uint64 is two 32-bit words, the first in the high half.
  RandomState c(5), d(5);
  uint64_t hi = d.next_uint32(), lo = d.next_uint32();
  EXPECT_EQ(c.next_uint64(), hi << 32 | lo);
  // MT19937's well-known first output for seed 5489 (the reference implementation's default).
  EXPECT_EQ(RandomState(5489).next_uint32(), 3499211612u);
}

TEST(RandomState, Errors) {
  EXPECT_THAT(value_error([] { RandomState(-1); }), HasSubstr("seed -1 is out of range"));
  EXPECT_THAT(value_error([] { RandomState(int64_t{1} << 32); }), HasSubstr("between 0 and 2**32 - 1"));
  RandomState rs(0);
  EXPECT_THAT(value_error([&] { rs.seed(int64_t{1} << 32); }), HasSubstr("seed 4294967296 is out of range"));
  EXPECT_THAT(value_error([&] { rs.randint(5, 5, {1}); }), HasSubstr("randint: low >= high (low=5, high=5)"));
  EXPECT_THAT(value_error([&] { rs.randint(5, 5, {1}); }), HasSubstr("hint: randint draws from the half-open"));
  EXPECT_THAT(value_error([&] { rs.randint(-1, 10, {1}, DType::UInt8); }),
              HasSubstr("randint: low=-1 is out of bounds for uint8"));
  EXPECT_THAT(value_error([&] { rs.randint(0, 129, {1}, DType::Int8); }),
              HasSubstr("randint: high=129 is out of bounds for int8"));
  EXPECT_THAT(value_error([&] { rs.randint(0, 3, {1}, DType::Bool); }), HasSubstr("high=3 is out of bounds for bool"));
  EXPECT_THAT(value_error([&] { rs.rand({2, -1}); }), HasSubstr("negative dimensions are not allowed (shape (2, -1))"));
  EXPECT_THAT(value_error([&] { rs.randint(0, 2, {-3}); }), HasSubstr("randint: negative dimensions"));
  EXPECT_THAT(value_error([&] { rs.normal(0.0, -1.0, {2}); }), HasSubstr("normal: scale < 0"));
  EXPECT_THAT(value_error([&] { rs.uniform(0.0, INFINITY, {2}); }), HasSubstr("uniform: range high - low = inf is not finite"));
  try {
    rs.randint(0, 2, {1}, DType::Float32);
    ADD_FAILURE() << "no TypeError";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("randint: unsupported dtype float32"));
  }
  // A failed call draws nothing: the stream continues as if it had not happened.
  RandomState fresh(0);
  EXPECT_EQ(rs.rand({1}).item<double>(), fresh.rand({1}).item<double>());
}

}  // namespace
}  // namespace tgc
