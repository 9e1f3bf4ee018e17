// Every row of the scalar-op table over every dtype combination it accepts — the dtype matrix
// of tests/data/elemwise/cases.json, on that file's edge values (NaN, infinities, signed
// zeros, integer limits) — called on long, short, reversed, strided and empty arguments; and
// integer division by zero and negative integer powers raising as the reference does.
// The rows of one dtype share their operands, so they compile into a few multi-output
// kernels rather than one kernel per row (the LLVM backend compiles each kernel once).
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "conformance/conformance.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "support/op_test_util.h"

namespace tgc::conformance {
namespace {

using nlohmann::json;

constexpr int64_t kLength = 101;  // past every vector width and unroll factor, with a tail

std::vector<json> load_cases() {
  std::ifstream in(std::string(TGC_TEST_DATA_DIR) + "/elemwise/cases.json");
  if (!in) return {};
  return json::parse(in).get<std::vector<json>>();
}

// The values of a cases.json argument list in `dtype` (integers read as int64: values beyond
// 2^53 must not pass through double).
Tensor tensor_of(const std::vector<json>& values, DType dtype) {
  if (!is_float(dtype)) {
    std::vector<int64_t> v;
    for (const json& x : values) v.push_back(x.get<int64_t>());
    return Tensor::from_vector(v).astype(dtype);
  }
  std::vector<double> v;
  for (const json& x : values) {
    if (!x.is_string()) {
      v.push_back(x.get<double>());
      continue;
    }
    const std::string s = x.get<std::string>();
    v.push_back(s == "nan"   ? std::numeric_limits<double>::quiet_NaN()
                : s == "inf" ? std::numeric_limits<double>::infinity()
                             : -std::numeric_limits<double>::infinity());
  }
  return Tensor::from_vector(v).astype(dtype);
}

// Libm rows: the LLVM backend calls libmvec, which may differ by a few double ulps.
bool transcendental(ScalarOpKind k) {
  using K = ScalarOpKind;
  switch (k) {
    // clang-format off
    case K::Pow: case K::Exp: case K::Exp2: case K::Expm1: case K::Log: case K::Log2: case K::Log10:
    case K::Log1p: case K::Sin: case K::Cos: case K::Tan: case K::Tanh: case K::Sinh: case K::Cosh:
    case K::Arcsin: case K::Arccos: case K::Arctan: case K::Arctan2: case K::Erf: case K::Erfc:
    case K::Sigmoid: case K::Softplus:
      return true;
    // clang-format on
    default: return false;
  }
}

// What an operand is for: rows read the first, second and third operand; integer floor
// division and modulo read a divisor without zeros, integer powers an exponent in [0, 4]
// (the reference raises on the others; integer_error_cases checks that separately).
enum class Role { First, Second, Third, Divisor, Exponent };

Role role_of(ScalarOpKind kind, size_t position) {
  if (position == 1 && (kind == ScalarOpKind::FloorDiv || kind == ScalarOpKind::Mod)) return Role::Divisor;
  if (position == 1 && kind == ScalarOpKind::Pow) return Role::Exponent;
  return position == 0 ? Role::First : position == 1 ? Role::Second : Role::Third;
}

// The edge values of cases.json for each dtype (every argument list of the entries whose
// inputs all have that dtype), and the operands of one case built over them: an input per
// (dtype, role) used, kLength elements long.
class Operands {
 public:
  explicit Operands(const std::vector<json>& cases) {
    for (const json& c : cases) {
      if (c.contains("error")) continue;
      std::set<std::string> dtypes;
      for (const json& t : c["in"]) dtypes.insert(t.get<std::string>());
      if (dtypes.size() != 1) continue;
      auto& pools = pools_[*dtypes.begin()];
      for (size_t i = 0; i < c["args"].size() && i < 3; ++i)
        for (const json& x : c["args"][i])
          if (std::find(pools[i].begin(), pools[i].end(), x) == pools[i].end()) pools[i].push_back(x);
    }
  }

