// ScanOp::grad: backpropagation through time as another loop. The backward loop visits
// t = n-1 .. 0 (reverse), reads the forward's sequences and saved state histories at t,
// differentiates a copy of the step (compiler/grad.h with known gradients of the step's
// results), carries the gradients of the states the next steps read, sums the gradients of
// the non-sequences and adds the sequences' gradients into buffers shaped like them.
//
// For a state with taps T (window k), backward iteration t needs acc(h_t), the gradient of
// h_t through the steps after t. Carries c_1..c_k hold, after iteration t, acc(h_{t-1}) ..
// acc(h_{t-k}) as far as steps >= t contribute: c_j' = c_{j+1} + g(h_{t-j}), c_k' = g(h_{t-k}),
// and the step's result h_t gets gH[t] + c_1. After t = 0, c_j is the gradient of h_{-j}, the
// initial row k - j.
//
// A gradient loop is differentiated the same way (second derivatives), with three more cases:
// - A reverse loop's backward runs forward. Its sequences are then read in the forward's time
//   order as before, and what is indexed by the forward's iteration (state histories, their
//   gradients, the stacked outputs' gradients) is read flipped.
// - An accumulation (a buffer whose rows a step reads and writes back) gets an accumulation in
//   the backward that starts as the gradient of its final value: at step t it holds, in the
//   rows the forward step wrote, the gradient of the values written, and the backward step
//   writes back the gradients of the values read. What is left is the initial value's gradient.
// - A state kept only as its last rows (a sum: keep_history false) has no saved values; its
//   output's gradient seeds the carries. Its backward must not need its values (a sum's does
//   not): otherwise a TypeError says so.
#include <algorithm>
#include <functional>
#include <memory>
#include <unordered_set>
#include <unordered_map>

#include "compiler/grad.h"
#include "compiler/scan/scan_build.h"
#include "compiler/scan/scan_op.h"
#include "ops/core/apply.h"
#include "ops/core/graph.h"
#include "ops/core/node.h"
#include "ops/alloc/alloc.h"
#include "ops/gradient/build.h"
#include "ops/gradient/sum_to_like.h"
#include "ops/join/join.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"
#include "runtime/error.h"

