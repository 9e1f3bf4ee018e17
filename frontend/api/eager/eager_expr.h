// EagerExpr: the recorded graph behind a pending eager tensor (runtime/pending_value.h). An
// elementwise eager operation does not run: it returns a Tensor holding an EagerExpr, and the
// next operation on that tensor extends the same graph. The whole chain runs as one compiled
// call (the fusion pass makes it one kernel) when the value is first needed.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include <tgc/var.h>

#include "runtime/pending_value.h"
#include "runtime/tensor.h"

namespace tgc::eager_impl {

// A free input of a recorded graph and the concrete tensor it stands for.
struct Leaf {
  VarPtr var;
  Tensor value;
};

// The leaf standing for `value`, the index-th of its graph (named "x<index>" in messages):
// typed by leaf_type (eager_structure.h).
Leaf make_leaf(const Tensor& value, size_t index);

// The device eager operations on `d`'s tensors run on: `d`, except that every host-kind
// device (a borrowed NumPy array's memory, say) is the host.
inline Device& eager_device(Device& d) { return d.kind() == DeviceKind::Host ? host_device() : d; }

// A tensor of `shape` on `device` whose values are never read, for a graph that only needs a
// shape at run time (a fill, a random draw's size): a stride-0 view of one element, so the
// graph compiles once per rank, whatever the size.
Tensor shape_carrier(const Shape& shape, Device& device);

class EagerExpr final : public PendingValue {
 public:
  // `nodes`: the graph's size, which bounds how long a chain may grow before it runs.
  EagerExpr(Var expr, std::vector<Leaf> leaves, Device& device, int nodes);

  const Tensor& value() override;
  bool computed() const override { return done_.load(std::memory_order_acquire); }
  Device& device() const override { return *device_; }
  std::string describe() const override;

  // The recorded graph, for an operation that extends it; false once computed (the graph
  // is gone then: the value is a leaf like any tensor).
  bool recorded(Var& expr, std::vector<Leaf>& leaves, int& nodes) const;
  // Whether the graph, not computed yet, reads `buffer` (one of its leaves' memory).
  bool reads(const Buffer* buffer) const;

 private:
  mutable std::mutex mutex_;
  std::atomic<bool> done_{false};
  Var expr_;
  std::vector<Leaf> leaves_;
  Device* device_;
  int nodes_;
  std::string description_;  // kept after the graph is released, for errors
  Tensor result_;
};

// Recorded graphs not computed yet, for writes into tensors (assign, eager_assign.cpp): a graph
// reads its leaves when it runs, so a write into a leaf's memory computes it first.
void remember_recorded(const std::shared_ptr<EagerExpr>& expr);
// Computes every remembered graph that reads `buffer`.
void compute_readers_of(const Buffer* buffer);

}  // namespace tgc::eager_impl
