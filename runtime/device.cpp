// The host device and device buffers.
#include "runtime/device.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "runtime/error.h"

namespace tgc {

std::string device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::Host: return "cpu";
    case DeviceKind::Cuda: return "cuda";
    case DeviceKind::OpenCL: return "opencl";
  }
  return "?";
}

namespace {

// Host work runs when it is issued, so its stream is always drained.
class HostStream final : public Stream {
 public:
  void synchronize() override {}
};

class HostDevice final : public Device {
 public:
  DeviceKind kind() const override { return DeviceKind::Host; }
  std::string name() const override { return "cpu"; }

  void* allocate(size_t bytes, Stream&) override {
    // 64-byte alignment keeps every vector width and cache line happy; size rounded up as
    // aligned_alloc requires.
    size_t rounded = (bytes + 63) / 64 * 64;
    if (rounded == 0) rounded = 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p)
      throw ValueError("out of host memory allocating " + std::to_string(bytes) + " bytes", "",
                       "reduce the sizes involved, or set allow_gc=true to free intermediates");
    return p;
  }
  void deallocate(void* ptr, size_t, Stream&) override { std::free(ptr); }
  void copy_to_host(void* dst, const void* src, size_t bytes, Stream&) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void copy_from_host(void* dst, const void* src, size_t bytes, Stream&) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void copy_on_device(void* dst, const void* src, size_t bytes, Stream&) override {
    if (bytes) std::memmove(dst, src, bytes);
  }
  Stream& default_stream() override { return stream_; }

 private:
  HostStream stream_;
};

}  // namespace

Device& host_device() {
  static HostDevice device;
  return device;
}

Buffer::Buffer(Device& device, size_t bytes)
    : device_(&device), data_(device.allocate(bytes, device.default_stream())), bytes_(bytes) {}

Buffer::~Buffer() { device_->deallocate(data_, bytes_, device_->default_stream()); }

}  // namespace tgc
