// device_work_mutex: one mutex per device, looked up by address.
#include "runtime/device_lock.h"

#include <memory>
#include <unordered_map>

#include "runtime/tensor.h"

namespace tgc {

DeviceWorkMutex& device_work_mutex(const Device& device) {
  static std::mutex registry_mutex;
  // Leaked on purpose: devices live until the process ends, and a thread may still take a
  // device's lock while static destructors run.
  static auto* locks = new std::unordered_map<const Device*, std::unique_ptr<DeviceWorkMutex>>;
  std::lock_guard<std::mutex> lock(registry_mutex);
  std::unique_ptr<DeviceWorkMutex>& m = (*locks)[&device];
  if (!m) m = std::make_unique<DeviceWorkMutex>();
  return *m;
}

Tensor copy_to_device_locked(const Tensor& t, Device& device) {
  Device& from = t.device();
  const bool from_host = from.kind() == DeviceKind::Host, to_host = device.kind() == DeviceKind::Host;
  if (from_host && to_host) return t.to(device);
  if (from_host || to_host || &from == &device) {
    std::lock_guard<DeviceWorkMutex> lock(device_work_mutex(from_host ? device : from));
    return t.to(device);
  }
  // Between two devices: through the host, one device's lock at a time.
  Tensor host;
  {
    std::lock_guard<DeviceWorkMutex> lock(device_work_mutex(from));
    host = t.to(host_device());
  }
  std::lock_guard<DeviceWorkMutex> lock(device_work_mutex(device));
  return host.to(device);
}

}  // namespace tgc
