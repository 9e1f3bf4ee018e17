// distribute(): the per-rank graph of a data-parallel function (see data_parallel.h). One walk
// in topological order maps each variable to its rank-local version and its distribution.
#include "compiler/data_parallel.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include <fmt/format.h>

#include "compiler/passes/batch_norm_formula.h"
#include "ops/collective/all_gather.h"
#include "ops/collective/all_reduce.h"
#include "ops/core/apply.h"
#include "ops/core/node.h"
#include "ops/elemwise/elemwise.h"
#include "ops/gradient/stop_gradient.h"
#include "ops/gradient/sum_to_like.h"
#include "ops/alloc/alloc.h"
#include "ops/blas/dot.h"
#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/softmax.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/float_reduce.h"
#include "ops/reduce/mean.h"
#include "ops/reduce/reduce_count.h"
#include "ops/shape/dimshuffle.h"
#include "runtime/error.h"

namespace tgc {
namespace {

enum class Dist { Replicated, Split, Partial };

// A variable of the rank's graph and how it relates to the whole value.
struct Local {
  VarPtr var;
  Dist dist = Dist::Replicated;
  int axis = -1;  // Dist::Split: the axis the ranks' parts are concatenated along
};

Local replicated(VarPtr v) { return {std::move(v), Dist::Replicated, -1}; }
Local split(VarPtr v, int axis) { return {std::move(v), Dist::Split, axis}; }
Local partial(VarPtr v) { return {std::move(v), Dist::Partial, -1}; }

template <typename T>
const T* op_as(const Node& n) {
  return dynamic_cast<const T*>(&n.op());
}

bool reduces_axis(const ReduceAxes& axes, int axis) {
  return !axes || std::find(axes->begin(), axes->end(), axis) != axes->end();
}

// Where `axis` of the input lands after reducing `axes` (keepdims keeps it in place).
int axis_after_reduce(const ReduceAxes& axes, int axis, bool keepdims) {
  if (keepdims || !axes) return axis;
  return axis - static_cast<int>(std::count_if(axes->begin(), axes->end(), [&](int a) { return a < axis; }));
}

VarPtr scalar_constant(double value, DType dtype) { return Variable::constant(Tensor::full(dtype, Shape{}, value)); }

class Distributor {
 public:
  Distributor(const DataParallelSpec& spec, std::vector<std::string>* notes) : spec_(spec), notes_(notes) {}

  Graph run(const Graph& graph) {
    std::vector<VarPtr> inputs;
    for (const VarPtr& in : graph.inputs()) {
      auto it = spec_.split.find(in.get());
      if (it == spec_.split.end()) {
        inputs.push_back(in);
        continue;
      }
      Type t = in->type();
      int64_t& dim = t.shape[it->second];
      if (dim >= 0) {
        if (dim % spec_.group->size() != 0)
          throw ShapeError(fmt::format("input '{}' of static shape {} does not split evenly along axis {} over {} ranks",
                                       in->label(), in->type().str(), it->second, spec_.group->size()),
                           "", "make the split dim a multiple of the number of ranks, or leave it unknown");
        dim /= spec_.group->size();
      }
      VarPtr local = Variable::input(t, in->name());
      inputs.push_back(local);
      map_[in.get()] = split(local, it->second);
    }
    for (Node* n : graph.toposort()) visit(*n);
    std::vector<VarPtr> outputs;
    for (size_t i = 0; i < graph.outputs().size(); ++i) {
      const Local& l = local(graph.outputs()[i]);
      const bool keep_split = spec_.local_results && i < spec_.first_update && l.dist == Dist::Split;
      outputs.push_back(keep_split ? l.var : whole(l));
    }
    return Graph::clone_of(inputs, outputs);
  }

 private:
  const Local& local(const VarPtr& v) {
    auto it = map_.find(v.get());
    if (it != map_.end()) return it->second;
    // Roots the walk has not met: constants, shared variables, unsplit inputs. A split shared
    // variable holds each rank's own part (a dataset kept on the device, say).
    auto s = spec_.split.find(v.get());
    return map_.emplace(v.get(), s == spec_.split.end() ? replicated(v) : split(v, s->second)).first->second;
  }

  // The whole value on every rank: all_reduce(sum) of a partial value, all_gather of a
  // split one (each made once per variable).
  VarPtr whole(const Local& l) {
    if (l.dist == Dist::Replicated) return l.var;
    auto it = whole_.find(l.var.get());
    if (it != whole_.end()) return it->second;
    VarPtr w = l.dist == Dist::Partial
                   ? apply1(std::make_shared<AllReduce>(CollectiveOpKind::Sum, spec_.group), {l.var})
                   : apply1(std::make_shared<AllGather>(l.axis, spec_.group), {l.var});
    w->set_name(l.var->name());
    whole_.emplace(l.var.get(), w);
    return w;
  }

