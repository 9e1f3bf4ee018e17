// Scan: Theano's loop as one graph node. The node holds the step's graph (the "inner" graph,
// from placeholders to the step's results) and runs it once per step, feeding the recurrent
// results back. It lives in compiler/ rather than ops/ because its gradient differentiates
// the inner graph (compiler/grad.h) and its thunk compiles the inner graph with the
// function's own pipeline and backends (compiler/scan/scan_thunk.h).
//
// Layout of one Scan node (docs/control-flow.md#scan):
//   node inputs   [n_steps]?  sequences...  state initial values...  accumulation initial
//                 values...  non-sequences...
//   inner inputs  one per (sequence, offset)  one per (state, tap)  one per non-sequence
//                 one per (accumulation, offset)
//   inner outputs state new values...  per-step outputs...  one per (accumulation,
//                 offset)...  [until]?
//   node outputs  state histories...  per-step outputs (stacked)...  accumulations...
// A step t reads sequence s at row t + offset (offsets are >= 0: the builder turns Theano's
// taps into offsets from the smallest one). A state with taps -k..-1 keeps a history of
// k + n rows: rows 0..k-1 are its initial value (the last k rows given), row k + i the
// value iteration i computed; iteration i reads rows k + i + tap. A state that keeps only
// its last k rows (keep_history false: updates, gradient carries, or the save-memory
// rewrite) outputs those k rows. An accumulation output has its sequence's shape, starts at
// its initial value (a node input, zeros for a gradient), and step t reads row t + offset
// of it and writes the row back: the gradient of a sequence sums into it (Theano's mit-mot).
// The step does the arithmetic, so running a loop needs only copies, on any device.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/core/op.h"
#include "ops/core/variable.h"

namespace tgc {

struct ScanState {
  std::vector<int> taps;      // negative, sorted ascending, unique: {-1} for a plain recurrence
  bool keep_history = true;   // false: the output holds the last window() rows only
  // The initial value is one state (taps {-1}, Theano's sit-sot) rather than window() rows.
  bool init_is_single = true;
  int window() const { return -taps.front(); }
  bool operator==(const ScanState&) const = default;
};

struct ScanSequence {
  std::vector<int> offsets;  // >= 0, sorted ascending, unique: {0} for x[t]
  std::string name;          // the user's name of the sequence, for messages
  // Its length is exactly the number of steps plus its last offset (a gradient loop's forward
  // history, or the one sequence that set the forward's step count): the values its rows take
  // over the steps are a slice of it (compiler/scan/scan_rewrites.cpp).
  bool spans_steps = false;
  bool operator==(const ScanSequence&) const = default;
};

// Accumulation: a buffer shaped like its initial value; at step t the inner input and
// output of offset j are its row t + offsets[j].
struct ScanAccumulation {
  std::vector<int> offsets;  // >= 0, sorted ascending, unique
  std::string name;
  bool operator==(const ScanAccumulation&) const = default;
};

struct ScanSpec {
  std::string name = "scan";  // shown as Scan{name}
  std::vector<ScanSequence> sequences;
  std::vector<ScanState> states;
  int num_outputs_per_step = 0;  // stacked outputs that are not fed back (Theano's nit-sot)
  std::vector<ScanAccumulation> accumulations;
  int num_non_sequences = 0;
  bool has_until = false;        // the last inner output is a bool scalar: stop after this step
  bool reverse = false;          // sequences and stacked outputs visited from t = n-1 down to 0
  // How many steps: a fixed number, a symbolic one (node input 0, an integer scalar), the
  // length of node input steps_from_input minus steps_from_sub (a shape, read without
  // waiting for a device), or else the most every sequence allows.
  std::optional<int64_t> n_steps;
  bool n_steps_input = false;
  int steps_from_input = -1;
  int64_t steps_from_sub = 0;
  // Run at most this many steps, the last ones of t (truncated backpropagation); -1: all.
  int64_t truncate = -1;
  // The gradient loop's truncate (Theano's truncate_gradient): backpropagation through this
  // many steps at most; -1: all.
  int64_t truncate_gradient = -1;

  // Positions in the node's and the inner graph's input lists.
  int first_sequence_input() const { return n_steps_input ? 1 : 0; }
  int first_state_input() const { return first_sequence_input() + static_cast<int>(sequences.size()); }
  int first_accumulation_input() const { return first_state_input() + static_cast<int>(states.size()); }
  int first_non_sequence_input() const {
    return first_accumulation_input() + static_cast<int>(accumulations.size());
  }
  int num_node_inputs() const { return first_non_sequence_input() + num_non_sequences; }
  int num_inner_inputs() const;
  int inner_sequence_input(int s, int j) const;  // inner input of sequence s, offset j
  int inner_state_input(int s, int j) const;     // inner input of state s, tap j
  int inner_non_sequence_input(int k) const;
  int inner_accumulation_input(int a, int j) const;  // inner input of accumulation a, offset j
  int first_accumulation_inner_output() const;
  int inner_accumulation_output(int a, int j) const;
  int num_inner_outputs() const;
  int num_node_outputs() const;
  bool operator==(const ScanSpec&) const = default;
};

class ScanOp : public Op {
 public:
  // `inner_inputs` are Input variables (the placeholders the step was built from), in the
  // layout above; `inner_outputs` are the step's results, reading only those placeholders,
  // constants and nothing else (the builder lifted every other variable into a
  // non-sequence). Checks the layout's counts and types (TypeError naming the step's output).
  ScanOp(ScanSpec spec, std::vector<VarPtr> inner_inputs, std::vector<VarPtr> inner_outputs);

  const ScanSpec& spec() const { return spec_; }
  const std::vector<VarPtr>& inner_inputs() const { return inner_inputs_; }
  const std::vector<VarPtr>& inner_outputs() const { return inner_outputs_; }

  std::string name() const override { return "Scan{" + spec_.name + "}"; }
  std::string op_class() const override { return "Scan"; }
  std::string user_name() const override { return "scan"; }
  int num_outputs() const override { return spec_.num_node_outputs(); }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  // The number of steps depends on values (n_steps, until): shapes are known only by running.
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  void validate(const std::vector<Tensor>& inputs) const override;
  // The reference: the inner graph evaluated by each op's perform(), step by step.
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  std::vector<std::shared_ptr<Variable>> grad(
      const Node& node, const std::vector<std::shared_ptr<Variable>>& output_grads) const override;
  // Two loops are the same only when they are the same object: their inner graphs differ.
  bool equals(const Op& other) const override { return this == &other; }
  size_t hash() const override;

  // The same loop with another spec (the save-memory rewrite turns histories into windows).
  std::shared_ptr<ScanOp> with_spec(ScanSpec spec) const;

 private:
  ScanSpec spec_;
  std::vector<VarPtr> inner_inputs_;
  std::vector<VarPtr> inner_outputs_;
};


}  // namespace tgc
