// eager_known: the signature map in front of eager() for the operations of eager_ops.cpp.
#include "frontend/api/eager/eager_known_op.h"

#include <memory>
#include <mutex>
#include <unordered_map>

#include "backends/backend_registry.h"
#include "frontend/api/eager/eager_run.h"
#include "frontend/api/eager/eager_structure.h"
#include "runtime/config.h"

namespace tgc::eager_impl {

namespace {

// Signature -> compiled call. Bounded like the compiled calls themselves: past the bound it
// starts again empty (the calls stay cached behind it, so a refill costs graph building only).
class KnownCalls {
 public:
  std::shared_ptr<Function> find(const std::string& sig) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(sig);
    return it == map_.end() ? nullptr : it->second;
  }
  void put(const std::string& sig, std::shared_ptr<Function> call) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (map_.size() >= kMaxCompiledCalls) map_.clear();
    map_.emplace(sig, std::move(call));
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Function>> map_;
};

KnownCalls& known_calls() {
  static KnownCalls* calls = new KnownCalls;  // never destroyed: used until exit
  return *calls;
}

// The signature of the operands, or "" when the fast path does not apply to them.
bool append_operands(std::string& sig, const std::vector<Tensor>& args) {
  const Device* device = nullptr;
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor& t = args[i];
    if (!t.defined() || t.is_pending()) return false;
    const Device* d = &eager_device(t.device());
    if (device && d != device) return false;  // eager() says what is wrong
    device = d;
    for (size_t j = 0; j < i; ++j)
      if (args[j].shares_buffer(t)) return false;  // one leaf for both: another graph
    append_bytes(sig, static_cast<uint8_t>(t.dtype()));
    append_bytes(sig, static_cast<uint8_t>(t.ndim()));
    for (int64_t dim : t.shape()) sig += dim == 1 ? '1' : '?';
  }
  append_bytes(sig, device);
  return device != nullptr;
}

}  // namespace

Tensor eager_known(const std::string& op, bool elementwise, const std::function<Var(const std::vector<Var>&)>& f,
                   const std::vector<Tensor>& args) {
  if ((elementwise && global_config().eager_fusion) || forced_backend_for_tests()) return eager(f, args);
  std::string sig = op;
  sig += '|';
  if (!append_operands(sig, args)) return eager(f, args);
  if (std::shared_ptr<Function> call = known_calls().find(sig)) return (*call)(args).at(0);
  // First use of the signature: the graph over one leaf per operand, in order.
  std::vector<Leaf> leaves;
  std::vector<Var> vars;
  for (const Tensor& t : args) {
    const Tensor& value = t.eval();
    leaves.push_back(make_leaf(value, leaves.size()));
    vars.emplace_back(leaves.back().var);
  }
  const Var out = f(vars);
  for (const Var& v : vars)
    if (v.ptr() == out.ptr()) return eager(f, args);  // an operand itself: nothing to call
  std::shared_ptr<Function> call = compiled_call({out}, leaves, eager_device(args.front().device()));
  known_calls().put(sig, call);
  return (*call)(args).at(0);
}

}  // namespace tgc::eager_impl