  void record(const Node& n, std::vector<Local> outs) {
    TGC_INTERNAL_CHECK(static_cast<int>(outs.size()) == n.num_outputs(), "distribute: output count");
    for (int i = 0; i < n.num_outputs(); ++i) {
      if (!n.output_raw(i)->name().empty() && outs[i].var->name().empty()) outs[i].var->set_name(n.output_raw(i)->name());
      map_[n.output_raw(i)] = std::move(outs[i]);
    }
  }

  std::vector<VarPtr> apply_to(const Node& n, std::vector<VarPtr> inputs) { return apply(n.op_ptr(), std::move(inputs)); }

  // Every input whole, the op as it is: correct for any op.
  void whole_inputs(const Node& n, const std::vector<Local>& in) {
    std::vector<VarPtr> vars;
    bool gathered = false;
    for (const Local& l : in) {
      gathered = gathered || l.dist == Dist::Split;
      vars.push_back(whole(l));
    }
    if (gathered && notes_)
      notes_->push_back(fmt::format("{}: split inputs gathered (no data-parallel rule for {})", n.describe(),
                                    n.op().op_class()));
    std::vector<Local> outs;
    for (VarPtr& v : apply_to(n, vars)) outs.push_back(replicated(v));
    record(n, std::move(outs));
  }

  void visit(const Node& n) {
    std::vector<Local> in;
    bool all_replicated = true;
    for (const VarPtr& v : n.inputs()) {
      in.push_back(local(v));
      all_replicated = all_replicated && in.back().dist == Dist::Replicated;
    }
    if (all_replicated) return whole_inputs(n, in);
    std::optional<std::vector<Local>> outs = rule(n, in);
    if (outs) return record(n, std::move(*outs));
    whole_inputs(n, in);
  }

  // The rule of n's op for these inputs, or nullopt where the inputs must be whole.
  std::optional<std::vector<Local>> rule(const Node& n, std::vector<Local>& in) {
    if (n.op().is_transfer() || op_as<StopGradient>(n)) {
      VarPtr out = apply_to(n, {in[0].var})[0];
      return std::vector<Local>{{out, in[0].dist, in[0].axis}};
    }
    if (auto* d = op_as<DimShuffle>(n)) return dimshuffle(n, *d, in[0]);
    if (auto* e = op_as<Elemwise>(n)) return elemwise(n, *e, in);
    if (op_as<Fill>(n)) return fill(n, in);
    if (auto* r = op_as<CAReduce>(n)) return careduce(n, *r, in[0]);
    if (auto* m = op_as<Mean>(n)) return mean(n, *m, in[0]);
    if (auto* c = op_as<ReduceCount>(n)) return reduce_count(*c, in[0]);
    if (op_as<Dot>(n)) return dot(n, in);
    if (op_as<SumToLike>(n)) return sum_to_like(n, in);
    if (auto* s = op_as<Softmax>(n)) return rows(n, in, s->axis());
    if (auto* g = op_as<LogSoftmaxGrad>(n)) return rows(n, in, g->axis());
    if (auto* b = op_as<BatchNormTraining>(n))
      return formula(n, batch_norm_training_formula(b->channel_axis(), b->epsilon(), n.inputs(), n.inputs()[0]->type().dtype));
    if (auto* b = op_as<BatchNormGrad>(n)) return formula(n, batch_norm_grad_formula(*b, n.inputs()));
    return std::nullopt;
  }

  // An op distributed as the formula it stands for, built on its (whole-graph) inputs: the
  // formula's nodes are visited like the graph's, so a batch norm's statistics over a split
  // batch are partial sums all-reduced to the whole batch's (every rank normalizes alike).
  std::optional<std::vector<Local>> formula(const Node& n, const std::vector<VarPtr>& outputs) {
    std::vector<Node*> order;
    std::unordered_set<const Node*> seen;
    std::function<void(const VarPtr&)> walk = [&](const VarPtr& v) {
      Node* owner = v->owner();
      if (!owner || map_.count(v.get()) || !seen.insert(owner).second) return;
      for (const VarPtr& i : owner->inputs()) walk(i);
      order.push_back(owner);  // after its inputs' producers: a topological order
    };
    for (const VarPtr& v : outputs) walk(v);
    for (Node* f : order) visit(*f);
    std::vector<Local> outs;
    for (const VarPtr& v : outputs) outs.push_back(local(v));
    TGC_INTERNAL_CHECK(static_cast<int>(outs.size()) == n.num_outputs(), "distribute: formula output count");
    return outs;
  }

