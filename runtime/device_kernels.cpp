// The registries of device_kernels.h: one dense copy and one peer copy per device kind, and one
// cast, under a lock.
#include "runtime/device_kernels.h"

#include <map>
#include <mutex>

#include "runtime/tensor.h"

namespace tgc {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<DeviceKind, DenseCopy> by_kind;
  std::map<DeviceKind, PeerCopy> peer_by_kind;
  DeviceCast cast;
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

void register_device_cast(DeviceCast cast) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().cast = std::move(cast);
}

std::optional<Tensor> device_cast(const Tensor& x, DType dtype) {
  DeviceCast cast;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    cast = registry().cast;
  }
  if (!cast) return std::nullopt;
  return cast(x, dtype);
}

void register_peer_copy(DeviceKind kind, PeerCopy copy) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  if (copy) registry().peer_by_kind[kind] = std::move(copy);
  else registry().peer_by_kind.erase(kind);
}

bool peer_copy(const Tensor& src, const Tensor& dst) {
  PeerCopy copy;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().peer_by_kind.find(src.device().kind());
    if (it == registry().peer_by_kind.end() || dst.device().kind() != src.device().kind()) return false;
    copy = it->second;
  }
  return copy(src, dst);
}

}  // namespace tgc
