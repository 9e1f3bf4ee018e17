// EagerExpr: computes a recorded eager graph once, then keeps only its value; the list of
// graphs not computed yet that writes consult.
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

bool EagerExpr::reads(const Buffer* buffer) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_.load(std::memory_order_relaxed)) return false;
  for (const Leaf& leaf : leaves_)
    // A pending leaf is a graph of its own (remembered too); its value is fresh memory.
    if (!leaf.value.is_pending() && leaf.value.buffer().get() == buffer) return true;
  return false;
}

namespace {

struct Remembered {
  std::mutex mutex;
  std::vector<std::weak_ptr<EagerExpr>> exprs;
  size_t since_prune = 0;
};
Remembered& remembered() {
  static Remembered* r = new Remembered;  // kept for the process: tensors may die at exit
  return *r;
}

}  // namespace

void remember_recorded(const std::shared_ptr<EagerExpr>& expr) {
  Remembered& r = remembered();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (++r.since_prune >= 64) {  // the list stays about as long as the live graphs
    std::erase_if(r.exprs, [](const std::weak_ptr<EagerExpr>& e) { return e.expired(); });
    r.since_prune = 0;
  }
  r.exprs.push_back(expr);
}

void compute_readers_of(const Buffer* buffer) {
  std::vector<std::shared_ptr<EagerExpr>> live;
  {
    Remembered& r = remembered();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const std::weak_ptr<EagerExpr>& e : r.exprs)
      if (std::shared_ptr<EagerExpr> x = e.lock()) live.push_back(std::move(x));
  }
  // Outside the list's lock: computing one may free others, whose release takes no lock here.
  for (const std::shared_ptr<EagerExpr>& e : live)
    if (e->reads(buffer)) e->value();
}

}  // namespace tgc::eager_impl
