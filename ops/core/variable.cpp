// Variables, their labels, and shared-variable storage.
#include "ops/core/variable.h"

#include <atomic>

#include "ops/core/node.h"
#include "ops/core/shared_value_lock.h"
#include "runtime/device_lock.h"

namespace tgc {

namespace {
std::atomic<uint64_t> next_variable_id{1};
}

Variable::Variable(Kind kind, Type type, std::string name)
    : kind_(kind), type_(std::move(type)), name_(std::move(name)), id_(next_variable_id++) {}

VarPtr Variable::input(Type type, std::string name) {
  return VarPtr(new Variable(Kind::Input, std::move(type), std::move(name)));
}

VarPtr Variable::constant(Tensor value, std::string name) {
  TGC_INTERNAL_CHECK(value.defined(), "constant from an undefined tensor");
  Tensor host = value.on_host() ? value : value.to(host_device());
  VarPtr v(new Variable(Kind::Constant, Type(host.dtype(), host.shape()), std::move(name)));
  v->constant_ = host;
  return v;
}

VarPtr Variable::shared(std::shared_ptr<SharedValue> storage) {
  VarPtr v(new Variable(Kind::Shared, storage->type(), storage->name()));
  v->storage_ = std::move(storage);
  return v;
}

std::string Variable::label() const {
  if (!name_.empty()) return name_;
  switch (kind_) {
    case Kind::Constant:
      if (constant_.numel() == 1) {
        std::string s = constant_.str();
        while (s.size() > 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
        return s;
      }
      return "constant" + shape_str(constant_.shape());
    case Kind::Input: return "<unnamed " + type_.str() + ">";
    case Kind::Shared: return "<unnamed shared>";
    case Kind::Result: break;
  }
  std::string out = owner_->op().user_name() + "(";
  for (size_t i = 0; i < owner_->inputs().size(); ++i) {
    if (i) out += ", ";
    const Variable& in = *owner_->inputs()[i];
    // Nested unnamed expressions are elided so messages stay one line.
    out += (in.kind_ == Kind::Result && in.name_.empty()) ? in.owner_->op().user_name() + "(...)"
                                                         : in.label();
  }
  out += ")";
  if (owner_->num_outputs() > 1) out += "[" + std::to_string(index_) + "]";
  return out;
}

SharedValue::SharedValue(Tensor value, std::string name, bool borrow)
    : name_(std::move(name)),
      type_(Type::unknown(value.dtype(), value.ndim())),
      // borrow keeps the value where it lives (a device tensor stays on its device: the
      // functions reading it take it from there); a copy is made on the host.
      value_(borrow ? value.eval() : copy_to_device_locked(value.eval(), host_device())) {}

// A copy is always a host tensor (Theano returns a NumPy array for a GPU shared variable);
// borrow gives the storage itself, wherever it lives. Under the value's lock (a call that
// updates it holds it exclusively: what is read is the value before or after a call, never
// during one) and, for a copy from a device, the device's.
Tensor SharedValue::get_value(bool borrow) const {
  std::shared_lock<std::shared_mutex> lock(lock_of(*this).mutex);
  return borrow ? value_ : copy_to_device_locked(value_, host_device());
}

void SharedValue::check(const Tensor& value) const {
  if (!value.defined())
    throw TypeError("set_value: an undefined tensor was given", "shared variable " + name_,
                    "pass a Tensor holding a " + type_.str());
  if (value.dtype() != type_.dtype || value.ndim() != type_.ndim())
    throw TypeError("set_value: expected a " + type_.str() + ", got " +
                        std::string(dtype_name(value.dtype())) + " " + rank_name(value.ndim()) +
                        " of shape " + shape_str(value.shape()),
                    "shared variable " + (name_.empty() ? std::string("<unnamed>") : name_),
                    "a shared variable keeps its dtype and rank; convert with astype() or "
                    "reshape the value first");
}

void SharedValue::set_value(const Tensor& value, bool borrow) {
  check(value);
  // The copy is made before the lock is taken: a call waiting for the variable waits for the
  // assignment only.
  // A pending eager tensor is computed here, outside the variable's lock and before any call
  // binds it (docs/eager.md).
  const Tensor& computed = value.eval();
  Tensor fresh = borrow ? computed : copy_to_device_locked(computed, computed.device());
  Tensor old;
  SharedValueLock& l = lock_of(*this);
  std::unique_lock<std::shared_mutex> lock(l.mutex);
  old = std::move(value_);
  value_ = std::move(fresh);
  l.version.fetch_add(1, std::memory_order_release);
  lock.unlock();
  // `old` is released here, after the lock: freeing a device buffer takes the device's locks.
}

}  // namespace tgc
