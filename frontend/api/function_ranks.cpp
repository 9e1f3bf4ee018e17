// A function over several devices of this process (data_parallel.devices,
// docs/distributed.md#several-devices-from-one-call): one rank's program per device, made and
// called at once on the ranks' threads. Rank 0's program reads and updates the user's shared
// variables; the other ranks read copies on their devices (SharedCopies), and a split shared
// variable is read by every rank, rank 0 included, from a copy of its part. The ranks' updates
// go through only when every rank's call succeeded (CommitVote), so the copies stay equal.
#include <fmt/format.h>

#include <unordered_map>

#include "frontend/api/backend_choice.h"
#include "frontend/api/call_site.h"
#include "frontend/api/function_access.h"
#include "frontend/api/function_impl.h"
#include "ops/core/shared_value_lock.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {

namespace {

void check_devices_options(const DataParallel& dp, const std::string& fn) {
  if (!dp.enabled())
    throw InputError("data_parallel.devices runs one rank per device over a split batch, and no input is split", fn,
                     "name the batch's inputs in data_parallel.split");
  if (dp.group)
    throw InputError("data_parallel gives both devices and group", fn,
                     "devices makes a group of this process's devices; give one of the two");
  if (dp.local_inputs)
    throw InputError("data_parallel.local_inputs with devices: one process is given the whole batch", fn,
                     "leave local_inputs false: each device's rank takes its part of the batch it is given");
  if (dp.local_results)
    throw InputError("data_parallel.local_results with devices: the results of one call come back whole", fn,
                     "leave local_results false");
}

// The shared variables a graph reads or updates, in the order met, each with the variables
// that name it (several Variables may share one value).
struct SharedRoots {
  std::vector<std::shared_ptr<SharedValue>> values;
  std::unordered_map<const SharedValue*, std::vector<const Variable*>> vars;
  void add(const std::shared_ptr<SharedValue>& value, const Variable* var) {
    auto [it, added] = vars.try_emplace(value.get());
    if (added) values.push_back(value);
    if (var) it->second.push_back(var);
  }
};

}  // namespace

