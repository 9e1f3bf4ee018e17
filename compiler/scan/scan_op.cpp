// ScanOp: the layout's arithmetic, the type rule and the reference evaluation (the inner
// graph run by each op's perform(), through the one loop driver of scan_loop.h).
#include "compiler/scan/scan_op.h"

#include <functional>
#include <numeric>
#include <unordered_map>

#include "compiler/scan/scan_loop.h"
#include "ops/core/graph.h"
#include "runtime/error.h"

namespace tgc {

namespace {

int count_taps(const auto& items, auto member) {
  int n = 0;
  for (const auto& item : items) n += static_cast<int>((item.*member).size());
  return n;
}

}  // namespace

int ScanSpec::num_inner_inputs() const {
  return count_taps(sequences, &ScanSequence::offsets) + count_taps(states, &ScanState::taps) + num_non_sequences +
         count_taps(accumulations, &ScanAccumulation::offsets);
}

int ScanSpec::inner_sequence_input(int s, int j) const {
  int k = 0;
  for (int i = 0; i < s; ++i) k += static_cast<int>(sequences[i].offsets.size());
  return k + j;
}

int ScanSpec::inner_state_input(int s, int j) const {
  int k = count_taps(sequences, &ScanSequence::offsets);
  for (int i = 0; i < s; ++i) k += static_cast<int>(states[i].taps.size());
  return k + j;
}

int ScanSpec::inner_non_sequence_input(int k) const {
  return count_taps(sequences, &ScanSequence::offsets) + count_taps(states, &ScanState::taps) + k;
}

int ScanSpec::inner_accumulation_input(int a, int j) const {
  int k = inner_non_sequence_input(num_non_sequences);
  for (int i = 0; i < a; ++i) k += static_cast<int>(accumulations[i].offsets.size());
  return k + j;
}

int ScanSpec::first_accumulation_inner_output() const {
  return static_cast<int>(states.size()) + num_outputs_per_step;
}

int ScanSpec::inner_accumulation_output(int a, int j) const {
  int k = first_accumulation_inner_output();
  for (int i = 0; i < a; ++i) k += static_cast<int>(accumulations[i].offsets.size());
  return k + j;
}

int ScanSpec::num_inner_outputs() const {
  return first_accumulation_inner_output() + count_taps(accumulations, &ScanAccumulation::offsets) +
         (has_until ? 1 : 0);
}

int ScanSpec::num_node_outputs() const {
  return static_cast<int>(states.size()) + num_outputs_per_step + static_cast<int>(accumulations.size());
}

ScanOp::ScanOp(ScanSpec spec, std::vector<VarPtr> inner_inputs, std::vector<VarPtr> inner_outputs)
    : spec_(std::move(spec)), inner_inputs_(std::move(inner_inputs)), inner_outputs_(std::move(inner_outputs)) {
  TGC_INTERNAL_CHECK(static_cast<int>(inner_inputs_.size()) == spec_.num_inner_inputs(),
                     "Scan: " + std::to_string(inner_inputs_.size()) + " inner inputs for a layout of " +
                         std::to_string(spec_.num_inner_inputs()));
  TGC_INTERNAL_CHECK(static_cast<int>(inner_outputs_.size()) == spec_.num_inner_outputs(),
                     "Scan: " + std::to_string(inner_outputs_.size()) + " inner outputs for a layout of " +
                         std::to_string(spec_.num_inner_outputs()));
  for (const VarPtr& v : inner_inputs_)
    TGC_INTERNAL_CHECK(v->kind() == Variable::Kind::Input, "Scan: inner input " + v->label() + " is not a placeholder");
  TGC_INTERNAL_CHECK(!(spec_.has_until && spec_.reverse), "Scan: until in a reversed loop");
  TGC_INTERNAL_CHECK(!(spec_.truncate >= 0 && spec_.num_outputs_per_step > 0),
                     "Scan: truncation with per-step outputs");
  for (size_t s = 0; s < spec_.states.size(); ++s) {
    const ScanState& st = spec_.states[s];
    TGC_INTERNAL_CHECK(!st.taps.empty() && st.taps.back() < 0, "Scan: state taps must be negative");
    TGC_INTERNAL_CHECK(!st.init_is_single || st.taps == std::vector<int>{-1}, "Scan: a single initial state with taps");
    const Type& in = inner_inputs_[spec_.inner_state_input(static_cast<int>(s), 0)]->type();
    const Type& out = inner_outputs_[s]->type();
    TGC_INTERNAL_CHECK(in.dtype == out.dtype && in.ndim() == out.ndim(),
                       "Scan: state " + std::to_string(s) + " is " + in.str() + " but the step gives " + out.str());
  }
  for (size_t a = 0; a < spec_.accumulations.size(); ++a)
    for (size_t j = 0; j < spec_.accumulations[a].offsets.size(); ++j) {
      const Type& in = inner_inputs_[spec_.inner_accumulation_input(static_cast<int>(a), static_cast<int>(j))]->type();
      const Type& out = inner_outputs_[spec_.inner_accumulation_output(static_cast<int>(a), static_cast<int>(j))]->type();
      TGC_INTERNAL_CHECK(in.dtype == out.dtype && in.ndim() == out.ndim(), "Scan: accumulation row types differ");
    }
  if (spec_.has_until) {
    const Type& u = inner_outputs_.back()->type();
    TGC_INTERNAL_CHECK(u.ndim() == 0, "Scan: until condition is not a scalar");
  }
}

std::vector<Type> ScanOp::infer_types(const std::vector<Type>& inputs) const {
  const std::string op = "scan " + spec_.name;
  if (static_cast<int>(inputs.size()) != spec_.num_node_inputs())
    throw TypeError(op + ": takes " + std::to_string(spec_.num_node_inputs()) + " inputs, got " +
                    std::to_string(inputs.size()));
  if (spec_.n_steps_input) {
    const Type& n = inputs[0];
    if (n.ndim() != 0 || !is_integer(n.dtype))
      throw TypeError(op + ": n_steps must be an integer scalar, got " + n.str(), "",
                      "pass an int or an integer scalar variable");
  }
  auto check = [&](const Type& outer, const Type& inner, int extra_dims, const std::string& what) {
    if (outer.dtype != inner.dtype || outer.ndim() != inner.ndim() + extra_dims)
      throw TypeError(op + ": " + what + " is " + outer.str() + " but the step was built for " +
                      (extra_dims ? "rows of type " : "") + inner.str());
  };
  for (size_t s = 0; s < spec_.sequences.size(); ++s)
    check(inputs[spec_.first_sequence_input() + s],
          inner_inputs_[spec_.inner_sequence_input(static_cast<int>(s), 0)]->type(), 1,
          "sequence " + spec_.sequences[s].name);
  for (size_t s = 0; s < spec_.states.size(); ++s)
    check(inputs[spec_.first_state_input() + s], inner_inputs_[spec_.inner_state_input(static_cast<int>(s), 0)]->type(),
          spec_.states[s].init_is_single ? 0 : 1, "initial value " + std::to_string(s));
  for (size_t a = 0; a < spec_.accumulations.size(); ++a)
    check(inputs[spec_.first_accumulation_input() + a],
          inner_inputs_[spec_.inner_accumulation_input(static_cast<int>(a), 0)]->type(), 1,
          "accumulation " + spec_.accumulations[a].name);
  for (int k = 0; k < spec_.num_non_sequences; ++k)
    check(inputs[spec_.first_non_sequence_input() + k], inner_inputs_[spec_.inner_non_sequence_input(k)]->type(), 0,
          "non-sequence " + inner_inputs_[spec_.inner_non_sequence_input(k)]->name());

  std::vector<Type> out;
  for (size_t s = 0; s < spec_.states.size(); ++s) {
    // A history holds the initial rows and the step's results: a dim is known where both agree.
    const Type& in = inner_inputs_[spec_.inner_state_input(static_cast<int>(s), 0)]->type();
    const Type& step = inner_outputs_[s]->type();
    std::vector<int64_t> dims{kUnknownDim};
    for (int d = 0; d < in.ndim(); ++d) dims.push_back(in.shape[d] == step.shape[d] ? in.shape[d] : kUnknownDim);
    out.emplace_back(in.dtype, dims);
  }
  for (int k = 0; k < spec_.num_outputs_per_step; ++k) {
    const Type& step = inner_outputs_[spec_.states.size() + k]->type();
    std::vector<int64_t> dims{kUnknownDim};
    dims.insert(dims.end(), step.shape.begin(), step.shape.end());
    out.emplace_back(step.dtype, dims);
  }
  for (size_t a = 0; a < spec_.accumulations.size(); ++a) out.push_back(inputs[spec_.first_accumulation_input() + a]);
  return out;
}

std::vector<Shape> ScanOp::infer_shapes(const std::vector<Shape>& /*inputs*/) const {
  throw ShapeError("the shapes of scan " + spec_.name + "'s results depend on the values it runs on");
}

void ScanOp::validate(const std::vector<Tensor>& /*inputs*/) const {
  // What a loop raises depends on every step's values: nothing can be checked ahead without
  // running it. A Scan never writes a shared variable's buffer in place itself.
}

namespace {

// The inner graph, evaluated node by node with each op's reference perform().
class InnerEvaluator {
 public:
  explicit InnerEvaluator(const ScanOp& op) : graph_(Graph::clone_of(op.inner_inputs(), op.inner_outputs())) {
    order_ = graph_.toposort();
  }
  void operator()(const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    std::unordered_map<const Variable*, Tensor> values;
    for (size_t i = 0; i < in.size(); ++i) values[graph_.inputs()[i].get()] = in[i];
    auto value_of = [&](const VarPtr& v) -> Tensor {
      if (v->kind() == Variable::Kind::Constant) return v->constant_value();
      return values.at(v.get());
    };
    for (Node* n : order_) {
      std::vector<Tensor> args;
      for (const VarPtr& v : n->inputs()) args.push_back(value_of(v));
      std::vector<Tensor> res(n->num_outputs());
      try {
        n->op().perform(args, res);
      } catch (Error& e) {
        e.set_where_if_empty(n->describe());
        throw;
      }
      for (int k = 0; k < n->num_outputs(); ++k) values[n->output_raw(k)] = std::move(res[k]);
    }
    out.resize(graph_.outputs().size());
    for (size_t k = 0; k < out.size(); ++k) out[k] = value_of(graph_.outputs()[k]);
  }

 private:
  Graph graph_;
  std::vector<Node*> order_;
};

}  // namespace

void ScanOp::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  InnerEvaluator eval(*this);
  ScanLoopHooks hooks;
  hooks.step = [&](const std::vector<Tensor>& in, std::vector<Tensor>& out) { eval(in, out); };
  hooks.copy = [](const Tensor& src, const Tensor& dst) { copy_elements(src, dst); };
  for (int k = 0; k < spec_.num_outputs_per_step; ++k)
    hooks.per_step_types.push_back(inner_outputs_[spec_.states.size() + k]->type());
  run_scan(spec_, inputs, outputs, hooks);
}

size_t ScanOp::hash() const { return std::hash<const void*>()(this); }

std::shared_ptr<ScanOp> ScanOp::with_spec(ScanSpec spec) const {
  return std::make_shared<ScanOp>(std::move(spec), inner_inputs_, inner_outputs_);
}

}  // namespace tgc
