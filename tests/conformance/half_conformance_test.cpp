// The conformance suite in float16 and bfloat16 (docs/precision.md): the float rows of the
// scalar-op table applied one at a time to half operands, and half versions of the other
// families — each case's graph rebuilt with its float inputs and float constants in the half
// type (every op re-typed by its own type rule, as a user writing the graph in half would
// get), run on the same values rounded to the half type, against the original (float32 or
// float64) graph evaluated op by op on those values and rounded once to the half type at the
// end. A backend's fused kernels compute in float32 and round on store, so results differ by a
// few units of the type's epsilon, which is what the tolerances allow.
#include <array>
#include <limits>
#include <unordered_map>

#include "conformance/conformance.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"

namespace tgc::conformance {
namespace {

// ---- Half versions of the other families ------------------------------------------------

// `v` in half type `half` when it is a float, else v itself.
DType halved(DType t, DType half) { return is_float(t) ? half : t; }

// The graph of `outputs` rebuilt over `replacements` (input -> its half twin): every node's
// op applied again to its rebuilt inputs, so types follow from the half inputs; a float
// constant becomes a constant of the half type. Shared variables are kept.
std::vector<VarPtr> rebuilt(const std::vector<VarPtr>& outputs, std::unordered_map<const Variable*, VarPtr> mapping,
                            DType half) {
  std::vector<VarPtr> result;
  for (const VarPtr& out : outputs) {
    std::vector<std::pair<VarPtr, size_t>> stack{{out, 0}};
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (mapping.count(v.get())) {
        stack.pop_back();
        continue;
      }
      if (v->kind() == Variable::Kind::Constant) {
        const Tensor& value = v->constant_value();
        mapping[v.get()] = is_float(value.dtype()) ? Variable::constant(value.astype(half), v->name()) : v;
        stack.pop_back();
        continue;
      }
      if (v->kind() != Variable::Kind::Result) {
        mapping[v.get()] = v;
        stack.pop_back();
        continue;
      }
      Node* owner = v->owner();
      if (next < owner->inputs().size()) {
        VarPtr in = owner->inputs()[next++];
        if (!mapping.count(in.get())) stack.push_back({in, 0});
        continue;
      }
      std::vector<VarPtr> inputs;
      for (const VarPtr& in : owner->inputs()) inputs.push_back(mapping.at(in.get()));
      std::vector<VarPtr> outs = apply(owner->op_ptr(), std::move(inputs));
      for (int i = 0; i < owner->num_outputs(); ++i) mapping[owner->output_raw(i)] = outs.at(i);
      stack.pop_back();
    }
    result.push_back(mapping.at(out.get()));
  }
  return result;
}

// The half tolerance of a case: a few epsilons of the half type, relative and absolute
// (the families' values are of magnitude ~1, and a sum may cancel), for half outputs and
// for wider ones computed from half values.
Tolerance half_tolerance(DType half, double ulps) {
  const double eps = half == DType::Float16 ? 0x1p-10 : 0x1p-7;
  Tolerance t;
  t.half_ulps = ulps;
  t.half_atol = ulps * eps;
  t.rtol32 = t.rtol64 = ulps * eps;
  t.atol32 = t.atol64 = ulps * eps;
  return t;
}

// The families with half versions: their graphs use float ops on values of magnitude ~1.
// "gradients": the graphs grad() builds (the logistic regression's step, SumToLike,
// ReshapeLike, IncSubtensor, softmax and dot rules) evaluated in the half types: the
// gradient check of every op the family differentiates, with half tolerances.
constexpr std::array<const char*, 10> kHalvedFamilies = {
    "dot", "reduction kinds and axes", "prologue and epilogue", "broadcasting", "fused groups",
    "shape ops", "subtensors", "index ops", "softmax family", "gradients",
};

// Case i's half version, or nullopt where the graph has no half form (a rule that refuses
// half operands) or reads no float input.
std::optional<Case> half_version(const Case& c, DType half) {
  std::unordered_map<const Variable*, VarPtr> mapping;
  Case h;
  h.name = std::string(dtype_name(half)) + ": " + c.name;
  bool any_float = false;
  for (const Var& in : c.inputs) {
    const Type& t = in.ptr()->type();
    VarPtr twin = Variable::input(Type{halved(t.dtype, half), t.shape}, in.ptr()->name());
    any_float = any_float || is_float(t.dtype);
    mapping[in.ptr().get()] = twin;
    h.inputs.push_back(Var(twin));
  }
  if (!any_float) return std::nullopt;
  std::vector<VarPtr> outputs;
  for (const Var& o : c.outputs) outputs.push_back(o.ptr());
  try {
    for (const VarPtr& o : rebuilt(outputs, mapping, half)) h.outputs.push_back(Var(o));
  } catch (const TypeError&) {
    return std::nullopt;
  }
  for (const std::vector<Tensor>& args : c.arg_sets) {
    std::vector<Tensor> halves;
    for (const Tensor& a : args) halves.push_back(is_float(a.dtype()) ? a.astype(half) : a);
    h.arg_sets.push_back(std::move(halves));
  }
  // Sums and products of ~100 terms: the reference rounds each op's result to the half
  // type, the backends each fused group's; 8 epsilons cover the cases' few roundings apart.
  h.tolerance = half_tolerance(half, 8);
  h.config = c.config;
  // The reference: the wide graph on the same (half-rounded) values, rounded once at the end,
  // so an op-by-op rounding to the half type (log(1 - sigmoid(z)) with sigmoid rounded to 1)
  // does not stand for the exact answer.
  h.reference_inputs = c.inputs;
  h.reference_outputs = c.outputs;
  return h;
}

const std::vector<Case>& family_cases(const std::string& name) {
  static std::map<std::string, std::vector<Case>> built;
  auto it = built.find(name);
  if (it != built.end()) return it->second;
  for (const auto& [family, build] : families())
    if (family == name) return built[name] = build();
  ADD_FAILURE() << "no conformance family named '" << name << "'";
  return built[name];
}

template <size_t I, DType Half>
std::vector<Case> halved_family() {
  std::vector<Case> out;
  for (const Case& c : family_cases(kHalvedFamilies[I]))
    if (std::optional<Case> h = half_version(c, Half)) out.push_back(std::move(*h));
  return out;
}

template <DType Half, size_t... I>
bool register_halved(std::index_sequence<I...>) {
  return (register_family(std::string(dtype_name(Half)) + ": " + kHalvedFamilies[I], &halved_family<I, Half>) && ...);
}

// ---- Every float row on half operands -----------------------------------------------------

// Edge values of a half type: signed zeros, infinities, NaN, its largest and smallest
// normal and subnormal values, values that round in different directions, and an ordinary
// spread; `tail` values of [-3, 3) follow, so vector widths and tails are covered.
Tensor half_edge_values(DType half, int64_t tail, uint64_t seed) {
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.140625, 1e-3, -7.0, 100.0,
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  dispatch_dtype(half, [&]<typename H>() {
    if constexpr (is_half_type_v<H>) {
      v.push_back(static_cast<float>(std::numeric_limits<H>::max()));
      v.push_back(static_cast<float>(std::numeric_limits<H>::lowest()));
      v.push_back(static_cast<float>(std::numeric_limits<H>::min()));
      v.push_back(static_cast<float>(std::numeric_limits<H>::denorm_min()));
      v.push_back(-static_cast<float>(std::numeric_limits<H>::denorm_min()));
    }
  });
  RandomState rng(seed);
  Tensor spread = rng.uniform(-3.0, 3.0, {tail});
  for (double x : spread.to_vector<double>()) v.push_back(x);
  return Tensor::from_vector(v).astype(half);
}

// Each float row on half operands of one type, unary and binary rows in one multi-output
// kernel each (ternary ones as their own case), on the edge values against themselves
// reversed: every pair of edge values meets once.
std::vector<Case> half_row_cases_of(DType half) {
  std::vector<Case> out;
  const Tensor a = half_edge_values(half, 83, 1);
  const Tensor b = half_edge_values(half, 83, 2);
  const int64_t n = a.shape()[0];
  Var x = vector("x", half), y = vector("y", half), z = vector("z", half);
  Case unary{.name = std::string(dtype_name(half)) + " unary rows", .inputs = {x}};
  Case binary{.name = std::string(dtype_name(half)) + " binary rows", .inputs = {x, y}};
  for (const ScalarOpInfo& row : scalar_op_table()) {
    if (row.kind == ScalarOpKind::Cast) continue;  // casts: the cast rows below
    if (row.type_rule == TypeRule::Where) {
      Var c = vector("c", DType::Bool);
      Tensor cond = Tensor::from_vector(std::vector<double>(n, 0.0)).astype(DType::Bool);
      for (int64_t i = 0; i < n; i += 2) cond.data<bool>()[i] = true;
      out.push_back({.name = std::string(dtype_name(half)) + " where", .inputs = {c, x, y},
                     .outputs = {Var(apply1(std::make_shared<Elemwise>(row.kind), {c.ptr(), x.ptr(), y.ptr()}))},
                     .arg_sets = {{cond, a, b}}});
      continue;
    }
    std::vector<VarPtr> operands = {x.ptr(), y.ptr(), z.ptr()};
    operands.resize(row.arity);
    VarPtr r;
    try {
      r = apply1(std::make_shared<Elemwise>(row.kind), operands);
    } catch (const TypeError&) {
      continue;  // a row that takes no floats (bitwise ones)
    }
    if (row.arity == 1) unary.outputs.push_back(Var(r));
    else if (row.arity == 2) binary.outputs.push_back(Var(r));
    else
      out.push_back({.name = std::string(dtype_name(half)) + " " + std::string(row.name), .inputs = {x, y, z},
                     .outputs = {Var(r)}, .arg_sets = {{a, b, a}}});
  }
  unary.arg_sets = {{a}};
  binary.arg_sets = {{a, b}};
  out.push_back(std::move(unary));
  out.push_back(std::move(binary));
  // Casts to and from every dtype: integers saturate, bool is "nonzero", floats round once.
  Case casts{.name = std::string(dtype_name(half)) + " casts", .inputs = {x}};
  Var wide = vector("w", DType::Float64);
  Case rounding{.name = std::string(dtype_name(half)) + " rounding from float32 and float64", .inputs = {wide}};
  for (DType t : kAllDTypes) {
    casts.outputs.push_back(cast(x, t));
    if (is_float(t)) rounding.outputs.push_back(cast(cast(wide, t), half));
  }
  casts.arg_sets = {{a}};
  // Values between two halves, some exactly halfway (ties go to even).
  RandomState rng(3);
  std::vector<double> w = rng.uniform(-4.0, 4.0, {64}).to_vector<double>();
  for (double base : {1.0, 1.5, 1000.0, 0x1p-20})
    for (int k = 0; k < 4; ++k) w.push_back(base * (1 + (k + 0.5) * (half == DType::Float16 ? 0x1p-10 : 0x1p-7)));
  w.push_back(1e6);
  w.push_back(1e-9);
  w.push_back(3.4e38);
  rounding.arg_sets = {{Tensor::from_vector(w)}};
  out.push_back(std::move(casts));
  out.push_back(std::move(rounding));
  // One half ulp apart after a rounding of a float32 result: a row's float32 computation
  // rounded to half can differ by one unit from the reference's double rounded to half.
  for (Case& c : out) c.tolerance = half_tolerance(half, 1), c.tolerance.half_atol = 0;
  return out;
}

// ---- The gradient of every differentiable row, in the half types ---------------------------

// float64 graphs: d sum(row(x, y)) / dx and / dy for every float row with a gradient rule, on
// values inside every row's domain (0.25 to 1.75: logs, square roots, arcsin and arccos
// defined, no overflow in float16), ternary rows (clip) included. Their half versions are the
// half-precision gradient check of the scalar-op table: the gradient graphs grad() builds,
// evaluated in float16 and bfloat16 against the float64 gradients at the same half-rounded
// points.
std::vector<Case> row_gradient_cases() {
  RandomState rng(71);
  const DType f = DType::Float64;
  std::vector<Case> out;
  Var x = vector("x", f), y = vector("y", f), z = vector("z", f);
  const Tensor a = rng.uniform(0.25, 1.75, {37}), b = rng.uniform(0.25, 1.75, {37});
  // clip(c, lo, hi): some values below, between and above the bounds.
  const Tensor c = rng.uniform(0.0, 2.0, {37}), lo = rng.uniform(0.25, 0.75, {37}), hi = rng.uniform(1.25, 1.75, {37});
  Case unary{.name = "gradients of the unary rows", .inputs = {x}};
  Case binary{.name = "gradients of the binary rows", .inputs = {x, y}};
  for (const ScalarOpInfo& row : scalar_op_table()) {
    if (!row.grad || row.kind == ScalarOpKind::Cast || row.type_rule == TypeRule::Where) continue;
    if (row.kind == ScalarOpKind::Arcsin || row.kind == ScalarOpKind::Arccos) {
      // Their domain is [-1, 1]: on x / 2.
      Var r = Var(apply1(std::make_shared<Elemwise>(row.kind), {(x * 0.5).ptr()}));
      unary.outputs.push_back(grad(sum(r), x).as(std::string(row.name)));
      continue;
    }
    std::vector<VarPtr> operands = {x.ptr(), y.ptr(), z.ptr()};
    operands.resize(row.arity);
    Var r;
    try {
      r = Var(apply1(std::make_shared<Elemwise>(row.kind), operands));
    } catch (const TypeError&) {
      continue;
    }
    if (row.arity == 1) {
      unary.outputs.push_back(grad(sum(r), x).as(std::string(row.name)));
    } else if (row.arity == 2) {
      for (const Var& g : grad(sum(r), {x, y})) binary.outputs.push_back(g.as(std::string(row.name)));
    } else {
      std::vector<Var> g = grad(sum(r), {x, y, z}, GradOptions{.disconnected_inputs = DisconnectedInputs::Ignore});
      out.push_back({.name = "gradient of " + std::string(row.name), .inputs = {x, y, z}, .outputs = g,
                     .arg_sets = {{c, lo, hi}}});
    }
  }
  unary.arg_sets = {{a}};
  binary.arg_sets = {{a, b}};
  out.push_back(std::move(unary));
  out.push_back(std::move(binary));
  return out;
}

std::vector<Case> float16_row_cases() { return half_row_cases_of(DType::Float16); }
std::vector<Case> bfloat16_row_cases() { return half_row_cases_of(DType::BFloat16); }

[[maybe_unused]] const bool kRegistered =
    register_family("float16 rows", &float16_row_cases) && register_family("bfloat16 rows", &bfloat16_row_cases) &&
    register_halved<DType::Float16>(std::make_index_sequence<kHalvedFamilies.size()>()) &&
    register_halved<DType::BFloat16>(std::make_index_sequence<kHalvedFamilies.size()>());

TEST_P(Conformance, Float16Rows) { expect_all_conform(&float16_row_cases); }
TEST_P(Conformance, BFloat16Rows) { expect_all_conform(&bfloat16_row_cases); }

// On OpenCL this runs in the GPU suite, not on PoCL in CI (tests/conformance/CMakeLists.txt:
// its name matches the HalfVersions filter).
TEST_P(Conformance, HalfVersionsOfTheRowGradients) {
  size_t cases = 0;
  for (DType half : {DType::Float16, DType::BFloat16})
    for (const Case& c : row_gradient_cases())
      if (std::optional<Case> h = half_version(c, half)) {
        ++cases;
        // Each gradient is a few ops on half values (the row's rule, times the output's
        // gradient): 8 epsilons, as the other half versions; pow's and the hyperbolic rows'
        // gradients grow to ~10, where an epsilon of the result is 8x one at 1.
        h->tolerance = half_tolerance(half, 8);
        expect_conforms(*h);
      }
  EXPECT_GE(cases, 4u);
}

TEST_P(Conformance, HalfVersionsOfTheFamilies) {
  size_t cases = 0;
  for (DType half : {DType::Float16, DType::BFloat16})
    for (const char* family : kHalvedFamilies)
      for (const Case& c : family_cases(family))
        if (std::optional<Case> h = half_version(c, half)) {
          ++cases;
          expect_conforms(*h);
        }
  EXPECT_GT(cases, 50u) << "the half versions lost their cases";
}

}  // namespace
}  // namespace tgc::conformance
