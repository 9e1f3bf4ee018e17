// Tests of Tensor::str() against what NumPy 1.24 prints with its default print options
// (legacy=False, precision=8, floatmode='maxprec'; not legacy='1.13', whose "[ 1.5 ...,"
// spacing the tutorial predates). float32 arrays print like NumPy prints them as float64.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/npy.h"
#include "runtime/random.h"
#include "runtime/tensor.h"

namespace tgc {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kFormatDir = std::string(TGC_TEST_DATA_DIR) + "/runtime/format";

TEST(TensorFormat, TutorialStyleFloat32) {
  // print(numpy.random.RandomState(22).rand(230400).astype(numpy.float32).astype(numpy.float64))
  Tensor x = RandomState(22).rand({230400}).astype(DType::Float32);
  EXPECT_EQ(x.str(), "[0.20846054 0.48168105 0.42053804 ... 0.79195946 0.83276892 0.48441973]");
}

TEST(TensorFormat, Floats) {
  EXPECT_EQ(Tensor::from_vector<double>({1.5, 2.25, -3.0}).str(), "[ 1.5   2.25 -3.  ]");
  EXPECT_EQ(Tensor::from_vector<double>({0.0, 2.0, 4.0}).str(), "[0. 2. 4.]");
  EXPECT_EQ(Tensor::from_vector<double>({1.0 / 3, 2.0 / 3}).str(), "[0.33333333 0.66666667]");
  // float32 0.1f is 0.100000001490116..., shown to 8 decimals.
  EXPECT_EQ(Tensor::from_vector<float>({0.1f, 1.2317803f}).str(), "[0.1        1.23178029]");
  EXPECT_EQ(Tensor::from_vector<double>({1e-5, 1.0, 123.0}).str(), "[1.00e-05 1.00e+00 1.23e+02]");
  EXPECT_EQ(Tensor::from_vector<double>({1.0, NAN, INFINITY, -INFINITY}).str(), "[  1.  nan  inf -inf]");
}

TEST(TensorFormat, IntsAndBools) {
  EXPECT_EQ(Tensor::from_vector<int64_t>({-5, 10, 300}).str(), "[ -5  10 300]");
  EXPECT_EQ(Tensor::from_vector<int32_t>({1, 2, 3, 4}, {2, 2}).str(), "[[1 2]\n [3 4]]");
  EXPECT_EQ(Tensor::from_vector<uint8_t>({0, 255}).str(), "[  0 255]");
  EXPECT_EQ(Tensor::from_vector<bool>({true, false}).str(), "[ True False]");
}

TEST(TensorFormat, ZeroDimensionalAndEmpty) {
  EXPECT_EQ(Tensor::scalar(1.5).str(), "1.5");
  EXPECT_EQ(Tensor::scalar(0.1f).str(), "0.1");  // like str(numpy.float32(0.1))
  EXPECT_EQ(Tensor::scalar(1e20).str(), "1e+20");
  EXPECT_EQ(Tensor::scalar(int64_t{-42}).str(), "-42");
  EXPECT_EQ(Tensor::scalar(true).str(), "True");
  EXPECT_EQ(Tensor::zeros(DType::Float64, {0}).str(), "[]");
  EXPECT_EQ(Tensor::zeros(DType::Int32, {3, 0, 2}).str(), "[]");
  EXPECT_EQ(Tensor().str(), "<undefined tensor>");
}

TEST(TensorFormat, StridedViews) {
  Tensor v = Tensor::from_vector<double>({1.5, 2.25, -3.0});
  EXPECT_EQ(v.view({3}, {-1}, 2).str(), "[-3.    2.25  1.5 ]");  // reversed
  Tensor b = Tensor::from_vector<int64_t>({1, 22}).broadcast_to({3, 2});
  EXPECT_EQ(b.str(), "[[ 1 22]\n [ 1 22]\n [ 1 22]]");
  Tensor m = Tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(m.transpose().str(), "[[1 4]\n [2 5]\n [3 6]]");
}

TEST(TensorFormat, SummarisesOnlyPastOneThousandElements) {
  std::vector<int64_t> v(1000);
  for (int64_t i = 0; i < 1000; ++i) v[i] = i;
  const std::string full = Tensor::from_vector(v).str();
  EXPECT_THAT(full, Not(HasSubstr("...")));
  EXPECT_THAT(full, StartsWith("[  0   1   2   3"));
  EXPECT_THAT(full, EndsWith(" 998 999]"));
  v.push_back(1000);
  EXPECT_EQ(Tensor::from_vector(v).str(), "[   0    1    2 ...  998  999 1000]");
}

// Every case the script wrote: format/<case>.npy printed must equal format/<case>.txt.
std::vector<std::string> format_cases() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kFormatDir))
    if (entry.path().extension() == ".npy") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class NumpyFormatCase : public ::testing::TestWithParam<std::string> {};

TEST_P(NumpyFormatCase, PrintsLikeNumpy) {
  const std::string name = GetParam();
  std::ifstream in(kFormatDir + "/" + name + ".txt", std::ios::binary);
  ASSERT_TRUE(in);
  const std::string want(std::istreambuf_iterator<char>(in), {});
  Tensor t = read_npy(kFormatDir + "/" + name + ".npy");
  if (name.rfind("transposed_", 0) == 0) t = t.transpose();
  EXPECT_EQ(t.str(), want) << "got:\n" << t.str() << "\nNumPy:\n" << want;
}

INSTANTIATE_TEST_SUITE_P(Numpy, NumpyFormatCase, ::testing::ValuesIn(format_cases()),
                         [](const auto& info) { return info.param; });

TEST(TensorFormat, AllNumpyCasesArePresent) {
  EXPECT_GE(format_cases().size(), 60u);  // a missing data folder must not pass silently
}

}  // namespace
}  // namespace tgc
