// build_scan(): from the user's step function to a ScanOp node and the user's results
// (histories without their initial rows, updates' last values).
#include "compiler/scan/scan_build.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "compiler/scan/scan_op.h"
#include "ops/core/apply.h"
#include "ops/core/graph.h"
#include "ops/core/node.h"
#include "ops/subtensor/subtensor.h"
#include "runtime/error.h"

namespace tgc {

namespace {

std::string taps_str(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::vector<int> sorted_unique(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

Type row_type(const Type& t) { return Type(t.dtype, std::vector<int64_t>(t.shape.begin() + 1, t.shape.end())); }

// "x[t]", "x[t-1]", "x[t+2]"
std::string tap_name(const std::string& base, int tap) {
  if (tap == 0) return base + "[t]";
  return base + "[t" + (tap > 0 ? "+" : "") + std::to_string(tap) + "]";
}

std::string var_name(const VarPtr& v, const std::string& fallback) {
  return v->name().empty() ? fallback : v->name();
}

VarPtr slice_rows(const VarPtr& x, std::optional<int64_t> start, std::optional<int64_t> stop,
                  std::optional<int64_t> step = std::nullopt) {
  IndexSpec spec;
  spec.entries.push_back(IndexEntry::slice(start, stop, step));
  return apply1(std::make_shared<Subtensor>(spec), {x});
}

VarPtr row(const VarPtr& x, int64_t i) {
  IndexSpec spec;
  spec.entries.push_back(IndexEntry::integer(i));
  return apply1(std::make_shared<Subtensor>(spec), {x});
}

}  // namespace

std::vector<VarPtr> lift_free_variables(const std::vector<VarPtr>& results, const std::vector<VarPtr>& placeholders,
                                        std::vector<VarPtr>& lifted_placeholders, std::vector<VarPtr>& lifted_outer,
                                        const std::vector<std::pair<VarPtr, VarPtr>>& replace) {
  std::unordered_set<const Variable*> is_placeholder;
  for (const VarPtr& p : placeholders) is_placeholder.insert(p.get());
  std::unordered_map<const Variable*, VarPtr> replacements;
  for (const auto& [from, to] : replace) replacements[from.get()] = to;

  // Which variables depend on a placeholder (post-order, iterative: steps may be deep).
  std::unordered_map<const Variable*, bool> inner;
  std::vector<std::pair<const Variable*, bool>> stack;
  for (const VarPtr& r : results) stack.push_back({r.get(), false});
  while (!stack.empty()) {
    auto [v, expanded] = stack.back();
    stack.pop_back();
    if (inner.count(v)) continue;
    if (is_placeholder.count(v) || replacements.count(v)) {
      inner[v] = true;
      continue;
    }
    if (v->kind() != Variable::Kind::Result) {
      inner[v] = false;
      continue;
    }
    const Node* n = v->owner();
    if (!expanded) {
      stack.push_back({v, true});
      for (const VarPtr& in : n->inputs())
        if (!inner.count(in.get())) stack.push_back({in.get(), false});
      continue;
    }
    bool any = false;
    for (const VarPtr& in : n->inputs()) any = any || inner.at(in.get());
    // Every output of the node shares the answer.
    for (int k = 0; k < n->num_outputs(); ++k) inner[n->output_raw(k)] = any;
  }

  // The outer variables the inner graph reads: inputs of inner nodes, and results, that do
  // not depend on a placeholder. Constants stay inside (the compiler folds them there).
  std::unordered_set<const Variable*> seen;
  auto lift = [&](const VarPtr& v) {
    if (inner.at(v.get()) || v->kind() == Variable::Kind::Constant || replacements.count(v.get())) return;
    if (!seen.insert(v.get()).second) return;
    VarPtr p = Variable::input(v->type(), v->label());
    lifted_placeholders.push_back(p);
    lifted_outer.push_back(v);
    replacements[v.get()] = p;
  };
  std::unordered_set<const Node*> visited;
  std::vector<const Variable*> work;
  for (const VarPtr& r : results) {
    lift(r);
    if (inner.at(r.get())) work.push_back(r.get());
  }
  while (!work.empty()) {
    const Variable* v = work.back();
    work.pop_back();
    if (v->kind() != Variable::Kind::Result || replacements.count(v)) continue;
    const Node* n = v->owner();
    if (!visited.insert(n).second) continue;
    for (const VarPtr& in : n->inputs()) {
      if (inner.at(in.get())) work.push_back(in.get());
      else lift(in);
    }
  }
  return clone_replace(results, replacements);
}

ScanBuildResult build_scan(const ScanStepFn& fn, const std::vector<ScanSequenceArg>& sequences,
                           const std::vector<ScanOutputArg>& outputs_info, const std::vector<VarPtr>& non_sequences,
                           const ScanBuildOptions& options) {
  const std::string loop = "scan " + options.name;
  const std::string where = "scan(name=\"" + options.name + "\")";
  ScanSpec spec;
  spec.name = options.name;
  spec.truncate_gradient = options.truncate_gradient;
  std::vector<VarPtr> node_inputs;
  if (options.n_steps && options.n_steps_var)
    throw InputError(loop + ": n_steps is given twice", where, "give a number or a variable, not both");
  if (options.n_steps_var) {
    const Type& t = options.n_steps_var->type();
    if (t.ndim() != 0 || !is_integer(t.dtype))
      throw TypeError(loop + ": n_steps must be an integer scalar, got " + t.str() + " '" +
                          options.n_steps_var->label() + "'",
                      where, "pass an int, or an integer scalar variable (iscalar, lscalar)");
    spec.n_steps_input = true;
    node_inputs.push_back(options.n_steps_var);
  }
  if (options.n_steps) {
    if (*options.n_steps < 0)
      throw ValueError(loop + ": n_steps is " + std::to_string(*options.n_steps), where,
                       "the number of steps must be >= 0; use go_backwards=true to run backwards");
    spec.n_steps = options.n_steps;
  }
  if (sequences.empty() && !options.n_steps && !options.n_steps_var)
    throw InputError(loop + ": without sequences the number of steps is not known", where,
                     "give n_steps (a number or an integer scalar variable)");

  std::vector<VarPtr> placeholders;  // in the layout's order
  std::vector<VarPtr> step_args;     // in Theano's order (the same, before lifted non-sequences)
  for (size_t s = 0; s < sequences.size(); ++s) {
    const ScanSequenceArg& arg = sequences[s];
    if (!arg.value) throw InputError(loop + ": sequence " + std::to_string(s) + " is undefined", where);
    const std::string name = var_name(arg.value, "sequence " + std::to_string(s));
    if (arg.value->type().ndim() == 0)
      throw TypeError(loop + ": sequence '" + name + "' is a scalar", where,
                      "a sequence is iterated over its first axis: give a vector or more");
    if (arg.taps.empty()) throw ValueError(loop + ": sequence '" + name + "' has no taps", where, "taps=[0] reads x[t]");
    const std::vector<int> taps = sorted_unique(arg.taps);
    ScanSequence seq;
    seq.name = name;
    for (int tap : taps) seq.offsets.push_back(tap - taps.front());
    spec.sequences.push_back(seq);
    VarPtr value = options.go_backwards ? slice_rows(arg.value, std::nullopt, std::nullopt, -1) : arg.value;
    node_inputs.push_back(value);
    // The step is called with the taps in the order given (Theano's), placeholders are laid out sorted.
    std::unordered_map<int, VarPtr> by_tap;
    for (int tap : taps) {
      VarPtr p = Variable::input(row_type(arg.value->type()), tap_name(name, tap));
      by_tap[tap] = p;
      placeholders.push_back(p);
    }
    for (int tap : arg.taps) step_args.push_back(by_tap.at(tap));
  }

  std::vector<int> fed_back;  // outputs_info positions with an initial value
  for (size_t k = 0; k < outputs_info.size(); ++k) {
    const ScanOutputArg& arg = outputs_info[k];
    if (!arg.initial) continue;
    const std::string name = var_name(arg.initial, "output " + std::to_string(k));
    if (arg.taps.empty()) throw ValueError(loop + ": output '" + name + "' has no taps", where);
    const std::vector<int> taps = sorted_unique(arg.taps);
    if (taps.back() >= 0)
      throw ValueError(loop + ": output '" + name + "' has taps " + taps_str(arg.taps) +
                           "; a fed-back result can only read earlier steps",
                       where, "taps of outputs_info are negative: -1 is the previous step");
    ScanState st;
    st.taps = taps;
    st.init_is_single = taps == std::vector<int>{-1};
    if (!st.init_is_single && arg.initial->type().ndim() == 0)
      throw TypeError(loop + ": output '" + name + "' reads taps " + taps_str(taps) + " but its initial value is a scalar",
                      where, "give the last " + std::to_string(st.window()) + " values as the rows of the initial value");
    spec.states.push_back(st);
    node_inputs.push_back(arg.initial);
    fed_back.push_back(static_cast<int>(k));
    const Type t = st.init_is_single ? arg.initial->type() : row_type(arg.initial->type());
    std::unordered_map<int, VarPtr> by_tap;
    for (int tap : taps) {
      VarPtr p = Variable::input(t, tap_name(name, tap));
      by_tap[tap] = p;
      placeholders.push_back(p);
    }
    for (int tap : arg.taps) step_args.push_back(by_tap.at(tap));
  }
  std::vector<VarPtr> non_seq_placeholders;
  for (const VarPtr& v : non_sequences) {
    if (!v) throw InputError(loop + ": a non-sequence is undefined", where);
    VarPtr p = Variable::input(v->type(), var_name(v, "non-sequence"));
    non_seq_placeholders.push_back(p);
    step_args.push_back(p);
  }

  ScanStepResult step = fn(step_args);
  for (const VarPtr& v : step.outputs)
    if (!v) throw InputError(loop + ": the step returned an undefined result", where);
  if (!outputs_info.empty() && step.outputs.size() != outputs_info.size())
    throw InputError(loop + ": the step returns " + std::to_string(step.outputs.size()) + " result" +
                         (step.outputs.size() == 1 ? "" : "s") + " but outputs_info has " +
                         std::to_string(outputs_info.size()) + " entr" + (outputs_info.size() == 1 ? "y" : "ies"),
                     where, "give one outputs_info entry per result (None for a result that is not fed back)");
  if (step.outputs.empty() && step.updates.empty())
    throw InputError(loop + ": the step returns no result", where, "return the value(s) each step computes");
  if (step.until) {
    const Type& u = step.until->type();
    if (u.ndim() != 0)
      throw TypeError(loop + ": the until condition is a " + u.str() + ", not a scalar", where,
                      "reduce it to one value, e.g. until(all(...)) or until(x.sum() > 0)");
  }

  // Results, in the layout's order: fed-back states, per-step outputs, update states, until.
  std::vector<int> per_step;
  for (size_t k = 0; k < step.outputs.size(); ++k)
    if (outputs_info.empty() || !outputs_info[k].initial) per_step.push_back(static_cast<int>(k));
  // Updates of shared variables are states too: the value after the previous step is read.
  std::vector<VarPtr> update_placeholders;
  std::vector<std::pair<VarPtr, VarPtr>> replace;
  for (const auto& [var, value] : step.updates) {
    if (!var || var->kind() != Variable::Kind::Shared)
      throw InputError(loop + ": an update's target is not a shared variable", where,
                       "updates map shared variables to their new values");
    if (!value) throw InputError(loop + ": the update of '" + var->label() + "' is undefined", where);
    if (value->type().dtype != var->type().dtype || value->type().ndim() != var->type().ndim())
      throw TypeError(loop + ": the step updates shared variable '" + var->label() + "' (" + var->type().str() +
                          ") with a " + value->type().str(),
                      where, "cast the new value with astype(" + std::string(dtype_name(var->type().dtype)) + ")");
    VarPtr p = Variable::input(var->type(), tap_name(var->label(), -1));
    update_placeholders.push_back(p);
    replace.push_back({var, p});
    ScanState st;
    st.taps = {-1};
    spec.states.push_back(st);
  }
  std::vector<VarPtr> results;
  for (int k : fed_back) results.push_back(step.outputs[k]);
  for (const auto& [var, value] : step.updates) results.push_back(value);
  for (int k : per_step) results.push_back(step.outputs[k]);
  if (step.until) results.push_back(step.until);

  // The state placeholders of updates come after the fed-back ones in the layout.
  std::vector<VarPtr> layout = placeholders;
  layout.insert(layout.end(), update_placeholders.begin(), update_placeholders.end());
  std::vector<VarPtr> all_known = layout;
  all_known.insert(all_known.end(), non_seq_placeholders.begin(), non_seq_placeholders.end());
  std::vector<VarPtr> lifted_placeholders, lifted_outer;
  std::vector<VarPtr> inner_outputs = lift_free_variables(results, all_known, lifted_placeholders, lifted_outer, replace);

  // The recurrence's types, checked in the user's names before the op's own checks.
  for (size_t s = 0; s < spec.states.size(); ++s) {
    const VarPtr& in = layout[spec.inner_state_input(static_cast<int>(s), 0)];
    const VarPtr& out = inner_outputs[s];
    const bool is_update = s >= fed_back.size();
    const std::string what = is_update ? "the update of shared variable '" + step.updates[s - fed_back.size()].first->label() + "'"
                                       : "result " + std::to_string(fed_back[s]) + " ('" + out->label() + "')";
    if (in->type().dtype != out->type().dtype || in->type().ndim() != out->type().ndim())
      throw TypeError(loop + ": " + what + " is a " + out->type().str() + " but its initial value is a " +
                          in->type().str() + "; a fed-back result must keep its type from step to step",
                      where,
                      "cast the initial value (outputs_info) or the step's result, e.g. .astype(" +
                          std::string(dtype_name(in->type().dtype)) + ")");
    for (int d = 0; d < in->type().ndim(); ++d) {
      const int64_t a = in->type().shape[d], b = out->type().shape[d];
      if (a != kUnknownDim && b != kUnknownDim && a != b)
        throw ShapeError(loop + ": " + what + " has shape " + static_shape_str(out->type().shape) +
                             " but its initial value has " + static_shape_str(in->type().shape),
                         where, "a fed-back result must keep its shape from step to step");
    }
  }
  if (step.until && !(inner_outputs.back()->type().dtype == DType::Bool || is_integer(inner_outputs.back()->type().dtype) ||
                      is_float(inner_outputs.back()->type().dtype)))
    throw TypeError(loop + ": the until condition has an unsupported dtype", where);
  spec.num_outputs_per_step = static_cast<int>(per_step.size());
  spec.has_until = static_cast<bool>(step.until);
  spec.num_non_sequences = static_cast<int>(non_sequences.size() + lifted_outer.size());

  std::vector<VarPtr> inner_inputs = layout;
  inner_inputs.insert(inner_inputs.end(), non_seq_placeholders.begin(), non_seq_placeholders.end());
  inner_inputs.insert(inner_inputs.end(), lifted_placeholders.begin(), lifted_placeholders.end());
  for (const auto& [var, value] : step.updates) node_inputs.push_back(var);  // after the fed-back initial values
  node_inputs.insert(node_inputs.end(), non_sequences.begin(), non_sequences.end());
  node_inputs.insert(node_inputs.end(), lifted_outer.begin(), lifted_outer.end());

  auto op = std::make_shared<ScanOp>(spec, inner_inputs, inner_outputs);
  std::vector<VarPtr> outs = tgc::apply(op, node_inputs);

  ScanBuildResult result;
  result.outputs.resize(step.outputs.size());
  for (size_t s = 0; s < fed_back.size(); ++s) {
    // The history without its initial rows: the values the steps computed, as Theano returns them.
    result.outputs[fed_back[s]] = slice_rows(outs[s], spec.states[s].window(), std::nullopt);
    result.outputs[fed_back[s]]->set_name(options.name + "_" + std::to_string(fed_back[s]));
  }
  for (size_t u = 0; u < step.updates.size(); ++u)
    result.updates.push_back({step.updates[u].first, row(outs[fed_back.size() + u], -1)});
  for (size_t k = 0; k < per_step.size(); ++k) {
    result.outputs[per_step[k]] = outs[spec.states.size() + k];
    result.outputs[per_step[k]]->set_name(options.name + "_" + std::to_string(per_step[k]));
  }
  return result;
}

}  // namespace tgc
