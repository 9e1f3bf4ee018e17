// The host device and device buffers.
#include "runtime/device.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "runtime/error.h"
#include "runtime/host_block_cache.h"

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
    // 64-byte alignment keeps every vector width and cache line happy. Large blocks come
    // from the cache of freed ones when one of the same size is there.
    void* p = host_block_cache().allocate(bytes);
    if (!p) {
      host_block_cache().clear();  // the cache's blocks may be what the allocator lacks
      p = host_block_cache().allocate(bytes);
    }
    if (!p)
      throw ValueError("out of host memory allocating " + std::to_string(bytes) + " bytes", "",
                       "reduce the sizes involved, or set allow_gc=true to free intermediates");
    return p;
  }
  void deallocate(void* ptr, size_t bytes, Stream&) override { host_block_cache().deallocate(ptr, bytes); }
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

HostBlockCache& host_block_cache() {
  // Never destroyed: buffers may be released during static destruction.
  static HostBlockCache* cache = new HostBlockCache(kDefaultHostCacheBytes);
  return *cache;
}

Device& host_device() {
  static HostDevice device;
  return device;
}

Buffer::Buffer(Device& device, size_t bytes)
    : device_(&device), data_(device.allocate(bytes, device.default_stream())), bytes_(bytes) {}

Buffer::Buffer(Device& device, void* data, size_t bytes, std::function<void()> release)
    : device_(&device), data_(data), bytes_(bytes), release_(std::move(release)) {
  if (!release_) release_ = [] {};  // nothing to hand back, but the memory is still not tgc's
}

Buffer::~Buffer() {
  if (!release_) {
    device_->deallocate(data_, bytes_, device_->default_stream());
    return;
  }
  // The owner may reuse the memory at once (another library's caching allocator, on its own
  // stream), so tgc's work on it must be over first. A destructor must not throw: a failed
  // wait (the device already lost) still hands the memory back.
  try {
    device_->default_stream().synchronize();
  } catch (...) {
  }
  release_();
}

}  // namespace tgc
