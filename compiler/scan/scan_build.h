// build_scan(): Theano's scan() on graph variables — makes the step's placeholders, calls the
// user's step function on them, lifts every variable the step reads from outside (outer
// inputs, shared variables, constants' expressions, loop-invariant work the user wrote) into a
// non-sequence, checks the recurrence's types in the user's names and applies the ScanOp.
// The C++ API (<tgc/scan.h>), the .tg language and Python all call it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/variable.h"

namespace tgc {

struct ScanSequenceArg {
  VarPtr value;
  std::vector<int> taps{0};  // x[t + tap]; Theano's default [0]
};

struct ScanOutputArg {
  VarPtr initial;             // null: a result that is not fed back (Theano's None)
  std::vector<int> taps{-1};  // negative: the values of earlier steps the step reads
};

struct ScanStepResult {
  std::vector<VarPtr> outputs;
  // (shared variable, its value after this step): the variable is carried from step to step
  // and the loop's updates give its value after the last step.
  std::vector<std::pair<VarPtr, VarPtr>> updates;
  VarPtr until;  // null, or a scalar: the loop stops after a step where it is true
};

// The step's arguments, in Theano's order: each sequence's taps, each fed-back output's taps,
// then the non-sequences.
using ScanStepFn = std::function<ScanStepResult(const std::vector<VarPtr>& args)>;

struct ScanBuildOptions {
  std::optional<int64_t> n_steps;  // a fixed number of steps
  VarPtr n_steps_var;              // or a symbolic one (an integer scalar)
  int64_t truncate_gradient = -1;  // backpropagate through this many steps at most; -1: all
  bool go_backwards = false;       // visit the sequences from their last row
  std::string name = "scan";
};

struct ScanBuildResult {
  std::vector<VarPtr> outputs;  // one per step result, each stacked over the steps (n, ...)
  std::vector<std::pair<VarPtr, VarPtr>> updates;  // (shared variable, value after the last step)
};

ScanBuildResult build_scan(const ScanStepFn& fn, const std::vector<ScanSequenceArg>& sequences,
                           const std::vector<ScanOutputArg>& outputs_info, const std::vector<VarPtr>& non_sequences,
                           const ScanBuildOptions& options = {});

// The inner graph of a loop from its placeholders and results: every variable the results
// read that does not depend on a placeholder and is not a constant gets a new placeholder
// (appended to `lifted_placeholders`) standing for its outer variable (appended to
// `lifted_outer`): the loop takes it as a non-sequence, computed once outside the loop.
// `replace` maps variables to read instead (an updated shared variable to its state's
// placeholder). Returns the results rewritten over the placeholders (a copy: the user's
// expressions are left as they are).
std::vector<VarPtr> lift_free_variables(const std::vector<VarPtr>& results, const std::vector<VarPtr>& placeholders,
                                        std::vector<VarPtr>& lifted_placeholders, std::vector<VarPtr>& lifted_outer,
                                        const std::vector<std::pair<VarPtr, VarPtr>>& replace = {});

}  // namespace tgc
