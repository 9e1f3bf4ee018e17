// The placement pass: one walk in topological order deciding where each node runs and
// where each value lives, inserting a transfer at every crossing (memoised per value and
// direction), then routing the graph outputs to where the caller wants them.
#include "compiler/passes/placement.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "compiler/kernel/composite_op.h"
#include "compiler/scan/scan_op.h"
#include "ops/core/apply.h"
#include "ops/shape/shape_of.h"
#include "ops/transfer/transfer.h"

namespace tgc {

namespace {

bool is_loop(const Node& n) { return dynamic_cast<const ScanOp*>(&n.op()) != nullptr; }

bool is_marker(const Node& n) { return dynamic_cast<const HostToDevice*>(&n.op()) != nullptr; }

// Removes every transfer node: on the host they are identities.
std::string host_reason(const Node& n, const PlacementTarget& target) {
  if (reads_only_metadata(n.op())) return "reads only the shape of its input, which stays where it is";
  std::string reason = target.host_reason ? target.host_reason(n) : "";
  return reason.empty() ? "no device implementation of " + n.op().op_class() : reason;
}

bool strip_transfers(Graph& graph) {
  bool changed = false;
  for (Node* n : graph.toposort()) {
    if (!n->op().is_transfer()) continue;
    graph.replace(n->output_raw(0), n->inputs()[0]);
    changed = true;
  }
  return changed;
}

class Placer {
 public:
  Placer(Graph& graph, const PlacementTarget& target, std::unordered_map<const Node*, std::string>* reasons)
      : graph_(graph), target_(target), reasons_(reasons) {}

  bool run() {
    for (size_t i = 0; i < target_.input_locations.size() && i < graph_.inputs().size(); ++i)
      location_[graph_.inputs()[i].get()] = target_.input_locations[i];
    for (Node* n : graph_.toposort()) place(*n);
    route_outputs();
    move_device_only_shared();
    return changed_;
  }

 private:
  DeviceKind where(const Variable* v) const {
    auto it = location_.find(v);
    if (it != location_.end()) return it->second;
    if (v->kind() == Variable::Kind::Shared && target_.float32_shared_on_device &&
        v->type().dtype == DType::Float32)
      return target_.device;
    if (v->kind() == Variable::Kind::Shared && target_.stays_on_device && target_.stays_on_device(*v))
      return target_.device;
    return DeviceKind::Host;
  }

  // `v` where `to` is: itself, or the one transfer of it in that direction.
  VarPtr moved(const VarPtr& v, DeviceKind to) {
    if (where(v.get()) == to) return v;
    auto key = std::make_pair(v.get(), to);
    auto it = transfers_.find(key);
    if (it != transfers_.end()) return it->second;
    std::shared_ptr<const Op> op;
    if (to == DeviceKind::Host) op = std::make_shared<DeviceToHost>();
    else op = std::make_shared<HostToDevice>();
    VarPtr out = apply1(op, {v});
    out->owner()->set_placement(target_.device);  // the device backend carries out both directions
    location_[out.get()] = to;
    transfers_[key] = out;
    changed_ = true;
    return out;
  }

  void place(Node& n) {
    if (n.op().is_transfer()) {
      // The user's marker: its value must be on the device (gpu_from_host) or the host.
      const DeviceKind to = is_marker(n) ? target_.device : DeviceKind::Host;
      VarPtr there = moved(n.inputs()[0], to);
      graph_.replace(n.output_raw(0), there);
      marked_.insert({there.get(), to});
      changed_ = true;
      return;
    }
    // A loop runs where the function does: its inner graph is placed on its own.
    const DeviceKind at = (target_.runs_on_device && target_.runs_on_device(n)) || is_loop(n) ? target_.device
                                                                                              : DeviceKind::Host;
    if (n.placement() != at) changed_ = true;
    n.set_placement(at);
    if (reasons_) {
      if (at == DeviceKind::Host) (*reasons_)[&n] = host_reason(n, target_);
      else reasons_->erase(&n);
    }
    // A node that reads only its inputs' shapes (x.shape) takes them where they are: a device
    // tensor is not copied to the host to have its shape read.
    if (reads_only_metadata(n.op())) {
      for (int k = 0; k < n.num_outputs(); ++k) location_[n.output_raw(k)] = at;
      return;
    }
    for (size_t i = 0; i < n.inputs().size(); ++i) {
      VarPtr in = moved(n.inputs()[i], at);
      if (in != n.inputs()[i]) n.set_input(static_cast<int>(i), in);
    }
    for (int k = 0; k < n.num_outputs(); ++k) location_[n.output_raw(k)] = at;
  }