  std::optional<std::vector<Local>> dimshuffle(const Node& n, const DimShuffle& d, const Local& x) {
    VarPtr out = apply_to(n, {x.var})[0];
    if (x.dist == Dist::Partial) return std::vector<Local>{partial(out)};
    const auto& p = d.pattern();
    auto it = std::find(p.begin(), p.end(), x.axis);
    if (it == p.end()) return std::nullopt;  // the split axis dropped: it had size 1 on each rank
    return std::vector<Local>{split(out, static_cast<int>(it - p.begin()))};
  }

  // Partial values stay partial through linear elementwise ops: a sum of partials, a partial
  // times or divided by a replicated value, a negation, a float cast.
  static bool keeps_partial(const Elemwise& e, const std::vector<Local>& in) {
    auto is = [&](size_t i, Dist d) { return in[i].dist == d; };
    switch (e.kind()) {
      case ScalarOpKind::Add:
      case ScalarOpKind::Sub:
        return std::all_of(in.begin(), in.end(), [](const Local& l) { return l.dist == Dist::Partial; });
      case ScalarOpKind::Mul:
        return in.size() == 2 && ((is(0, Dist::Partial) && is(1, Dist::Replicated)) ||
                                  (is(0, Dist::Replicated) && is(1, Dist::Partial)));
      case ScalarOpKind::TrueDiv: return is(0, Dist::Partial) && is(1, Dist::Replicated);
      case ScalarOpKind::Neg: return true;
      case ScalarOpKind::Cast: return e.cast_to() && is_float(*e.cast_to());
      default: return false;
    }
  }

  std::optional<std::vector<Local>> elemwise(const Node& n, const Elemwise& e, std::vector<Local>& in) {
    const bool any_partial = std::any_of(in.begin(), in.end(), [](const Local& l) { return l.dist == Dist::Partial; });
    if (any_partial) {
      if (keeps_partial(e, in)) {
        std::vector<VarPtr> vars;
        for (const Local& l : in) vars.push_back(l.var);
        return std::vector<Local>{partial(apply_to(n, vars)[0])};
      }
      for (Local& l : in)
        if (l.dist == Dist::Partial) l = replicated(whole(l));
    }
    return split_broadcast(n, in);
  }

  // An op over broadcast operands (elementwise ops, fill): split inputs must agree on the
  // output axis, and replicated ones must be broadcast along it (lack it, or have size 1).
  std::optional<std::vector<Local>> split_broadcast(const Node& n, const std::vector<Local>& in) {
    const int out_ndim = n.output_raw(0)->type().ndim();
    int axis = -1;
    for (const Local& l : in) {
      if (l.dist != Dist::Split) continue;
      const int a = l.axis + out_ndim - l.var->type().ndim();
      if (axis >= 0 && a != axis) return std::nullopt;
      axis = a;
    }
    if (axis < 0) return std::nullopt;  // partials made whole: every input replicated now
    std::vector<VarPtr> vars;
    for (const Local& l : in) {
      if (l.dist == Dist::Replicated) {
        const int at = axis - (out_ndim - l.var->type().ndim());
        if (at >= 0 && l.var->type().shape[at] != 1) return std::nullopt;
      }
      vars.push_back(l.var);
    }
    return std::vector<Local>{split(apply_to(n, vars)[0], axis)};
  }

  // fill(like, value): like lends its shape only, so a partial value stays partial.
  std::optional<std::vector<Local>> fill(const Node& n, std::vector<Local>& in) {
    if (in[1].dist == Dist::Partial && in[0].dist == Dist::Replicated)
      return std::vector<Local>{partial(apply_to(n, {in[0].var, in[1].var})[0])};
    for (Local& l : in)
      if (l.dist == Dist::Partial) l = replicated(whole(l));
    return split_broadcast(n, in);
  }

  std::optional<std::vector<Local>> careduce(const Node& n, const CAReduce& r, const Local& x) {
    if (x.dist == Dist::Partial) {
      if (r.kind() != ReduceKind::Sum) return std::nullopt;
      return std::vector<Local>{partial(apply_to(n, {x.var})[0])};
    }
    VarPtr out = apply_to(n, {x.var})[0];
    if (!reduces_axis(r.axes(), x.axis)) return std::vector<Local>{split(out, axis_after_reduce(r.axes(), x.axis, r.keepdims()))};
    switch (r.kind()) {
      case ReduceKind::Sum: return std::vector<Local>{partial(out)};
      case ReduceKind::Max:
      case ReduceKind::Min: {
        // The rank's max, then the max over ranks (an empty part cannot happen: parts are equal).
        auto op = r.kind() == ReduceKind::Max ? CollectiveOpKind::Max : CollectiveOpKind::Min;
        return std::vector<Local>{replicated(apply1(std::make_shared<AllReduce>(op, spec_.group), {out}))};
      }
      default: return std::nullopt;
    }
  }

