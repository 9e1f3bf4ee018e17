// float32_casting: one forward sweep that rebuilds float64 nodes over float32 operands, then
// the warn_float64 report over what is left.
#include "compiler/passes/float32_casting.h"

#include <cfloat>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>

#include "compiler/passes/graph_editor.h"
#include "ops/core/apply.h"
#include "ops/elemwise/elemwise.h"
#include "runtime/error.h"

namespace tgc {

namespace {

const Elemwise* as_cast(const Node& n) {
  auto* e = dynamic_cast<const Elemwise*>(&n.op());
  return e && e->kind() == ScalarOpKind::Cast ? e : nullptr;
}

bool outputs_float64(const Node& n) {
  for (int k = 0; k < n.num_outputs(); ++k)
    if (n.output_raw(k)->type().dtype == DType::Float64) return true;
  return false;
}

// Whether float32 holds every value of `c` "reasonably": to float32's precision, with no
// finite value overflowing to inf and no nonzero value losing digits below float32's normal
// range. inf and NaN stay what they are.
bool fits_float32(const Tensor& c) {
  for (double v : c.to_vector<double>()) {
    double a = std::fabs(v);
    if (!std::isfinite(v) || a == 0) continue;
    if (a > FLT_MAX) return false;
    if (a < FLT_MIN && static_cast<double>(static_cast<float>(v)) != v) return false;
  }
  return true;
}

// Where float64 entered, seen from `v` (a float64 variable): following the first float64
// operand back to a float64 constant, input or shared variable, or to the node that made
// float64 from narrower operands (a cast, an op built with floatX=float64). `hints` says it
// for the casts this pass put back, whose own operand is float32.
std::string float64_origin(const Variable* v, const std::unordered_map<const Variable*, std::string>& hints) {
  while (true) {
    if (auto it = hints.find(v); it != hints.end()) return it->second;
    if (!v->owner()) {
      std::string what = v->kind() == Variable::Kind::Constant ? "the float64 constant "
                         : v->kind() == Variable::Kind::Shared ? "the float64 shared variable "
                                                                : "the float64 input ";
      return what + "'" + v->label() + "'";
    }
    const Variable* next = nullptr;
    for (const VarPtr& in : v->owner()->inputs())
      if (in->type().dtype == DType::Float64) {
        next = in.get();
        break;
      }
    if (!next) return "'" + v->owner()->describe() + "'";
    v = next;
  }
}

class Narrower {
 public:
  explicit Narrower(Graph& graph) : editor_(graph) {}

  bool run() {
    bool changed = false;
    for (Node* node : editor_.toposort()) {
      if (!editor_.alive(node)) continue;
      changed = (as_cast(*node) ? rewire_cast(*node) : narrow(*node)) || changed;
    }
    return changed;
  }

  const std::unordered_map<const Variable*, std::string>& hints() const { return hints_; }

 private:
  // The float32 form of a float64 operand: the source of a cast this pass put back, or a
  // narrowed constant. Null for a genuine float64 value.
  VarPtr float32_form(const VarPtr& v) {
    if (auto it = widened_.find(v.get()); it != widened_.end()) return it->second;
    if (v->kind() != Variable::Kind::Constant || v->type().dtype != DType::Float64) return nullptr;
    auto [it, fresh] = constants_.try_emplace(v.get());
    if (fresh && fits_float32(v->constant_value()))
      it->second = Variable::constant(v->constant_value().astype(DType::Float32), v->name());
    return it->second;
  }