  void route_outputs() {
    const std::vector<VarPtr> outs = graph_.outputs();
    for (size_t k = 0; k < outs.size(); ++k) {
      DeviceKind want = DeviceKind::Host;
      if (k < target_.output_locations.size()) want = target_.output_locations[k];
      auto m = marked_.find(outs[k].get());
      if (m != marked_.end() && (k >= target_.output_locations.size() || want == DeviceKind::Host)) want = m->second;
      VarPtr v = moved(outs[k], want);
      if (v != outs[k]) graph_.set_output(k, v);
    }
  }

  // A shared variable that starts on the host but is read only through its one transfer to
  // the device (int32 token ids of an embedding lookup) lives on the device instead: the
  // transfer goes, and the function moves the value there once (shared_on_device below)
  // rather than on every call, which also lets a call be recorded as a CUDA graph.
  void move_device_only_shared() {
    if (!target_.may_move_shared) return;
    const auto clients = graph_.clients();
    std::unordered_set<const Variable*> outputs;
    for (const VarPtr& o : graph_.outputs()) outputs.insert(o.get());
    for (Variable* v : graph_.roots()) {
      if (v->kind() != Variable::Kind::Shared || where(v) == target_.device || outputs.count(v) ||
          !target_.may_move_shared(*v))
        continue;
      auto it = clients.find(v);
      if (it == clients.end() || it->second.empty()) continue;
      bool only_to_device = true;
      for (const auto& [n, i] : it->second) only_to_device = only_to_device && is_marker(*n) && n->placement() != DeviceKind::Host;
      if (!only_to_device) continue;
      for (const auto& [n, i] : it->second) graph_.replace(n->output_raw(0), n->inputs()[i]);
      changed_ = true;
    }
  }

  Graph& graph_;
  const PlacementTarget& target_;
  std::unordered_map<const Node*, std::string>* reasons_;
  std::unordered_map<const Variable*, DeviceKind> location_;
  std::map<std::pair<const Variable*, DeviceKind>, VarPtr> transfers_;
  std::unordered_map<const Variable*, DeviceKind> marked_;
  bool changed_ = false;
};

}  // namespace

std::string placed_op_name(const Node& node) {
  if (dynamic_cast<const HostToDevice*>(&node.op())) return node.placement() == DeviceKind::Host ? "HostToDevice" : "GpuFromHost";
  if (dynamic_cast<const DeviceToHost*>(&node.op())) return node.placement() == DeviceKind::Host ? "DeviceToHost" : "HostFromGpu";
  if (node.placement() == DeviceKind::Host) return node.op().name();
  if (const auto* c = dynamic_cast<const Composite*>(&node.op())) {
    const Kernel& k = c->kernel();
    if (k.is_reduction()) return "GpuCAReduce{" + c->name() + "}";
    // One scalar operation over loads and constants: Theano's GpuElemwise{exp}.
    int ops = 0;
    ScalarOpKind only = ScalarOpKind::Add;
    for (const KernelValue& v : k.values)
      if (v.kind == KernelValue::Kind::Op && ++ops == 1) only = v.op;
    if (ops == 1 && k.outputs.size() == 1) return "GpuElemwise{" + std::string(scalar_op_name(only)) + "}";
    return "GpuElemwise{" + c->name() + "}";
  }
  return "Gpu" + node.op().name();
}

std::vector<bool> shared_on_device(const Graph& graph, const std::vector<const Variable*>& shared,
                                   const PlacementTarget& target) {
  std::vector<bool> out(shared.size(), false);
  if (target.device == DeviceKind::Host) return out;
  const auto clients = graph.clients();
  for (size_t k = 0; k < shared.size(); ++k) {
    const Variable& v = *shared[k];
    if ((target.float32_shared_on_device && v.type().dtype == DType::Float32) ||
        (target.stays_on_device && target.stays_on_device(v))) {
      out[k] = true;
      continue;
    }
    // Another dtype: on the device when placement moved it there (every reader a device node).
    auto it = clients.find(&v);
    bool device_only = it != clients.end() && !it->second.empty();
    if (device_only)
      for (const auto& [n, i] : it->second)
        device_only = device_only && n->placement() != DeviceKind::Host && !is_marker(*n);
    out[k] = device_only;
  }
  return out;
}

bool place_on_device(Graph& graph, const PassContext& ctx) {
  if (ctx.placement.device == DeviceKind::Host) return strip_transfers(graph);
  return Placer(graph, ctx.placement, ctx.host_reasons).run();
}

}  // namespace tgc
