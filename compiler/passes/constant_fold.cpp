// constant_fold: evaluation of constant subexpressions with the ops' reference perform.
#include "compiler/passes/constant_fold.h"

#include <string>
#include <vector>

#include "compiler/passes/graph_editor.h"
#include "runtime/error.h"

namespace tgc {

namespace {

bool all_inputs_constant(const Node& n) {
  for (const VarPtr& in : n.inputs())
    if (in->kind() != Variable::Kind::Constant || !in->constant_value().defined() ||
        !in->constant_value().on_host())
      return false;
  return true;
}

// The output values of `n`, or an empty vector when the node must stay: an output over the
// size limit, or an evaluation that raises a user error (kept for run time, where the
// executor names the node).
std::vector<Tensor> evaluate(const Node& n) {
  std::vector<Tensor> in;
  std::vector<Shape> shapes;
  for (const VarPtr& v : n.inputs()) {
    in.push_back(v->constant_value());
    shapes.push_back(in.back().shape());
  }
  std::vector<Tensor> out(n.num_outputs());
  try {
    for (const Shape& s : n.op().infer_shapes(shapes))
      if (shape_numel(s) > kConstantFoldLimit) return {};
    n.op().perform(in, out);
  } catch (const Error&) {
    return {};
  }
  for (Tensor& t : out) {
    // A view of an input would keep a (possibly large) constant's buffer alive and share it:
    // a folded constant owns its storage.
    bool view = false;
    for (const Tensor& i : in) view = view || t.shares_buffer(i);
    if (view || !t.is_contiguous() || t.offset() != 0) t = t.copy();
  }
  return out;
}

}  // namespace

std::vector<Tensor> fold_node(const Node& n) {
  // A collective moves data between ranks when the function runs: evaluating it while
  // compiling would call the engine out of turn (and with a constant it still has to).
  if (n.op().is_collective()) return {};
  if (!all_inputs_constant(n)) return {};
  return evaluate(n);
}

bool constant_fold(Graph& graph, const PassContext& ctx) {
  GraphEditor editor(graph);
  bool changed = false;
  for (Node* n : editor.toposort()) {
    if (!editor.alive(n)) continue;
    std::vector<Tensor> values = fold_node(*n);
    if (values.empty()) continue;
    std::vector<VarPtr> constants;
    bool fits = true;
    for (int i = 0; i < n->num_outputs(); ++i) {
      constants.push_back(Variable::constant(values[i]));
      fits = fits && interchangeable(n->output_raw(i)->type(), constants.back()->type());
    }
    TGC_INTERNAL_CHECK(fits, "constant_fold: " + n->op().name() + " computed a value that does not fit its type");
    std::string before;
    if (ctx.trace) {
      before = n->op().name() + "(";
      for (size_t i = 0; i < n->inputs().size(); ++i) before += (i ? ", " : "") + n->inputs()[i]->label();
      before += ")";
    }
    for (int i = 0; i < n->num_outputs(); ++i) {
      if (ctx.trace) ctx.trace->push_back({"constant_fold", "constant_fold", before, constants[i]->label()});
      editor.replace(n->output_raw(i), constants[i]);
    }
    changed = true;
  }
  return changed;
}

}  // namespace tgc
