// What the collective ops share: the group they run over, how a reduction combines ranks
// (sum, mean, max, min), and the host implementation's access to the group's communicator.
// The four ops (AllReduce, AllGather, ReduceScatter, Broadcast) derive from CollectiveOp;
// the profiler times them as their own kind (comm), and the data-parallel rewrite and the
// GPU backend recognise them by this base.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ops/core/op.h"
#include "ops/core/variable.h"
#include "runtime/comm/world.h"

namespace tgc {

// How all_reduce and reduce_scatter combine the ranks' values. Mean is a sum divided by the
// group's size (float dtypes only).
enum class CollectiveOpKind { Sum, Mean, Max, Min };
std::string collective_op_name(CollectiveOpKind kind);  // "sum", "mean", "max", "min"
// Parses "sum" | "mean" | "max" | "min"; ValueError with the nearest name otherwise.
CollectiveOpKind parse_collective_op(std::string_view text, const std::string& where);
// The engine's reduction for a kind (Mean: Sum; the op divides afterwards).
CollectiveReduce engine_reduce(CollectiveOpKind kind);

class CollectiveOp : public Op {
 public:
  explicit CollectiveOp(std::shared_ptr<CommGroup> group);
  const std::shared_ptr<CommGroup>& group() const { return group_; }
  int group_size() const { return group_->size(); }
  std::string op_class() const override { return "Collective"; }
  bool is_collective() const override { return true; }
  // Bus bandwidth per byte of algorithm bandwidth (nccl-tests): what the profile reports.
  virtual double bus_factor() const = 0;

 protected:
  // "group=world(2)": the part of every collective's name that says where it runs.
  std::string group_label() const;
  // The communicator moving host memory for this group (MPI, or self for one rank).
  Communicator& host_communicator() const;

 private:
  std::shared_ptr<CommGroup> group_;
};

// Divides every element of a float tensor by `n` in place (a mean's last step).
void divide_in_place(Tensor& t, int n);

}  // namespace tgc