std::unique_ptr<Function::Impl> Function::Impl::on_ranks(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                                         const Updates& updates, const FunctionOptions& options,
                                                         std::vector<RankSlot> slots) {
  const auto t0 = std::chrono::steady_clock::now();
  const int n = static_cast<int>(slots.size());
  TGC_INTERNAL_CHECK(n >= 1, "a function over no devices");
  std::unique_ptr<Impl> first = from_options(options);
  const std::string fn = first->name;
  const DataParallel& dp = options.data_parallel;
  check_devices_options(dp, fn);
  first->config.set("device", slots[0].device, "data_parallel.devices");
  const std::vector<VarPtr> outs = first->prepare(inputs, outputs, updates, options);

  SharedRoots shared;
  // Graph::clone_of keeps the roots: these are the Variables the outputs read.
  for (Variable* root : Graph::clone_of(to_ptrs(inputs), outs).roots())
    if (root->kind() == Variable::Kind::Shared) shared.add(root->storage(), root);
  for (const auto& target : first->update_targets) shared.add(target, nullptr);
  std::unordered_map<const SharedValue*, int> split_axis;
  for (const auto& [var, axis] : dp.split) {
    if (!var.defined() || var.ptr()->kind() != Variable::Kind::Shared) continue;
    const SharedValue* value = var.ptr()->storage().get();
    const int canon = at_call(fn, [&] { return normalize_reduce_axis(axis, var.ndim(), "data_parallel split"); });
    split_axis[value] = canon;
    for (const auto& target : first->update_targets)
      if (target.get() == value)
        throw InputError(fmt::format("data_parallel splits shared variable '{}' over devices and the function updates it",
                                     var.ptr()->label()),
                         fn, "a split shared variable holds data the ranks read: keep it unsplit, or update it in another function");
  }

  // Each rank's copies: every variable for ranks past 0, the split ones for rank 0 too.
  std::vector<Device*> devices;
  for (const RankSlot& s : slots) devices.push_back(&device_by_name(s.device));
  std::vector<std::unordered_map<const SharedValue*, std::shared_ptr<SharedValue>>> copy_of(static_cast<size_t>(n));
  SharedCopies copies;
  for (const auto& value : shared.values) {
    const auto split = split_axis.find(value.get());
    std::vector<SharedCopies::Copy> made;
    for (int r = 0; r < n; ++r) {
      if (r == 0 && split == split_axis.end()) continue;
      // Its value for now; refresh() gives it the rank's own copy before anything reads it.
      auto copy = make_shared_value(value->get_value(/*borrow=*/true), value->name(), /*borrow=*/true);
      copy_of[static_cast<size_t>(r)][value.get()] = copy;
      made.push_back({copy, devices[static_cast<size_t>(r)], r});
    }
    if (!made.empty()) copies.add(value, split == split_axis.end() ? -1 : split->second, n, std::move(made));
  }
  copies.refresh();

  // Each rank's graph: its copies in place of the user's variables.
  struct RankGraph {
    std::vector<VarPtr> outs;
    std::vector<std::shared_ptr<SharedValue>> targets;
    DataParallel dp;
  };
  std::vector<RankGraph> graphs(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    const auto& mine = copy_of[static_cast<size_t>(r)];
    std::unordered_map<const SharedValue*, VarPtr> var_of_copy;
    std::unordered_map<const Variable*, VarPtr> replace;
    for (const auto& [user, copy] : mine) {
      VarPtr v = Variable::shared(copy);
      var_of_copy[user] = v;
      for (const Variable* named : shared.vars[user]) replace[named] = v;
    }
    RankGraph& g = graphs[static_cast<size_t>(r)];
    g.outs = replace.empty() ? outs : clone_replace(outs, replace);
    for (const auto& target : first->update_targets) {
      auto it = mine.find(target.get());
      g.targets.push_back(it == mine.end() ? target : it->second);
    }
    g.dp.group = slots[static_cast<size_t>(r)].group;
    for (const auto& [var, axis] : dp.split) {
      auto it = var.defined() && var.ptr()->kind() == Variable::Kind::Shared ? var_of_copy.find(var.ptr()->storage().get())
                                                                                : var_of_copy.end();
      g.dp.split.emplace_back(it == var_of_copy.end() ? var : Var(it->second), axis);
    }
  }

  // The ranks' programs, made at once: making one broadcasts rank 0's shared values over the
  // group, a collective every rank joins.
  auto ranks = std::make_unique<Ranks>(n);
  std::vector<std::unique_ptr<Impl>> impls(static_cast<size_t>(n));
  impls[0] = std::move(first);
  const std::vector<std::exception_ptr> failures = ranks->threads.run([&](int r) {
    std::unique_ptr<Impl>& f = impls[static_cast<size_t>(r)];
    RankGraph& g = graphs[static_cast<size_t>(r)];
    if (r > 0) {
      FunctionOptions o = options;
      o.name = fn;
      o.device_result = true;  // rank 0's results are the call's: the others stay where they are
      o.borrow_outputs = true;
      f = from_options(o);
      f->config.set("device", slots[static_cast<size_t>(r)].device, "data_parallel.devices");
      f->user_inputs = inputs;
      f->num_outputs = outputs.size();
    }
    f->update_targets = g.targets;
    f->finish(g.outs, g.dp, t0);
  });
  if (std::exception_ptr failure = first_root_failure(failures)) std::rethrow_exception(failure);
  for (int r = 0; r < n; ++r) {
    impls[static_cast<size_t>(r)]->vote = &ranks->vote;
    impls[static_cast<size_t>(r)]->vote_rank = r;
  }
  for (const auto& value : shared.values)
    if (auto it = copy_of[0].find(value.get()); it != copy_of[0].end()) impls[0]->user_of_copy[it->second.get()] = value;
  ranks->copies = std::move(copies);
  for (int r = 1; r < n; ++r) ranks->peers.push_back(std::move(impls[static_cast<size_t>(r)]));
  impls[0]->ranks = std::move(ranks);
  return std::move(impls[0]);
}

std::vector<Tensor> Function::Impl::call_on_ranks(const std::vector<Tensor>& args) {
  Ranks& d = *ranks;
  std::lock_guard<std::mutex> one(d.call_mutex);
  check_args(args);  // once, before any rank starts
  d.copies.refresh();
  d.vote.begin_call();
  std::vector<Tensor> results;
  const std::vector<std::exception_ptr> failures = d.threads.run([&](int r) {
    Impl& f = r == 0 ? *this : *d.peers[static_cast<size_t>(r - 1)];
    try {
      std::vector<Tensor> out = f.call(args);
      if (r == 0) results = std::move(out);
    } catch (...) {
      // Failed before its vote: vote no, so the ranks waiting at the vote apply nothing.
      if (!d.vote.voted(r)) d.vote.vote(r, false);
      throw;
    }
  });
  if (std::exception_ptr failure = first_root_failure(failures)) std::rethrow_exception(failure);
  d.copies.mark_current();
  return results;
}

}  // namespace tgc