namespace tgc {

namespace {

VarPtr row(const VarPtr& x, int64_t i) {
  IndexSpec spec;
  spec.entries.push_back(IndexEntry::integer(i));
  return apply1(std::make_shared<Subtensor>(spec), {x});
}

VarPtr add_or(const VarPtr& a, const VarPtr& b) {
  if (!a) return b;
  if (!b) return a;
  return gradient::add(a, b);
}

bool differentiable(const Type& t) { return is_float(t.dtype); }

// Whether `out` is `in` itself (possibly summed to its own shape, as a gradient rule leaves it).
bool passes_through(const VarPtr& out, const VarPtr& in) {
  if (out == in) return true;
  const Node* n = out->owner();
  return n && dynamic_cast<const SumToLike*>(&n->op()) && n->inputs()[0] == in && n->inputs()[1] == in;
}

// x with its rows in the other order.
VarPtr flipped(const VarPtr& x) {
  IndexSpec spec;
  spec.entries.push_back(IndexEntry::slice(std::nullopt, std::nullopt, -1));
  return apply1(std::make_shared<Subtensor>(spec), {x});
}

// Whether `n` reads only input i's shape and dtype, never its elements: zeros_like's Fill and
// sum_to_like's SumToLike, which gradient rules put around the values they reduce.
bool reads_only_shape(const Node& n, size_t i) {
  return (i == 0 && dynamic_cast<const Fill*>(&n.op())) || (i == 1 && dynamic_cast<const SumToLike*>(&n.op()));
}

// The first of `vars` whose elements `results` read (a read of its shape alone does not
// count); null when none.
const Variable* reads_values_of(const std::vector<VarPtr>& results, const std::unordered_set<const Variable*>& vars) {
  if (vars.empty()) return nullptr;
  std::unordered_set<const Variable*> seen;
  std::vector<const Variable*> pending;
  for (const VarPtr& r : results)
    if (r) pending.push_back(r.get());
  while (!pending.empty()) {
    const Variable* v = pending.back();
    pending.pop_back();
    if (!seen.insert(v).second) continue;
    if (vars.count(v)) return v;
    if (const Node* n = v->owner())
      for (size_t i = 0; i < n->inputs().size(); ++i)
        if (!reads_only_shape(*n, i)) pending.push_back(n->inputs()[i].get());
  }
  return nullptr;
}

}  // namespace

std::vector<VarPtr> ScanOp::grad(const Node& node, const std::vector<VarPtr>& output_grads) const {
  const ScanSpec& F = spec_;
  const std::string loop = "scan " + F.name;
  if (F.truncate >= 0)
    throw TypeError(loop + ": a derivative through a truncated gradient loop (truncate_gradient) is not built", "",
                    "differentiate the loop with truncate_gradient=-1 to take a second derivative");
  const auto& in = node.inputs();
  std::vector<VarPtr> result(in.size());
  const size_t S = F.states.size();
  const int N = F.num_outputs_per_step;

  // Gradients arriving at the node's outputs.
  std::vector<VarPtr> gH(S), gY(N);
  bool any = false;
  for (size_t s = 0; s < S; ++s) {
    gH[s] = output_grads[s];
    any = any || gH[s];
  }
  for (int j = 0; j < N; ++j) {
    gY[j] = output_grads[S + j];
    any = any || gY[j];
  }
  const size_t A = F.accumulations.size();
  std::vector<VarPtr> gA(A);
  for (size_t a = 0; a < A; ++a) {
    gA[a] = output_grads[S + N + a];
    any = any || gA[a];
  }
  if (!any) return result;

  ScanSpec B;
  B.name = F.name + "_grad";
  B.reverse = !F.reverse;
  B.truncate = F.truncate_gradient;
  std::vector<VarPtr> b_inputs;                       // node inputs, layout order
  std::vector<VarPtr> b_seq_ph, b_state_ph, b_acc_ph;  // placeholders per layout group
  std::vector<VarPtr> b_nonseq_ph, b_nonseq_outer;

  // Sequences: forward sequences (same offsets), state histories, output gradients.
  std::unordered_map<const Variable*, VarPtr> fwd_to_bwd;  // forward placeholder -> backward one
  std::vector<VarPtr> saved_result(S);                      // h[t], read from the history
  // The forward's one sequence set its step count when nothing else did.
  const bool one_sequence_counts = F.sequences.size() == 1 && !F.n_steps && !F.n_steps_input &&
                                   F.steps_from_input < 0 && !F.has_until;
  for (size_t s = 0; s < F.sequences.size(); ++s) {
    B.sequences.push_back(F.sequences[s]);
    B.sequences.back().spans_steps = F.sequences[s].spans_steps || one_sequence_counts;
    // A loop counted by one of its sequences (a gradient loop by a history): so is its backward.
    if (F.steps_from_input == F.first_sequence_input() + static_cast<int>(s)) {
      B.steps_from_input = static_cast<int>(b_inputs.size());
      B.steps_from_sub = F.steps_from_sub;
    }
    b_inputs.push_back(in[F.first_sequence_input() + s]);
    for (size_t j = 0; j < F.sequences[s].offsets.size(); ++j) {
      const VarPtr& f = inner_inputs_[F.inner_sequence_input(static_cast<int>(s), static_cast<int>(j))];
      VarPtr p = Variable::input(f->type(), f->name());
      fwd_to_bwd[f.get()] = p;
      b_seq_ph.push_back(p);
    }
  }
  // Values the backward has no rows for (a state kept as its last rows, an accumulation's rows
  // as a step read them): placeholders nothing provides, which its step must not read.
  std::unordered_set<const Variable*> unavailable;
  for (size_t s = 0; s < S; ++s) {
    const ScanState& st = F.states[s];
    if (!st.keep_history) {
      for (size_t j = 0; j < st.taps.size(); ++j) {
        const VarPtr& f = inner_inputs_[F.inner_state_input(static_cast<int>(s), static_cast<int>(j))];
        VarPtr p = Variable::input(f->type(), f->name());
        fwd_to_bwd[f.get()] = p;
        unavailable.insert(p.get());
      }
      continue;
    }
    const int k = st.window();
    // Tap j reads history row k + i + tap at forward iteration i, and the step's own result
    // h[i] (row k + i) is read too: its gradient reads the saved value rather than computing
    // the step again. Flipped for a reverse loop (backward step t is iteration n-1-t).
    std::vector<std::pair<int, VarPtr>> rows;
    for (size_t j = 0; j < st.taps.size(); ++j) {
      const VarPtr& f = inner_inputs_[F.inner_state_input(static_cast<int>(s), static_cast<int>(j))];
      VarPtr p = Variable::input(f->type(), f->name());
      fwd_to_bwd[f.get()] = p;
      rows.emplace_back(F.reverse ? -st.taps[j] : k + st.taps[j], p);
    }
    saved_result[s] = Variable::input(inner_outputs_[s]->type(), inner_outputs_[s]->label());
    rows.emplace_back(F.reverse ? 0 : k, saved_result[s]);
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    ScanSequence seq;
    seq.name = "history of state " + std::to_string(s);
    for (const auto& [offset, p] : rows) {
      seq.offsets.push_back(offset);
      b_seq_ph.push_back(p);
    }
    seq.spans_steps = true;  // k + n rows, read up to row k + t
    B.sequences.push_back(seq);
    if (B.steps_from_input < 0) {
      B.steps_from_input = static_cast<int>(b_inputs.size());
      B.steps_from_sub = k;
    }
    b_inputs.push_back(F.reverse ? flipped(node.output(static_cast<int>(s))) : node.output(static_cast<int>(s)));
  }
  std::vector<VarPtr> gH_ph(S), gY_ph(N);
  for (size_t s = 0; s < S; ++s) {
    if (!gH[s] || !differentiable(gH[s]->type()) || !F.states[s].keep_history) continue;
    ScanSequence seq;
    seq.name = "gradient of state " + std::to_string(s);
    seq.offsets = {F.reverse ? 0 : F.states[s].window()};
    B.sequences.push_back(seq);
    b_inputs.push_back(F.reverse ? flipped(gH[s]) : gH[s]);
    gH_ph[s] = Variable::input(inner_outputs_[s]->type(), "g_" + inner_outputs_[s]->label());
    b_seq_ph.push_back(gH_ph[s]);
  }
  for (int j = 0; j < N; ++j) {
    if (!gY[j] || !differentiable(gY[j]->type())) continue;
    ScanSequence seq;
    seq.name = "gradient of output " + std::to_string(j);
    seq.offsets = {0};
    if (B.steps_from_input < 0) {
      B.steps_from_input = static_cast<int>(b_inputs.size());
      B.steps_from_sub = 0;
    }
    B.sequences.push_back(seq);
    b_inputs.push_back(F.reverse ? flipped(gY[j]) : gY[j]);
    gY_ph[j] = Variable::input(inner_outputs_[S + j]->type(), "g_" + inner_outputs_[S + j]->label());
    b_seq_ph.push_back(gY_ph[j]);
  }
  // An accumulation's rows as the step reads them are not kept, but one whose step writes each
  // row back unchanged (a gradient loop's gradient of a linear accumulation) reads its initial
  // rows at every step: they are a sequence, read at its offsets.
  for (size_t a = 0; a < A; ++a) {
    const ScanAccumulation& acc = F.accumulations[a];
    bool unchanged = true;
    for (size_t j = 0; j < acc.offsets.size(); ++j)
      unchanged = unchanged && passes_through(inner_outputs_[F.inner_accumulation_output(static_cast<int>(a), static_cast<int>(j))],
                                              inner_inputs_[F.inner_accumulation_input(static_cast<int>(a), static_cast<int>(j))]);
    if (unchanged) {
      ScanSequence seq;
      seq.offsets = acc.offsets;
      seq.name = "initial rows of " + acc.name;
      B.sequences.push_back(seq);
      b_inputs.push_back(in[F.first_accumulation_input() + a]);
    }
    for (size_t j = 0; j < acc.offsets.size(); ++j) {
      const VarPtr& f = inner_inputs_[F.inner_accumulation_input(static_cast<int>(a), static_cast<int>(j))];
      VarPtr p = Variable::input(f->type(), f->name());
      fwd_to_bwd[f.get()] = p;
      if (unchanged) b_seq_ph.push_back(p);
      else unavailable.insert(p.get());
    }
  }
  if (B.steps_from_input < 0) return result;  // only integer results receive gradients

  // Non-sequences of the forward step are non-sequences here too.
  for (int k = 0; k < F.num_non_sequences; ++k) {
    const VarPtr& f = inner_inputs_[F.inner_non_sequence_input(k)];
    VarPtr p = Variable::input(f->type(), f->name());
    fwd_to_bwd[f.get()] = p;
    b_nonseq_ph.push_back(p);
    b_nonseq_outer.push_back(in[F.first_non_sequence_input() + k]);
  }

  // The forward step, copied over the backward placeholders, and its gradients.
  std::unordered_map<const Variable*, VarPtr> repl;
  for (const auto& [f, b] : fwd_to_bwd) repl[f] = b;
  const int num_acc_rows = F.num_inner_outputs() - F.first_accumulation_inner_output() - (F.has_until ? 1 : 0);
  std::vector<VarPtr> fwd_results(inner_outputs_.begin(),
                                  inner_outputs_.begin() + F.first_accumulation_inner_output() + num_acc_rows);
  std::vector<VarPtr> step = clone_replace(fwd_results, repl);

  // Carries (states of the backward loop), one per forward state tap distance, and the sums
  // of the non-sequences' gradients.
  std::vector<std::vector<VarPtr>> carry(S);  // carry[s][j-1] = c_j
  std::vector<VarPtr> carry_init_outer;
  for (size_t s = 0; s < S; ++s) {
    if (!differentiable(inner_outputs_[s]->type())) continue;
    const VarPtr zero = gradient::zeros_like(row(node.output(static_cast<int>(s)), 0));
    const int k = F.states[s].window();
    for (int j = 1; j <= k; ++j) {
      ScanState c;
      c.taps = {-1};
      // Kept, so that a derivative of this loop reads each step's carry (the save-memory
      // rewrite keeps the last row only where nothing else reads them).
      c.keep_history = true;
      B.states.push_back(c);
      VarPtr p = Variable::input(inner_outputs_[s]->type(), "carry" + std::to_string(j) + "_" + std::to_string(s));
      carry[s].push_back(p);
      b_state_ph.push_back(p);
      // A state kept as its last k rows: the gradient of those rows (h[n-j] is row k - j)
      // starts the carries.
      const bool window_grad = !F.states[s].keep_history && gH[s] && differentiable(gH[s]->type());
      carry_init_outer.push_back(window_grad ? row(gH[s], k - j) : zero);
    }
  }
  std::vector<int> summed;  // forward non-sequences that get a gradient
  std::vector<VarPtr> sum_ph;
  for (int k = 0; k < F.num_non_sequences; ++k) {
    if (!differentiable(b_nonseq_ph[k]->type())) continue;
    ScanState c;
    c.taps = {-1};
    c.keep_history = false;
    B.states.push_back(c);
    VarPtr p = Variable::input(b_nonseq_ph[k]->type(), "gsum_" + b_nonseq_ph[k]->name());
    sum_ph.push_back(p);
    b_state_ph.push_back(p);
    carry_init_outer.push_back(gradient::zeros_like(b_nonseq_outer[k]));
    summed.push_back(k);
  }
  // Accumulations of the backward, one per differentiable buffer of the forward read at
  // offsets: a placeholder per offset, named after the forward inner input it is the gradient
  // of (`inner_input(j)`).
  auto add_accumulation = [&](const std::vector<int>& offsets, const std::string& of,
                              const std::function<const VarPtr&(size_t)>& inner_input) {
    ScanAccumulation a;
    a.offsets = offsets;
    a.name = "gradient of " + of;
    B.accumulations.push_back(a);
    std::vector<VarPtr> ph;
    for (size_t j = 0; j < offsets.size(); ++j) {
      const VarPtr& f = inner_input(j);
      ph.push_back(Variable::input(f->type(), "gacc_" + f->name()));
      b_acc_ph.push_back(ph.back());
    }
    return ph;
  };
  // The forward sequences' gradients.
  std::vector<int> accumulated;
  std::vector<std::vector<VarPtr>> acc_ph;
  for (size_t s = 0; s < F.sequences.size(); ++s) {
    if (!differentiable(in[F.first_sequence_input() + s]->type())) continue;
    accumulated.push_back(static_cast<int>(s));
    acc_ph.push_back(add_accumulation(F.sequences[s].offsets, F.sequences[s].name, [&](size_t j) -> const VarPtr& {
      return inner_inputs_[F.inner_sequence_input(static_cast<int>(s), static_cast<int>(j))];
    }));
  }
  // The forward's own accumulations, each starting as its final value's gradient.
  std::vector<int> accumulated_acc;
  std::vector<std::vector<VarPtr>> acc_acc_ph;
  for (size_t a = 0; a < A; ++a) {
    if (!differentiable(in[F.first_accumulation_input() + a]->type())) continue;
    accumulated_acc.push_back(static_cast<int>(a));
    acc_acc_ph.push_back(add_accumulation(F.accumulations[a].offsets, F.accumulations[a].name,
                                          [&](size_t j) -> const VarPtr& {
                                            return inner_inputs_[F.inner_accumulation_input(static_cast<int>(a),
                                                                                            static_cast<int>(j))];
                                          }));
  }

  // d(step results) known: a state's result gets its output gradient at t plus c_1.
  GradOptions go;
  go.disconnected_inputs = DisconnectedInputs::Ignore;
  go.stabilize = false;
  for (size_t s = 0; s < S; ++s) {
    if (!differentiable(inner_outputs_[s]->type())) continue;
    go.known_grads.push_back({step[s], add_or(gH_ph[s], carry[s][0])});
  }
  for (int j = 0; j < N; ++j)
    if (gY_ph[j]) go.known_grads.push_back({step[S + j], gY_ph[j]});
  // An accumulation row the step writes: the gradient of the value written.
  for (size_t b = 0; b < accumulated_acc.size(); ++b)
    for (size_t j = 0; j < acc_acc_ph[b].size(); ++j)
      go.known_grads.push_back(
          {step[F.inner_accumulation_output(accumulated_acc[b], static_cast<int>(j))], acc_acc_ph[b][j]});
  std::vector<VarPtr> wrt;
  for (size_t s = 0; s < F.sequences.size(); ++s)
    for (size_t j = 0; j < F.sequences[s].offsets.size(); ++j)
      wrt.push_back(fwd_to_bwd.at(inner_inputs_[F.inner_sequence_input(static_cast<int>(s), static_cast<int>(j))].get()));
  for (size_t s = 0; s < S; ++s)
    for (size_t j = 0; j < F.states[s].taps.size(); ++j)
      wrt.push_back(fwd_to_bwd.at(inner_inputs_[F.inner_state_input(static_cast<int>(s), static_cast<int>(j))].get()));
  for (int k = 0; k < F.num_non_sequences; ++k) wrt.push_back(b_nonseq_ph[k]);
  const size_t acc_wrt = wrt.size();
  for (int a : accumulated_acc)
    for (size_t j = 0; j < F.accumulations[a].offsets.size(); ++j)
      wrt.push_back(fwd_to_bwd.at(inner_inputs_[F.inner_accumulation_input(a, static_cast<int>(j))].get()));
  std::vector<VarPtr> keep_wrt;
  std::vector<int> wrt_pos(wrt.size(), -1);
  for (size_t i = 0; i < wrt.size(); ++i)
    if (differentiable(wrt[i]->type())) {
      wrt_pos[i] = static_cast<int>(keep_wrt.size());
      keep_wrt.push_back(wrt[i]);
    }
  std::vector<VarPtr> g = tgc::grad(nullptr, keep_wrt, go);
  auto g_of = [&](size_t i) -> VarPtr { return wrt_pos[i] < 0 ? nullptr : g[wrt_pos[i]]; };

  // The backward step's results, in the layout's order.
  std::vector<VarPtr> b_results;
  size_t seq_wrt = 0;
  for (const auto& s : F.sequences) seq_wrt += s.offsets.size();
  {
    size_t base = seq_wrt;
    for (size_t s = 0; s < S; ++s) {
      const ScanState& st = F.states[s];
      if (differentiable(inner_outputs_[s]->type())) {
        const int k = st.window();
        // g(h_{t-j}) for j = 1..k: the tap -j's gradient when the step reads it.
        std::vector<VarPtr> g_tap(k + 1);
        for (size_t j = 0; j < st.taps.size(); ++j) g_tap[-st.taps[j]] = g_of(base + j);
        for (int j = 1; j <= k; ++j) {
          VarPtr next = j < k ? carry[s][j] : nullptr;
          VarPtr v = add_or(next, g_tap[j]);
          b_results.push_back(v ? v : gradient::zeros_like(carry[s][j - 1]));
        }
      }
      base += st.taps.size();
    }
    for (size_t i = 0; i < summed.size(); ++i) {
      VarPtr gk = g_of(base + summed[i]);
      b_results.push_back(gk ? gradient::add(sum_ph[i], gk) : sum_ph[i]);
    }
  }
  {
    size_t base = 0;
    size_t a = 0;
    for (size_t s = 0; s < F.sequences.size(); ++s) {
      const size_t taps = F.sequences[s].offsets.size();
      if (a < accumulated.size() && accumulated[a] == static_cast<int>(s)) {
        for (size_t j = 0; j < taps; ++j) {
          VarPtr gx = g_of(base + j);
          b_results.push_back(gx ? gradient::add(acc_ph[a][j], gx) : acc_ph[a][j]);
        }
        ++a;
      }
      base += taps;
    }
  }
  {
    // The gradients of the rows as the step read them are written back (zeros where the step
    // overwrote a row without reading it).
    size_t base = acc_wrt;
    for (size_t b = 0; b < accumulated_acc.size(); ++b)
      for (size_t j = 0; j < acc_acc_ph[b].size(); ++j) {
        VarPtr g_read = g_of(base++);
        b_results.push_back(g_read ? g_read : gradient::zeros_like(acc_acc_ph[b][j]));
      }
  }

  // The step's state results are saved in the histories: read them there.
  {
    std::unordered_map<const Variable*, VarPtr> saved;
    for (size_t s = 0; s < S; ++s)
      if (saved_result[s]) saved[step[s].get()] = saved_result[s];
    b_results = clone_replace(b_results, saved);
  }
  if (const Variable* v = reads_values_of(b_results, unavailable))
    throw TypeError(loop + ": its derivative needs each step's value of '" + v->name() +
                        "', which the loop does not keep (a state kept as its last rows, or an accumulation's rows "
                        "as each step read them)",
                    "", "differentiate an expression whose loop keeps its states' histories");
  // Where only their shapes are read, a value of the same type and shape stands in: the
  // state's carry (its gradient), the accumulation row's gradient.
  {
    std::unordered_map<const Variable*, VarPtr> stand_in;
    for (size_t s = 0; s < S; ++s) {
      if (F.states[s].keep_history || carry[s].empty()) continue;
      for (size_t j = 0; j < F.states[s].taps.size(); ++j)
        stand_in[fwd_to_bwd.at(inner_inputs_[F.inner_state_input(static_cast<int>(s), static_cast<int>(j))].get()).get()] =
            carry[s][0];
    }
    for (size_t b = 0; b < accumulated_acc.size(); ++b)
      for (size_t j = 0; j < acc_acc_ph[b].size(); ++j) {
        const Variable* read =
            fwd_to_bwd.at(inner_inputs_[F.inner_accumulation_input(accumulated_acc[b], static_cast<int>(j))].get()).get();
        if (unavailable.count(read)) stand_in[read] = acc_acc_ph[b][j];
      }
    b_results = clone_replace(b_results, stand_in);
    if (const Variable* v = reads_values_of(b_results, unavailable))
      throw TypeError(loop + ": its derivative reads the shape of '" + v->name() + "', which the loop does not keep", "",
                      "differentiate an expression whose loop keeps its states' histories");
  }

  // Everything else the backward step reads (constants aside) is lifted into non-sequences.
  std::vector<VarPtr> known = b_seq_ph;
  known.insert(known.end(), b_state_ph.begin(), b_state_ph.end());
  known.insert(known.end(), b_nonseq_ph.begin(), b_nonseq_ph.end());
  known.insert(known.end(), b_acc_ph.begin(), b_acc_ph.end());
  std::vector<VarPtr> lifted_ph, lifted_outer;
  std::vector<VarPtr> b_inner_outputs = lift_free_variables(b_results, known, lifted_ph, lifted_outer);
  B.num_non_sequences = static_cast<int>(b_nonseq_ph.size() + lifted_ph.size());

  std::vector<VarPtr> b_inner_inputs = b_seq_ph;
  b_inner_inputs.insert(b_inner_inputs.end(), b_state_ph.begin(), b_state_ph.end());
  b_inner_inputs.insert(b_inner_inputs.end(), b_nonseq_ph.begin(), b_nonseq_ph.end());
  b_inner_inputs.insert(b_inner_inputs.end(), lifted_ph.begin(), lifted_ph.end());
  b_inner_inputs.insert(b_inner_inputs.end(), b_acc_ph.begin(), b_acc_ph.end());
  b_inputs.insert(b_inputs.end(), carry_init_outer.begin(), carry_init_outer.end());
  for (int s : accumulated) b_inputs.push_back(gradient::zeros_like(in[F.first_sequence_input() + s]));
  for (int a : accumulated_acc) {
    const VarPtr& init = in[F.first_accumulation_input() + a];
    b_inputs.push_back(gA[a] ? gA[a] : gradient::zeros_like(init));
  }
  b_inputs.insert(b_inputs.end(), b_nonseq_outer.begin(), b_nonseq_outer.end());
  b_inputs.insert(b_inputs.end(), lifted_outer.begin(), lifted_outer.end());

  auto op = std::make_shared<ScanOp>(B, b_inner_inputs, b_inner_outputs);
  std::vector<VarPtr> outs = tgc::apply(op, b_inputs);

  // Gradients of the forward node's inputs.
  size_t out_pos = 0;
  for (size_t s = 0; s < S; ++s) {
    if (!differentiable(inner_outputs_[s]->type())) continue;
    const ScanState& st = F.states[s];
    const int k = st.window();
    const VarPtr& init = in[F.first_state_input() + s];
    // Final carries: c_j is the gradient of the initial row k - j; plus what reached the
    // history's initial rows directly.
    std::vector<VarPtr> c(k);
    for (int j = 1; j <= k; ++j) c[j - 1] = row(outs[out_pos + j - 1], -1);
    out_pos += k;
    // The history's initial rows are its first k (a state kept as its last rows has none).
    const VarPtr g_head = st.keep_history ? gH[s] : nullptr;
    if (st.init_is_single) {
      result[F.first_state_input() + s] = add_or(c[0], g_head ? row(g_head, 0) : nullptr);
      continue;
    }
    std::vector<VarPtr> rows;  // initial rows k - 1 .. 0 in order 0 .. k-1: c_k .. c_1
    for (int j = k; j >= 1; --j) rows.push_back(c[j - 1]);
    VarPtr window = apply1(std::make_shared<Stack>(0), rows);
    if (g_head) {
      IndexSpec head;
      head.entries.push_back(IndexEntry::slice(0, k));
      window = gradient::add(window, apply1(std::make_shared<Subtensor>(head), {g_head}));
    }
    // The initial value may hold more rows than the taps read: only its last k get gradients.
    IndexSpec tail;
    tail.entries.push_back(IndexEntry::slice(-k, std::nullopt));
    result[F.first_state_input() + s] =
        apply1(std::make_shared<IncSubtensor>(IncSubtensor::Mode::Inc, tail), {gradient::zeros_like(init), window});
  }
  for (size_t i = 0; i < summed.size(); ++i)
    result[F.first_non_sequence_input() + summed[i]] = row(outs[out_pos + i], -1);
  const size_t acc_base = B.states.size();
  for (size_t a = 0; a < accumulated.size(); ++a) result[F.first_sequence_input() + accumulated[a]] = outs[acc_base + a];
  for (size_t b = 0; b < accumulated_acc.size(); ++b)
    result[F.first_accumulation_input() + accumulated_acc[b]] = outs[acc_base + accumulated.size() + b];
  return result;
}

}  // namespace tgc
