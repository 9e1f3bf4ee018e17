// scan(): Theano's loop. The step is a C++ callable that builds the graph of one step from
// placeholders; scan() returns each result stacked over the steps. Gradients flow through
// it (backpropagation through time). docs/control-flow.md#scan.
//
//   // Cumulative sum: acc[t] = acc[t-1] + x[t]
//   Var x = vector("x");
//   ScanResult r = scan([](const std::vector<Var>& a) { return a[1] + a[0]; },  // (x[t], acc[t-1])
//                       {x}, {zeros_like(x[0])});
//   Function f = function({x}, {r[0]});
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <tgc/function.h>
#include <tgc/var.h>
#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// A sequence the loop iterates over its first axis; the step reads x[t + tap] for each tap.
struct Sequence {
  Var value;
  std::vector<int> taps{0};
  Sequence(Var v) : value(std::move(v)) {}  // NOLINT: implicit by design ({x, y})
  Sequence(Var v, std::vector<int> t) : value(std::move(v)), taps(std::move(t)) {}
};

// One entry of outputs_info: the initial value of a fed-back result and the earlier steps the
// step reads (taps, negative: -1 is the previous step). OutputInfo::none(): a result that is
// not fed back (Theano's None).
struct OutputInfo {
  Var initial;
  std::vector<int> taps{-1};
  OutputInfo(Var init) : initial(std::move(init)) {}  // NOLINT: implicit by design ({h0})
  OutputInfo(Var init, std::vector<int> t) : initial(std::move(init)), taps(std::move(t)) {}
  static OutputInfo none() { return OutputInfo(); }

 private:
  OutputInfo() = default;
};

// What the step returns: its results, updates of shared variables (carried from step to step),
// and optionally a condition that ends the loop after the step where it is true (Theano's
// until).
struct ScanStep {
  std::vector<Var> outputs;
  Updates updates{};
  Var until{};
  ScanStep(Var v) : outputs{std::move(v)} {}  // NOLINT: implicit by design (return h;)
  ScanStep(std::vector<Var> v) : outputs(std::move(v)) {}  // NOLINT
  ScanStep(std::initializer_list<Var> v) : outputs(v) {}
  ScanStep(std::vector<Var> v, Updates u, Var stop = {}) : outputs(std::move(v)), updates(std::move(u)), until(std::move(stop)) {}
};

// The step's arguments, in Theano's order: the taps of each sequence, the taps of each
// fed-back result, then the non-sequences.
using StepFn = std::function<ScanStep(const std::vector<Var>& args)>;

struct ScanOptions {
  std::optional<int64_t> n_steps{};  // a fixed number of steps (required without sequences)
  Var n_steps_var{};                 // or a symbolic one: an integer scalar
  int64_t truncate_gradient = -1;    // backpropagate through at most this many steps; -1: all
  bool go_backwards = false;         // iterate the sequences from their last row
  std::string name = "scan";         // shown in graphs, profiles and errors
};

struct ScanResult {
  std::vector<Var> outputs;  // one per result of the step, stacked over the steps
  Updates updates;           // the shared variables the step updated: their values after the loop
  const Var& operator[](size_t i) const { return outputs.at(i); }
};

ScanResult scan(const StepFn& fn, const std::vector<Sequence>& sequences = {},
                const std::vector<OutputInfo>& outputs_info = {}, const std::vector<Var>& non_sequences = {},
                const ScanOptions& options = {});

TGC_API_END
}  // namespace tgc