  std::optional<std::vector<Local>> mean(const Node& n, const Mean& m, const Local& x) {
    VarPtr out = apply_to(n, {x.var})[0];
    if (x.dist == Dist::Partial) return std::vector<Local>{partial(out)};
    if (!reduces_axis(m.axes(), x.axis)) return std::vector<Local>{split(out, axis_after_reduce(m.axes(), x.axis, m.keepdims()))};
    // Equal parts: the whole's mean is the sum over ranks of each part's mean / size.
    VarPtr size = scalar_constant(spec_.group->size(), out->type().dtype);
    return std::vector<Local>{partial(apply1(std::make_shared<Elemwise>(ScalarOpKind::TrueDiv), {out, size}))};
  }

  std::optional<std::vector<Local>> reduce_count(const ReduceCount& c, const Local& x) {
    VarPtr out = apply1(std::make_shared<ReduceCount>(c.axes(), c.dtype()), {x.var});
    if (x.dist != Dist::Split || !reduces_axis(c.axes(), x.axis)) return std::vector<Local>{replicated(out)};
    VarPtr size = scalar_constant(spec_.group->size(), out->type().dtype);
    return std::vector<Local>{replicated(apply1(std::make_shared<Elemwise>(ScalarOpKind::Mul), {out, size}))};
  }

  std::optional<std::vector<Local>> dot(const Node& n, const std::vector<Local>& in) {
    const Local& a = in[0];
    const Local& b = in[1];
    const int na = a.var->type().ndim(), nb = b.var->type().ndim();
    auto out = [&] { return apply_to(n, {a.var, b.var})[0]; };
    const bool a_r = a.dist == Dist::Replicated, b_r = b.dist == Dist::Replicated;
    if ((a.dist == Dist::Partial && b_r) || (a_r && b.dist == Dist::Partial)) return std::vector<Local>{partial(out())};
    if (a.dist == Dist::Split && b_r && na == 2 && a.axis == 0) return std::vector<Local>{split(out(), 0)};
    if (a_r && b.dist == Dist::Split && nb == 2 && b.axis == 1) return std::vector<Local>{split(out(), na - 1)};
    // The contracted dim split on both sides: each rank's product is a part of the sum.
    if (a.dist == Dist::Split && b.dist == Dist::Split && a.axis == na - 1 && b.axis == 0)
      return std::vector<Local>{partial(out())};
    return std::nullopt;
  }

  std::optional<std::vector<Local>> sum_to_like(const Node& n, const std::vector<Local>& in) {
    const Local& g = in[0];
    const Local& like = in[1];
    const int offset = g.var->type().ndim() - like.var->type().ndim();
    VarPtr out = apply_to(n, {g.var, like.var})[0];
    if (g.dist == Dist::Partial && like.dist == Dist::Replicated) return std::vector<Local>{partial(out)};
    if (g.dist != Dist::Split) return std::nullopt;
    const int at = g.axis - offset;
    if (like.dist == Dist::Split && like.axis == at) return std::vector<Local>{split(out, at)};
    // Summed over the split axis (like lacks it or broadcast it): a part of the whole sum.
    if (like.dist == Dist::Replicated && (at < 0 || like.var->type().shape[at] == 1)) return std::vector<Local>{partial(out)};
    return std::nullopt;
  }

  // Row ops (softmax along `axis`, its gradient): split along another axis, rows stay whole.
  std::optional<std::vector<Local>> rows(const Node& n, const std::vector<Local>& in, int axis) {
    int split_axis = -1;
    std::vector<VarPtr> vars;
    for (const Local& l : in) {
      if (l.dist != Dist::Split || l.axis == axis || (split_axis >= 0 && l.axis != split_axis)) return std::nullopt;
      split_axis = l.axis;
      vars.push_back(l.var);
    }
    return std::vector<Local>{split(apply_to(n, vars)[0], split_axis)};
  }

  const DataParallelSpec& spec_;
  std::vector<std::string>* notes_;
  std::unordered_map<const Variable*, Local> map_;
  std::unordered_map<const Variable*, VarPtr> whole_;
};

}  // namespace

Graph distribute(const Graph& graph, const DataParallelSpec& spec, std::vector<std::string>* notes) {
  TGC_INTERNAL_CHECK(spec.group != nullptr, "distribute: no group");
  return Distributor(spec, notes).run(graph);
}

}  // namespace tgc
