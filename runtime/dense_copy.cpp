// The registry of dense_copy.h: one copy per device kind, under a lock.
#include "runtime/dense_copy.h"

#include <map>
#include <mutex>

#include "runtime/tensor.h"

namespace tgc {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<DeviceKind, DenseCopy> by_kind;
};
Registry& registry() {
  static Registry* r = new Registry;  // kept for the process: a copy may run during exit
  return *r;
}

}  // namespace

void register_dense_copy(DeviceKind kind, DenseCopy copy) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  if (copy) registry().by_kind[kind] = std::move(copy);
  else registry().by_kind.erase(kind);
}

bool dense_copy_on_device(const Tensor& src, const Tensor& dst) {
  DenseCopy copy;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().by_kind.find(src.device().kind());
    if (it == registry().by_kind.end()) return false;
    copy = it->second;
  }
  return copy(src, dst);
}

}  // namespace tgc
