// CaptureBranches: while a call is recorded on a device whose recordings are graphs, each
// thunk's work is made to follow only the work it depends on, so that independent work (a
// result's copy to the host, an update that reads only its own parameter) runs beside the
// chain that computes the rest instead of after it.
#pragma once

#include <map>

#include <unordered_map>
#include <vector>

#include "runtime/device.h"
#include "runtime/program.h"

namespace tgc {

// The dependencies, by buffer (views and in-place results share one):
//   - work reading a buffer follows the work that wrote it;
//   - work writing a buffer it may have been handed (an in-place input, a reused dead
//     buffer, the slot's own buffer from the previous call) follows the work that wrote or
//     read it before;
//   - a thunk that is not self-contained (Thunk::self_contained: cuBLAS shares a workspace)
//     also follows the last such thunk of its serial domain (Thunk::serial_domain: the
//     collectives of an engine keep their order apart from cuBLAS's).
// Tails only grow by union: an extra edge can cost overlap, a missing one correctness.
// Buffers are never recycled within a recording (a device keeps what is released while it
// records), so a buffer's identity is its tensors' for the whole recording.
class CaptureBranches {
 public:
  explicit CaptureBranches(Device& device) : device_(device) {}

  // Before `thunk` runs: the device's tail becomes what its work must follow. `slots` as
  // the executor holds them before the thunk's handovers move.
  void before(const Thunk& thunk, const std::vector<Tensor>& slots);
  // After it ran, its outputs stored in `slots`: its work becomes their writer and a reader
  // of what it read.
  void after(const Thunk& thunk, const std::vector<Tensor>& slots);

  // Around a copy of `src` into `dst`'s memory outside any thunk (an update written in place
  // at the end of a recording).
  void before_copy(const Tensor& dst, const Tensor& src);
  void after_copy(const Tensor& dst, const Tensor& src);

 private:
  using Tail = Device::CaptureTail;
  struct Uses {
    Tail writers, readers;
  };
  static void add(Tail& to, const Tail& from);
  Uses& uses(const Tensor& t);

  Device& device_;
  std::unordered_map<const Buffer*, Uses> buffers_;
  std::map<int, Tail> serial_;  // per serial domain, the last thunk that is not self-contained
  std::vector<const Buffer*> reading_;  // what the thunk between before() and after() reads
};

}  // namespace tgc