  // A float64 node whose float64 operands all have float32 forms, and which meets at least
  // one float32 value, is rebuilt over the float32 forms.
  //
  // A node with no float64 output (a comparison) that reads a value this pass narrowed is
  // rebuilt too: reading the narrowed value widened back while its twin operand (the same
  // float64 constant) stays float64 would compare float(0.1) with 0.1 and flip results.
  bool narrow(Node& node) {
    bool reads_widened = false;
    for (const VarPtr& in : node.inputs()) reads_widened = reads_widened || widened_.count(in.get()) > 0;
    if (!outputs_float64(node) && !reads_widened) return false;
    std::vector<VarPtr> inputs = node.inputs();
    bool meets_float32 = false, any = false;
    for (VarPtr& in : inputs) {
      bool widened = widened_.count(in.get()) > 0;
      meets_float32 = meets_float32 || widened || in->type().dtype == DType::Float32;
      if (in->type().dtype != DType::Float64) continue;
      VarPtr f = float32_form(in);
      if (!f) return false;  // a genuine float64 operand: the node computes in float64
      in = f;
      any = true;
    }
    if (!any || !meets_float32) return false;
    std::vector<VarPtr> outs;
    try {
      outs = apply(node.op_ptr(), inputs);
    } catch (const InternalError&) {
      throw;
    } catch (const Error&) {
      return false;  // the op does not accept the narrower operands: leave it
    }
    for (int k = 0; k < node.num_outputs(); ++k) {
      const Type& old = node.output_raw(k)->type();
      const Type& now = outs[k]->type();
      bool narrowed = old.dtype == DType::Float64 && now.dtype == DType::Float32;
      if (!narrowed && now.dtype != old.dtype) return false;
      if (old.ndim() != now.ndim()) return false;
    }
    for (int k = 0; k < node.num_outputs(); ++k) {
      Variable* old = node.output_raw(k);
      outs[k]->set_name(old->name());
      VarPtr repl = outs[k];
      if (old->type().dtype == DType::Float64) {
        std::string origin = float64_origin(old, hints_);
        repl = apply1(std::make_shared<Elemwise>(ScalarOpKind::Cast, DType::Float64), {outs[k]});
        widened_[repl.get()] = outs[k];
        hints_[repl.get()] = origin;
      }
      editor_.replace(old, repl);
    }
    return true;
  }

  // A cast reading a value this pass narrowed reads the float32 value instead (exact: the
  // float64 was a widened float32). A cast to float64 stays a cast: the user asked for it.
  bool rewire_cast(Node& node) {
    auto it = widened_.find(node.inputs()[0].get());
    if (it == widened_.end()) return false;
    const VarPtr& source = it->second;
    VarPtr repl = as_cast(node)->cast_to() == DType::Float32 ? source : apply1(node.op_ptr(), {source});
    editor_.replace(node.output_raw(0), repl);
    return true;
  }

  GraphEditor editor_;
  std::unordered_map<const Variable*, VarPtr> widened_;    // cast put back -> its float32 source
  std::unordered_map<const Variable*, VarPtr> constants_;  // float64 constant -> float32 or null
  std::unordered_map<const Variable*, std::string> hints_;  // cast put back -> where float64 entered
};

void report_float64(const Graph& graph, const PassContext& ctx,
                    const std::unordered_map<const Variable*, std::string>& hints) {
  for (const Variable* r : graph.roots())
    if (r->kind() != Variable::Kind::Constant && r->type().dtype == DType::Float64) return;
  for (const Node* n : graph.toposort()) {
    for (int k = 0; k < n->num_outputs(); ++k) {
      const Variable* out = n->output_raw(k);
      if (out->type().dtype != DType::Float64) continue;
      ctx.warn("float64 in a float32 graph: " + n->describe() + " outputs float64; float64 enters at " +
               float64_origin(out, hints));
      break;
    }
  }
}

}  // namespace

bool float32_casting(Graph& graph, const PassContext& ctx) {
  // The narrower outlives the report: its hints name the casts it put back, which its editor
  // keeps alive.
  Narrower narrower(graph);
  bool changed = ctx.config.floatX == DType::Float32 && narrower.run();
  if (ctx.config.warn_float64) report_float64(graph, ctx, narrower.hints());
  return changed;
}

}  // namespace tgc
