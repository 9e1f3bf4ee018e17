// CaptureBranches: a recorded call's dependencies by buffer, set on the device before each
// thunk's work is recorded.
#include "runtime/capture_branches.h"

#include <algorithm>

namespace tgc {

void CaptureBranches::add(Tail& to, const Tail& from) {
  for (const void* n : from)
    if (std::find(to.begin(), to.end(), n) == to.end()) to.push_back(n);
}

CaptureBranches::Uses& CaptureBranches::uses(const Tensor& t) { return buffers_[t.buffer().get()]; }

void CaptureBranches::before(const Thunk& thunk, const std::vector<Tensor>& slots) {
  Tail deps;
  reading_.clear();
  for (int s : thunk.inputs) {
    const Tensor& t = slots[s];
    if (!t.defined() || !t.buffer()) continue;
    add(deps, uses(t).writers);
    reading_.push_back(t.buffer().get());
  }
  // Buffers the thunk may be given to write: everything before it that touched them.
  auto overwritten = [&](int s) {
    const Tensor& t = slots[s];
    if (!t.defined() || !t.buffer()) return;
    const Uses& u = uses(t);
    add(deps, u.writers);
    add(deps, u.readers);
  };
  for (const std::vector<Handover>* list : {&thunk.inplace, &thunk.reuse})
    for (const Handover& h : *list) overwritten(h.slot);
  for (int s : thunk.outputs) overwritten(s);
  if (!thunk.self_contained) add(deps, serial_[thunk.serial_domain]);
  device_.set_capture_tail(deps);
}

void CaptureBranches::after(const Thunk& thunk, const std::vector<Tensor>& slots) {
  const Tail tail = device_.capture_tail();
  for (const Buffer* b : reading_) add(buffers_[b].readers, tail);
  for (int s : thunk.outputs) {
    const Tensor& t = slots[s];
    if (t.defined() && t.buffer()) add(uses(t).writers, tail);
  }
  if (!thunk.self_contained) serial_[thunk.serial_domain] = tail;
  reading_.clear();
}

void CaptureBranches::before_copy(const Tensor& dst, const Tensor& src) {
  Tail deps;
  const Uses& d = uses(dst);
  add(deps, d.writers);
  add(deps, d.readers);
  add(deps, uses(src).writers);
  device_.set_capture_tail(deps);
}

void CaptureBranches::after_copy(const Tensor& dst, const Tensor& src) {
  const Tail tail = device_.capture_tail();
  add(uses(dst).writers, tail);
  add(uses(src).readers, tail);
}

}  // namespace tgc
