// Test helpers over symbolic graphs: evaluates expressions with each op's reference perform
// (no compiled function needed), checking on the way that every value fits its variable's
// static type, that infer_shapes agrees with perform, and that an output shares an input's
// buffer only where view_of_input says; and names the op that computed a Var.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <tgc/var.h>

#include "ops/control/ifelse.h"
#include "ops/core/node.h"

namespace tgc::test {

class GraphEval {
 public:
  explicit GraphEval(std::vector<std::pair<Var, Tensor>> givens = {}) {
    for (auto& [var, value] : givens) memo_[var.ptr().get()] = value;
  }

  Tensor operator()(const Var& v) { return value(v.ptr().get()); }

 private:
  Tensor value(const Variable* v) {
    auto it = memo_.find(v);
    if (it != memo_.end()) return it->second;
    switch (v->kind()) {
      case Variable::Kind::Constant: return memo_[v] = v->constant_value();
      case Variable::Kind::Shared: return memo_[v] = v->storage()->current();
      case Variable::Kind::Input:
        ADD_FAILURE() << "no value given for input " << v->label();
        return Tensor();
      case Variable::Kind::Result: break;
    }
    Node* node = v->owner();
    std::vector<Tensor> in;
    std::vector<Shape> in_shapes;
    for (const VarPtr& i : node->inputs()) {
      in.push_back(value(i.get()));
      in_shapes.push_back(in.back().shape());
    }
    std::vector<Tensor> out(node->num_outputs());
    node->op().perform(in, out);
    // An IfElse output is a view of its then or its else value, and its shape is the taken
    // one's, which infer_shapes knows only where both branches agree.
    const auto* ifelse = dynamic_cast<const IfElse*>(&node->op());
    bool shapes_differ = false;
    for (int k = 0; ifelse && k < ifelse->size(); ++k)
      shapes_differ = shapes_differ || in_shapes[ifelse->then_input(k)] != in_shapes[ifelse->else_input(k)];
    std::vector<Shape> inferred;
    if (shapes_differ) {
      for (const Tensor& t : out) inferred.push_back(t.shape());
    } else {
      inferred = node->op().infer_shapes(in_shapes);
    }
    for (int k = 0; k < node->num_outputs(); ++k) {
      const Variable* o = node->output_raw(k);
      EXPECT_TRUE(o->type().accepts(out[k].dtype(), out[k].shape()))
          << node->op().name() << " output " << k << ": value " << dtype_name(out[k].dtype()) << " "
          << shape_str(out[k].shape()) << " does not fit the static type " << o->type().str();
      EXPECT_EQ(inferred[k], out[k].shape()) << node->op().name() << ": infer_shapes disagrees with perform";
      for (size_t i = 0; i < in.size(); ++i) {
        if (ifelse && static_cast<int>(i) == ifelse->else_input(k)) continue;
        if (out[k].shares_buffer(in[i]) && out[k].numel() > 0) {
          EXPECT_EQ(node->op().view_of_input(k), static_cast<int>(i))
              << node->op().name() << " output " << k << " is a view of input " << i << " undeclared";
        }
      }
      memo_[o] = out[k];
    }
    return memo_[v];
  }

  std::map<const Variable*, Tensor> memo_;
};

// Evaluates `out` with the given input values.
inline Tensor eval(const Var& out, std::vector<std::pair<Var, Tensor>> givens = {}) {
  return GraphEval(std::move(givens))(out);
}

// The name of the op whose node computed v ("Dot", "Sum{axis=[1]}").
inline std::string op_name(const Var& v) { return v.ptr()->owner()->op().name(); }

}  // namespace tgc::test
