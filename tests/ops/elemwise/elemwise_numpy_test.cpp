// Every scalar op, for every input dtype it accepts, against NumPy-derived values
// (tests/data/elemwise/cases.json, written by scripts/test_data/elemwise.py). Each case
// runs on contiguous inputs and again on negative-stride views of the same values.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "ops/elemwise/elemwise.h"
#include "runtime/error.h"
#include "support/op_test_util.h"

namespace tgc {
namespace {

using nlohmann::json;
using namespace test;

std::vector<json> load_cases() {
  std::ifstream in(std::string(TGC_TEST_DATA_DIR) + "/elemwise/cases.json");
  if (!in) return {};
  return json::parse(in).get<std::vector<json>>();
}

const std::vector<json>& cases() {
  static const std::vector<json> all = load_cases();
  return all;
}

template <typename T>
T value_of(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    double d = s == "nan"   ? std::numeric_limits<double>::quiet_NaN()
               : s == "inf" ? std::numeric_limits<double>::infinity()
                            : -std::numeric_limits<double>::infinity();
    return static_cast<T>(d);
  }
  if constexpr (is_float_type_v<T>)
    return static_cast<T>(v.get<double>());
  else if constexpr (std::is_same_v<T, bool>)
    return v.get<int64_t>() != 0;
  else
    return static_cast<T>(v.get<int64_t>());
}

Tensor tensor_of(const json& values, DType dtype) {
  return dispatch_dtype(dtype, [&]<typename T>() {
    std::vector<T> v;
    for (const json& x : values) v.push_back(value_of<T>(x));
    return Tensor::from_vector(v);
  });
}

std::string case_name(const json& c) {
  std::string name = c["op"].get<std::string>();
  for (const json& t : c["in"]) name += "_" + t.get<std::string>();
  if (c.contains("to")) name += "_to_" + c["to"].get<std::string>();
  if (c.contains("floatx") && c["op"] != "cast") name += "_fx_" + c["floatx"].get<std::string>();
  return name;
}

class NumPyCase : public ::testing::TestWithParam<size_t> {};

TEST(NumPyCases, FileIsPresentAndCoversEveryScalarOp) {
  ASSERT_FALSE(cases().empty()) << "missing " << TGC_TEST_DATA_DIR
                                << "/elemwise/cases.json; run scripts/test_data/elemwise.py";
  for (const ScalarOpInfo& row : scalar_op_table()) {
    std::set<std::string> dtypes;
    for (const json& c : cases())
      if (c["op"] == row.name) dtypes.insert(c["in"][0].get<std::string>());
    // Every dtype but the half types, which the file (NumPy 1.24's computations) leaves to
    // tests/conformance/half_conformance_test.cpp and tests/runtime/half_types_test.cpp.
    EXPECT_EQ(dtypes.size(), std::size(kAllDTypes) - 2)
        << row.name << " is not covered for every dtype";
  }
}

TEST_P(NumPyCase, MatchesNumPy) {
  const json& c = cases()[GetParam()];
  SCOPED_TRACE(c.dump());
  const ScalarOpKind kind = *find_scalar_op(c["op"].get<std::string>());
  const DType floatx = parse_dtype(c["floatx"].get<std::string>());
  std::optional<DType> cast_to;
  if (c.contains("to")) cast_to = parse_dtype(c["to"].get<std::string>());

  std::vector<DType> in_dtypes;
  for (const json& t : c["in"]) in_dtypes.push_back(parse_dtype(t.get<std::string>()));
  if (c.contains("error")) {
    Elemwise op(kind, cast_to, floatx);
    std::vector<Tensor> in;
    for (DType t : in_dtypes) in.push_back(Tensor::zeros(t, {2}));
    std::vector<Tensor> out(1);
    EXPECT_THROW(op.perform(in, out), TypeError);
    std::vector<Type> types;
    for (DType t : in_dtypes) types.push_back(Type(t, {2}));
    EXPECT_THROW(op.infer_types(types), TypeError);
    return;
  }

  std::vector<Tensor> inputs, reversed;
  for (size_t k = 0; k < in_dtypes.size(); ++k) {
    inputs.push_back(tensor_of(c["args"][k], in_dtypes[k]));
    reversed.push_back(reversed_layout(inputs.back(), 0));  // stored backwards
  }
  const DType out_dtype = parse_dtype(c["out"].get<std::string>());
  const Tensor expected = tensor_of(c["expect"], out_dtype);
  // Floats: tgc rounds a double result once; NumPy's double functions may differ from
  // glibc's in the last bit, which can move a float32 result by one ulp.
  const double rtol = out_dtype == DType::Float32   ? 2.4e-7
                      : out_dtype == DType::Float64 ? 4e-15
                                                    : 0;

  Elemwise op(kind, cast_to, floatx);
  std::vector<Type> types;
  for (const Tensor& t : inputs) types.push_back(Type(t.dtype(), t.shape()));
  EXPECT_EQ(op.infer_types(types)[0], Type(out_dtype, expected.shape()));

  EXPECT_TRUE(same_values(run_op(op, inputs), expected, rtol));
  EXPECT_TRUE(same_values(run_op(op, reversed), expected, rtol))
      << "through negative-stride views";
}

INSTANTIATE_TEST_SUITE_P(Cases, NumPyCase, ::testing::Range<size_t>(0, cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::to_string(info.param) + "_" + case_name(cases()[info.param]);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(NumPyCase);

}  // namespace
}  // namespace tgc
