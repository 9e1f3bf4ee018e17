// UnopenedGpuDevice: every use of the device says why it is not available.
#include "backends/gpu/unopened_device.h"

#include "runtime/error.h"

namespace tgc::gpu {

UnopenedGpuDevice::UnopenedGpuDevice(DeviceKind kind, std::string name, cfam::Dialect dialect, std::string reason)
    : kind_(kind), name_(std::move(name)), dialect_(dialect), reason_(std::move(reason)) {
  stream_.device = this;
}

void UnopenedGpuDevice::unavailable() const {
  throw DeviceError("device '" + name_ + "' is not available: " + reason_, "",
                    "this function was made to be looked at (tgc show) on a machine without the device; running it "
                    "needs the device");
}

void* UnopenedGpuDevice::allocate(size_t, Stream&) { unavailable(); }
void UnopenedGpuDevice::deallocate(void*, size_t, Stream&) { unavailable(); }
void UnopenedGpuDevice::copy_to_host(void*, const void*, size_t, Stream&) { unavailable(); }
void UnopenedGpuDevice::copy_from_host(void*, const void*, size_t, Stream&) { unavailable(); }
void UnopenedGpuDevice::copy_on_device(void*, const void*, size_t, Stream&) { unavailable(); }
Stream& UnopenedGpuDevice::default_stream() { return stream_; }
std::unique_ptr<GpuModule> UnopenedGpuDevice::load_module(ModuleSource) { unavailable(); }
void UnopenedGpuDevice::fill_zero(void*, size_t) { unavailable(); }
int UnopenedGpuDevice::read_int(const void*) { unavailable(); }

}  // namespace tgc::gpu
