// EagerExpr: computes a recorded eager graph once, then keeps only its value.
#include "frontend/api/eager/eager_expr.h"

#include "frontend/api/eager/eager_run.h"
#include "frontend/api/eager/eager_structure.h"

namespace tgc::eager_impl {

Leaf make_leaf(const Tensor& value, size_t index) {
  return {Variable::input(leaf_type(value), "x" + std::to_string(index)), value};
}

Tensor shape_carrier(const Shape& shape, Device& device) {
  const Tensor one = Tensor::empty(DType::Bool, {1}, device);
  return one.reshape(Shape(shape.size(), 1)).broadcast_to(shape);
}

EagerExpr::EagerExpr(Var expr, std::vector<Leaf> leaves, Device& device, int nodes)
    : expr_(std::move(expr)), leaves_(std::move(leaves)), device_(&device), nodes_(nodes) {
  description_ = expr_.ptr()->label();
}

const Tensor& EagerExpr::value() {
  if (done_.load(std::memory_order_acquire)) return result_;
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_.load(std::memory_order_relaxed)) return result_;
  // A failure leaves the graph recorded: the next read tries again and reports again.
  result_ = run_recorded({expr_}, leaves_, *device_).at(0);
  // The value is all that is needed now: the inputs and the graph may be freed.
  expr_ = Var();
  leaves_.clear();
  done_.store(true, std::memory_order_release);
  return result_;
}

std::string EagerExpr::describe() const { return description_; }

bool EagerExpr::recorded(Var& expr, std::vector<Leaf>& leaves, int& nodes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_.load(std::memory_order_relaxed)) return false;
  expr = expr_;
  leaves = leaves_;
  nodes = nodes_;
  return true;
}

}  // namespace tgc::eager_impl