  Var get(DType dtype, Role role) {
    const std::string key = std::string(dtype_name(dtype)) + "_" + role_name(role);
    if (auto it = vars_.find(key); it != vars_.end()) return it->second;
    Var v = vector(key, dtype);
    vars_[key] = v;
    inputs_.push_back(v);
    values_.push_back(values(dtype, role));
    return v;
  }

  const std::vector<Var>& inputs() const { return inputs_; }
  const std::vector<Tensor>& values() const { return values_; }

 private:
  static const char* role_name(Role r) {
    switch (r) {
      case Role::First: return "a";
      case Role::Second: return "b";
      case Role::Third: return "c";
      case Role::Divisor: return "divisor";
      case Role::Exponent: return "exponent";
    }
    return "?";
  }

  Tensor values(DType dtype, Role role) {
    const auto& pools = pools_.at(std::string(dtype_name(dtype)));
    const size_t pool = role == Role::First ? 0 : role == Role::Third ? 2 : 1;
    // Different phases per role: each pool's values meet many of the others'.
    Tensor t = tiled(tensor_of(pools[pool], dtype), kLength, static_cast<int64_t>(pool) * 3);
    if (is_float(dtype) || (role != Role::Divisor && role != Role::Exponent)) return t;
    std::vector<int64_t> v = t.astype(DType::Int64).to_vector<int64_t>();
    for (int64_t& x : v) {
      if (role == Role::Divisor && x == 0) x = 1;
      if (role == Role::Exponent) x = (x < 0 ? -(x + 1) : x) % 5;
    }
    return Tensor::from_vector(v).astype(dtype);
  }

