// scan(): the C++ API over build_scan() (compiler/scan/scan_build.h).
#include <tgc/scan.h>

#include "compiler/scan/scan_build.h"

namespace tgc {

ScanResult scan(const StepFn& fn, const std::vector<Sequence>& sequences, const std::vector<OutputInfo>& outputs_info,
                const std::vector<Var>& non_sequences, const ScanOptions& options) {
  std::vector<ScanSequenceArg> seqs;
  for (const Sequence& s : sequences) seqs.push_back({s.value.ptr(), s.taps});
  std::vector<ScanOutputArg> outs;
  for (const OutputInfo& o : outputs_info) outs.push_back({o.initial.ptr(), o.taps});
  std::vector<VarPtr> non_seqs;
  for (const Var& v : non_sequences) non_seqs.push_back(v.ptr());
  ScanBuildOptions bo;
  bo.n_steps = options.n_steps;
  bo.n_steps_var = options.n_steps_var.ptr();
  bo.truncate_gradient = options.truncate_gradient;
  bo.go_backwards = options.go_backwards;
  bo.name = options.name;
  ScanStepFn step = [&fn](const std::vector<VarPtr>& args) {
    std::vector<Var> vars;
    for (const VarPtr& a : args) vars.emplace_back(a);
    ScanStep s = fn(vars);
    ScanStepResult r;
    for (const Var& v : s.outputs) r.outputs.push_back(v.ptr());
    for (const auto& [var, value] : s.updates) r.updates.push_back({var.ptr(), value.ptr()});
    r.until = s.until.ptr();
    return r;
  };
  ScanBuildResult built = build_scan(step, seqs, outs, non_seqs, bo);
  ScanResult result;
  for (const VarPtr& v : built.outputs) result.outputs.emplace_back(v);
  for (const auto& [var, value] : built.updates) result.updates.push_back({Shared(var), Var(value)});
  return result;
}

}  // namespace tgc
