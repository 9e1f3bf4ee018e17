// Test helper for the shape, subtensor, join and alloc families: evaluates symbolic
// expressions with each op's reference perform (no compiled function needed), and checks
// on the way that every value fits its variable's static type, that infer_shapes agrees
// with perform, and that an output shares an input's buffer only where view_of_input says.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

#include <tgc/var.h>

#include "ops/core/node.h"

namespace tgc::testing {

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
    std::vector<Shape> inferred = node->op().infer_shapes(in_shapes);
    for (int k = 0; k < node->num_outputs(); ++k) {
      const Variable* o = node->output_raw(k);
      EXPECT_TRUE(o->type().accepts(out[k].dtype(), out[k].shape()))
          << node->op().name() << " output " << k << ": value " << dtype_name(out[k].dtype()) << " "
          << shape_str(out[k].shape()) << " does not fit the static type " << o->type().str();
      EXPECT_EQ(inferred[k], out[k].shape()) << node->op().name() << ": infer_shapes disagrees with perform";
      for (size_t i = 0; i < in.size(); ++i) {
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

// A float64 tensor 0, 1, 2, ... of `shape`, converted to `dtype`.
inline Tensor iota(const Shape& shape, DType dtype = DType::Float64) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return Tensor::from_vector(v, shape).astype(dtype);
}

// The same values as `t`, laid out with reversed strides: t.copy() transposed back and
// forth, so that the view is non-contiguous (Fortran order) but logically equal to t.
inline Tensor fortran_copy(const Tensor& t) {
  std::vector<int> rev(t.ndim());
  for (int i = 0; i < t.ndim(); ++i) rev[i] = t.ndim() - 1 - i;
  return t.transpose(rev).copy().transpose(rev);
}

// A view with the same values as `t` whose axis 0 has a negative stride.
inline Tensor reversed_axis0_view(const Tensor& t) {
  // r holds t's rows in reverse order; r viewed with axis 0 walked backwards is t again.
  const Shape& s = t.shape();
  const int64_t n = s[0], inner = n ? t.numel() / n : 0;
  std::vector<double> vals = t.to_vector<double>(), rows(vals.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < inner; ++j) rows[(n - 1 - i) * inner + j] = vals[i * inner + j];
  Tensor r = Tensor::from_vector(rows, s).astype(t.dtype());
  Strides st = r.strides();
  const int64_t offset = n ? (n - 1) * st[0] : 0;
  st[0] = -st[0];
  return r.view(s, st, offset);
}

}  // namespace tgc::testing
