// Frontend API: the collectives and the launch's world.
#include <tgc/collective.h>
#include <tgc/math.h>

#include <fmt/format.h>

#include "frontend/api/call_site.h"
#include "ops/collective/all_gather.h"
#include "ops/collective/all_reduce.h"
#include "ops/collective/broadcast.h"
#include "ops/collective/reduce_scatter.h"
#include "ops/core/apply.h"
#include "ops/reduce/reduce_axes.h"

namespace tgc {
CommGroupPtr world() { return world_group(); }
int rank() { return launch_info().rank; }
int world_size() { return launch_info().size; }
int local_rank() { return launch_info().local_rank; }

Var all_reduce(const Var& x, std::string_view op, const CommGroupPtr& group) {
  const VarPtr& p = checked_ptr(x);
  const std::string where = fmt::format("all_reduce({}, op=\"{}\")", p->label(), op);
  const CollectiveOpKind kind = parse_collective_op(op, where);
  const CommGroupPtr& g = group ? group : world_group();
  if (kind != CollectiveOpKind::Mean) return Var(apply1(std::make_shared<AllReduce>(kind, g), {p}));
  // A sum and a division: the engines sum, and the division fuses with what follows.
  // The mean's own type rule (float only) names the user's call; no node is made for it.
  at_call(where, [&] { AllReduce(kind, g).infer_types({p->type()}); });
  Var total(apply1(std::make_shared<AllReduce>(CollectiveOpKind::Sum, g), {p}));
  return total / static_cast<double>(g->size());
}

Var all_gather(const Var& x, int axis, const CommGroupPtr& group) {
  const VarPtr& p = checked_ptr(x);
  const int canon = at_call(fmt::format("all_gather({}, axis={})", p->label(), axis),
                            [&] { return normalize_reduce_axis(axis, p->type().ndim(), "all_gather"); });
  return Var(apply1(std::make_shared<AllGather>(canon, group ? group : world_group()), {p}));
}

Var reduce_scatter(const Var& x, int axis, std::string_view op, const CommGroupPtr& group) {
  const VarPtr& p = checked_ptr(x);
  const std::string where = fmt::format("reduce_scatter({}, axis={}, op=\"{}\")", p->label(), axis, op);
  const CollectiveOpKind kind = parse_collective_op(op, where);
  const int canon = at_call(where, [&] { return normalize_reduce_axis(axis, p->type().ndim(), "reduce_scatter"); });
  const CommGroupPtr& g = group ? group : world_group();
  if (kind != CollectiveOpKind::Mean) return Var(apply1(std::make_shared<ReduceScatter>(kind, canon, g), {p}));
  at_call(where, [&] { ReduceScatter(kind, canon, g).infer_types({p->type()}); });  // float only
  return Var(apply1(std::make_shared<ReduceScatter>(CollectiveOpKind::Sum, canon, g), {p})) / static_cast<double>(g->size());
}

Var broadcast(const Var& x, int root, const CommGroupPtr& group) {
  const VarPtr& p = checked_ptr(x);
  return at_call(fmt::format("broadcast({}, root={})", p->label(), root), [&] {
    return Var(apply1(std::make_shared<Broadcast>(root, group ? group : world_group()), {p}));
  });
}

}  // namespace tgc