  std::map<std::string, std::array<std::vector<json>, 3>> pools_;
  std::map<std::string, Var> vars_;
  std::vector<Var> inputs_;
  std::vector<Tensor> values_;
};

// One function over the entries `cases` (each an output): the rows applied to the operands
// of their dtypes, called with the values as they are, a short prefix (only the loop's
// tail), reversed, strided and empty.
Case rows_case(const std::string& name, const std::vector<json>& cases, const std::vector<json>& all, DType floatx) {
  Operands operands(all);
  Case k;
  k.name = name;
  k.config = {{"floatX", std::string(dtype_name(floatx))}};
  for (const json& c : cases) {
    const ScalarOpKind kind = *find_scalar_op(c["op"].get<std::string>());
    std::optional<DType> cast_to;
    if (c.contains("to")) cast_to = parse_dtype(c["to"].get<std::string>());
    std::vector<VarPtr> args;
    std::string label = c["op"].get<std::string>() + "(";
    for (size_t i = 0; i < c["in"].size(); ++i) {
      Var v = operands.get(parse_dtype(c["in"][i].get<std::string>()), role_of(kind, i));
      args.push_back(v.ptr());
      label += (i ? ", " : "") + v.name();
    }
    label += cast_to ? " -> " + std::string(dtype_name(*cast_to)) + ")" : ")";
    Var out(apply1(std::make_shared<Elemwise>(kind, cast_to, floatx), args));
    k.outputs.push_back(out.as(label));
    k.tolerances.push_back(transcendental(kind) ? libm_tolerance(kind) : kExact);
  }
  k.inputs = operands.inputs();
  const std::vector<Tensor>& values = operands.values();
  std::vector<Tensor> prefix, empty;
  for (const Tensor& v : values) {
    prefix.push_back(test::slice_view(v, 0, 0, 5).copy());
    empty.push_back(Tensor::empty(v.dtype(), {0}));
  }
  k.arg_sets = layouts(values);
  k.arg_sets.push_back(prefix);
  k.arg_sets.push_back(empty);
  return k;
}

// Entries whose inputs share one dtype, with floatX float64 (and every cast): one case per
// dtype. The others (mixed dtypes, floatX float32): one case.
std::vector<Case> scalar_row_cases() {
  const std::vector<json> entries = load_cases();
  EXPECT_FALSE(entries.empty()) << "missing " << TGC_TEST_DATA_DIR << "/elemwise/cases.json";
  std::map<std::string, std::vector<json>> by_dtype;
  std::vector<json> mixed;
  for (const json& c : entries) {
    if (c.contains("error")) continue;  // rejected when the graph is built, before any backend
    std::set<std::string> dtypes;
    for (const json& t : c["in"]) dtypes.insert(t.get<std::string>());
    const bool cast = c["op"] == "cast";
    if (dtypes.size() == 1 && (cast || c["floatx"] == "float64")) {
      by_dtype[*dtypes.begin()].push_back(c);
    } else {
      EXPECT_EQ(c["floatx"], "float32") << c.dump();
      mixed.push_back(c);
    }
  }
  std::vector<Case> out;
  size_t used = mixed.size();
  for (auto& [dtype, of_dtype] : by_dtype) {
    out.push_back(rows_case("rows over " + dtype, of_dtype, entries, DType::Float64));
    used += of_dtype.size();
  }
  out.push_back(rows_case("rows over mixed dtypes", mixed, entries, DType::Float32));
  EXPECT_EQ(used + 3, entries.size());  // all but the three TypeError entries
  return out;
}

// Integer division by zero and negative integer powers raise the reference's ValueError, also
// inside a fused chain, and a call without them still runs.
std::vector<Case> integer_error_cases() {
  std::vector<Case> out;
  for (DType t : {DType::Int8, DType::Int32, DType::Int64, DType::UInt8}) {
    Var a = vector("a", t), b = vector("b", t);
    const Tensor va = Tensor::from_vector(std::vector<int64_t>{7, 100, 3, 9, 4}).astype(t);
    const Tensor zero = Tensor::from_vector(std::vector<int64_t>{1, 2, 0, 3, 5}).astype(t);
    const Tensor fine = Tensor::from_vector(std::vector<int64_t>{1, 2, 4, 3, 2}).astype(t);
    const std::string name(dtype_name(t));
    out.push_back({.name = "floor_div chain " + name,
                   .inputs = {a, b},
                   .outputs = {floor_div(a, b) * 2 + a},
                   .arg_sets = {{va, zero}, {va, fine}}});
    out.push_back(
        {.name = "mod " + name, .inputs = {a, b}, .outputs = {mod(a, b)}, .arg_sets = {{va, zero}, {va, fine}}});
    // Integer powers once: each compiles slowly, and every dtype's power is in the rows.
    if (t != DType::Int32) continue;
    const Tensor negative = Tensor::from_vector(std::vector<int64_t>{1, 2, -1, 3, 0}).astype(t);
    out.push_back({.name = "pow " + name,
                   .inputs = {a, b},
                   .outputs = {pow(a, b) + 1},
                   .arg_sets = {{va, negative}, {va, fine}}});
  }
  return out;
}

[[maybe_unused]] const bool kRegistered =
    register_family("scalar-op rows", &scalar_row_cases) && register_family("integer errors", &integer_error_cases);

TEST_P(Conformance, EveryScalarOpRowOverItsDtypes) {
  const std::map<ScalarOpKind, int> before = counts(backend()).kernel_ops;
  expect_all_conform(&scalar_row_cases);
  // Each row reached a kernel: the backend rendered it rather than the optimizer removing it.
  const std::map<ScalarOpKind, int>& after = counts(backend()).kernel_ops;
  for (const ScalarOpInfo& row : scalar_op_table()) {
    const int n = (after.count(row.kind) ? after.at(row.kind) : 0) - (before.count(row.kind) ? before.at(row.kind) : 0);
    EXPECT_GT(n, 0) << "no kernel computed " << row.name;
  }
}

TEST_P(Conformance, IntegerDivisionByZeroAndNegativePowersRaiseAsTheReference) {
  expect_all_conform(&integer_error_cases);
}

}  // namespace
}  // namespace tgc::conformance
