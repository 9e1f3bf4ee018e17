// The default-update registry (see the header): keyed by the shared value, holding both sides
// weakly so that neither a variable nor its update expression is kept alive by it.
#include "frontend/api/default_updates.h"

#include <mutex>
#include <unordered_map>

#include "ops/core/node.h"

namespace tgc {

namespace {

struct Entry {
  std::weak_ptr<SharedValue> value;  // to tell a reused address from the registered value
  std::weak_ptr<Variable> var;
  std::weak_ptr<Variable> update;
  VarPtr kept;  // a strong registration's update
};

std::mutex registry_mutex;
std::unordered_map<const SharedValue*, Entry>& registry() {
  static std::unordered_map<const SharedValue*, Entry> r;
  return r;
}

// Drops the entries whose value or update is gone (called on registration, so the table
// stays as small as the live draws).
void prune() {
  auto& r = registry();
  for (auto it = r.begin(); it != r.end();)
    it = it->second.value.expired() || it->second.update.expired() ? r.erase(it) : std::next(it);
}

}  // namespace

void register_default_update(const VarPtr& var, const VarPtr& update, bool weak) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  prune();
  registry()[var->storage().get()] = Entry{var->storage(), var, update, weak ? nullptr : update};
}

void unregister_default_update(const VarPtr& var) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry().erase(var->storage().get());
}

VarPtr registered_default_update(const SharedValue* value) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto it = registry().find(value);
  if (it == registry().end()) return nullptr;
  std::shared_ptr<SharedValue> alive = it->second.value.lock();
  if (!alive || alive.get() != value) return nullptr;
  return it->second.update.lock();
}

std::vector<std::pair<VarPtr, VarPtr>> collect_default_updates(const std::vector<VarPtr>& roots,
                                                               std::unordered_set<const SharedValue*>& updated) {
  std::vector<std::pair<VarPtr, VarPtr>> added;
  std::vector<VarPtr> work(roots.begin(), roots.end());
  std::unordered_set<const Variable*> seen;
  while (!work.empty()) {
    VarPtr v = std::move(work.back());
    work.pop_back();
    if (!v || !seen.insert(v.get()).second) continue;
    if (v->kind() == Variable::Kind::Shared) {
      const SharedValue* value = v->storage().get();
      if (updated.count(value)) continue;
      if (VarPtr update = registered_default_update(value)) {
        updated.insert(value);
        added.emplace_back(v, update);
        work.push_back(update);  // its own shared variables may have default updates too
      }
    } else if (v->kind() == Variable::Kind::Result) {
      for (const VarPtr& in : v->owner()->inputs()) work.push_back(in);
    }
  }
  return added;
}

}  // namespace tgc
