// The codec of ScanOp (ops/core/op_codec.h): its ScanSpec field by field and its step graph
// through the context (the graph codec writes it with the same codecs, nested loops
// included). The spec read is checked against the layout rules run_scan relies on, so a
// malformed file is an IOError rather than a loop reading past its buffers.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/scan/scan_op.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"

namespace tgc {

namespace {

// -- field helpers ---------------------------------------------------------------------
// Integers, bools and strings are read by op_codec.h's strict field readers.

// -- the spec --------------------------------------------------------------------------

Json spec_to_json(const ScanSpec& spec) {
  Json sequences = Json::array(), states = Json::array(), accumulations = Json::array();
  for (const ScanSequence& s : spec.sequences)
    sequences.push_back({{"offsets", s.offsets}, {"name", s.name}, {"spans_steps", s.spans_steps}});
  for (const ScanState& s : spec.states)
    states.push_back({{"taps", s.taps}, {"keep_history", s.keep_history}, {"init_is_single", s.init_is_single}});
  for (const ScanAccumulation& a : spec.accumulations)
    accumulations.push_back({{"offsets", a.offsets}, {"name", a.name}});
  return Json{{"name", spec.name},
              {"sequences", std::move(sequences)},
              {"states", std::move(states)},
              {"num_outputs_per_step", spec.num_outputs_per_step},
              {"accumulations", std::move(accumulations)},
              {"num_non_sequences", spec.num_non_sequences},
              {"has_until", spec.has_until},
              {"reverse", spec.reverse},
              {"n_steps", spec.n_steps ? Json(*spec.n_steps) : Json()},
              {"n_steps_input", spec.n_steps_input},
              {"steps_from_input", spec.steps_from_input},
              {"steps_from_sub", spec.steps_from_sub},
              {"truncate", spec.truncate},
              {"truncate_gradient", spec.truncate_gradient}};
}

// Taps of a state (negative) or offsets of a sequence or accumulation (>= 0): non-empty,
// ascending, unique.
void check_positions(const std::vector<int>& v, bool negative, const std::string& what) {
  bool ok = !v.empty();
  for (size_t i = 0; ok && i < v.size(); ++i)
    ok = (negative ? v[i] < 0 : v[i] >= 0) && (i == 0 || v[i] > v[i - 1]);
  if (!ok)
    throw IOError(fmt::format("scan {} has the {} [{}]: {} ascending and unique expected", what,
                              negative ? "taps" : "offsets", fmt::join(v, ", "),
                              negative ? "negative," : "non-negative,"));
}

// The layout's rules that run_scan and the ScanOp's methods rely on without checking.
void check_spec(const ScanSpec& spec) {
  const std::string loop = "scan " + spec.name;
  for (const ScanSequence& s : spec.sequences) check_positions(s.offsets, false, spec.name + "'s sequence " + s.name);
  for (size_t s = 0; s < spec.states.size(); ++s) {
    const ScanState& st = spec.states[s];
    check_positions(st.taps, true, fmt::format("{}'s state {}", spec.name, s));
    if (st.init_is_single && st.taps != std::vector<int>{-1})
      throw IOError(fmt::format("{}: state {} has a single initial value but taps other than [-1]", loop, s));
  }
  for (const ScanAccumulation& a : spec.accumulations)
    check_positions(a.offsets, false, spec.name + "'s accumulation " + a.name);
  if (spec.num_outputs_per_step < 0 || spec.num_non_sequences < 0)
    throw IOError(loop + ": a negative number of per-step outputs or non-sequences");
  if (spec.n_steps && *spec.n_steps < 0) throw IOError(fmt::format("{}: n_steps is {}", loop, *spec.n_steps));
  if (spec.steps_from_input < -1 || spec.steps_from_input >= spec.num_node_inputs() || spec.steps_from_sub < 0)
    throw IOError(fmt::format("{}: steps from input {} minus {} of {} inputs", loop, spec.steps_from_input,
                              spec.steps_from_sub, spec.num_node_inputs()));
  if (!spec.n_steps && !spec.n_steps_input && spec.steps_from_input < 0 && spec.sequences.empty())
    throw IOError(loop + ": no step count and no sequence");
  if (spec.truncate < -1 || spec.truncate_gradient < -1) throw IOError(loop + ": a truncation below -1");
  if (spec.has_until && spec.reverse) throw IOError(loop + ": an until condition in a reversed loop");
  if (spec.truncate >= 0 && spec.num_outputs_per_step > 0) throw IOError(loop + ": truncation with per-step outputs");
}

ScanSpec spec_from_json(const Json& j) {
  ScanSpec spec;
  spec.name = string_field(j, "name");
  for (const Json& s : list_field(j, "sequences"))
    spec.sequences.push_back(
        ScanSequence{integers_field<int>(s, "offsets"), string_field(s, "name"), bool_field(s, "spans_steps")});
  for (const Json& s : list_field(j, "states"))
    spec.states.push_back(
        ScanState{integers_field<int>(s, "taps"), bool_field(s, "keep_history"), bool_field(s, "init_is_single")});
  spec.num_outputs_per_step = integer_field<int>(j, "num_outputs_per_step");
  for (const Json& a : list_field(j, "accumulations"))
    spec.accumulations.push_back(ScanAccumulation{integers_field<int>(a, "offsets"), string_field(a, "name")});
  spec.num_non_sequences = integer_field<int>(j, "num_non_sequences");
  spec.has_until = bool_field(j, "has_until");
  spec.reverse = bool_field(j, "reverse");
  if (!j.at("n_steps").is_null()) spec.n_steps = integer_field<int64_t>(j, "n_steps");
  spec.n_steps_input = bool_field(j, "n_steps_input");
  spec.steps_from_input = integer_field<int>(j, "steps_from_input");
  spec.steps_from_sub = integer_field<int64_t>(j, "steps_from_sub");
  spec.truncate = integer_field<int64_t>(j, "truncate");
  spec.truncate_gradient = integer_field<int64_t>(j, "truncate_gradient");
  check_spec(spec);
  return spec;
}

// Whether node input i has rows whatever types the node is given (infer_types ties each
// input's rank to the step's): the step count may be read from its first dim.
bool has_rows(const ScanSpec& spec, const std::vector<VarPtr>& inner_inputs, int i) {
  if (i < spec.first_sequence_input()) return false;  // n_steps
  if (i < spec.first_state_input()) return true;
  if (i < spec.first_accumulation_input()) {
    const int s = i - spec.first_state_input();
    return !spec.states[s].init_is_single || inner_inputs[spec.inner_state_input(s, 0)]->type().ndim() > 0;
  }
  if (i < spec.first_non_sequence_input()) return true;
  return inner_inputs[spec.inner_non_sequence_input(i - spec.first_non_sequence_input())]->type().ndim() > 0;
}

std::shared_ptr<const Op> scan_from_json(const Json& j, OpReadContext& ctx) {
  ScanSpec spec = spec_from_json(j);
  OpReadContext::Subgraph step = ctx.graph(j.at("step"));
  if (static_cast<int>(step.inputs.size()) != spec.num_inner_inputs() ||
      static_cast<int>(step.outputs.size()) != spec.num_inner_outputs())
    throw IOError(fmt::format("scan {}: the step has {} inputs and {} outputs, its layout {} and {}", spec.name,
                              step.inputs.size(), step.outputs.size(), spec.num_inner_inputs(),
                              spec.num_inner_outputs()));
  if (spec.steps_from_input >= 0 && !has_rows(spec, step.inputs, spec.steps_from_input))
    throw IOError(fmt::format("scan {}: the step count is read from input {}, which may be a scalar", spec.name,
                              spec.steps_from_input));
  // The constructor's checks (placeholders, the recurrences' types) fail on a bad file here.
  try {
    return std::make_shared<const ScanOp>(std::move(spec), std::move(step.inputs), std::move(step.outputs));
  } catch (const InternalError& e) {
    throw IOError(e.what_part());
  }
}

const bool registered = register_op_codec<ScanOp>(
    "ScanOp",
    [](const ScanOp& op, OpWriteContext& ctx) {
      Json j = spec_to_json(op.spec());
      j["step"] = ctx.graph(op.inner_inputs(), op.inner_outputs());
      return j;
    },
    scan_from_json);

}  // namespace

}  // namespace tgc
