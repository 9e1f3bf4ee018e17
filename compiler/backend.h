// The interface a backend implements for the compiler: turning one scheduled node into a
// thunk. Backends render what the compiler decided; they never re-derive graph decisions.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/core/node.h"
#include "runtime/program.h"

namespace tgc {

// What the linker knows of nodes' inputs before any call: per input, its shape where the
// static types and the function's shape facts (compiler/passes/shape_equivalence.h) give it
// and the value is expected in a dense buffer of its own (not a view of another), else
// nullopt. Nodes with no input known are left out. A prediction a backend may build for
// (which kernel variants to compile first), never one it may compute by.
using ExpectedInputShapes = std::unordered_map<const Node*, std::vector<std::optional<Shape>>>;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "reference", later "llvm", "cuda", "opencl"
  virtual DeviceKind device_kind() const = 0;
  // The device its device-placed nodes run on (nullptr for host-only backends): the linker
  // gives it to Gpu/Transfer thunks for profiling and error attribution.
  virtual Device* device() const { return nullptr; }
  // Whether `node` has an implementation on device(): the placement pass puts it there.
  // Host-only backends run everything on the host and say false.
  virtual bool runs_on_device(const Node& /*node*/) const { return false; }
  // Why `node` stays on the host when runs_on_device says no ("" when the backend has no
  // more to say than that it lacks an implementation): tgc show and assert_no_cpu_op print it.
  virtual std::string host_reason(const Node&) const { return ""; }
  // Called by the linker with every node this backend will make a thunk for, before the
  // first make_thunk: a backend may compile their kernels ahead, several at once (the kernels
  // that missed the cache are independent of each other), and build for the shapes the calls
  // are expected to have. The default does nothing.
  virtual void prepare(const std::vector<const Node*>& /*nodes*/, const ExpectedInputShapes& /*expected*/) const {}
  // The function that runs `node` on each call. Called once per node inside function(),
  // never on a call: all compilation happens here (or in prepare).
  virtual ThunkFn make_thunk(const Node& node) const = 0;
  // Whether the thunk of a device-placed `node` touches nothing but its operands on the
  // device (Thunk::self_contained): a recorded call may run its work beside other work.
  virtual bool self_contained(const Node& /*node*/) const { return false; }
  // For a node that is not self-contained: the shared resource its thunks are ordered by
  // (Thunk::serial_domain).
  virtual int serial_domain(const Node& /*node*/) const { return 0; }
  // Whether the device work of `node` writes nothing once the device's error word is set
  // (Thunk::skips_writes_once_flagged: a scatter checks it first).
  virtual bool skips_writes_once_flagged(const Node& /*node*/) const { return false; }
  // dst = src for two tensors on device() (the host for host-only backends): the same dtype
  // and shape, dst C-contiguous, src any strides; ordered after the work already enqueued.
  // A loop (compiler/scan/) writes each step's results into place with it. The default
  // copies on the host.
  virtual void copy_tensor(const Tensor& src, const Tensor& dst) const;
};

}  // namespace tgc
