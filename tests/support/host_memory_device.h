// A device for tests of device paths on a machine without one: its memory is host memory and
// its work runs at once, and it counts the copies it was asked for by direction, so a test can
// tell a copy made on the device from a round trip through the host. Its kind (Cuda unless
// given: anything but the host) and name are all the code under test looks at.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "runtime/device.h"

namespace tgc::test {

class HostMemoryDevice : public Device {
 public:
  explicit HostMemoryDevice(DeviceKind kind = DeviceKind::Cuda, std::string name = "hostmem:0")
      : kind_(kind), name_(std::move(name)) {}
  struct CountingStream final : Stream {
    std::atomic<int> syncs{0};
    void synchronize() override { ++syncs; }
  };
  DeviceKind kind() const override { return kind_; }
  std::string name() const override { return name_; }
  void* allocate(size_t bytes, Stream&) override { return std::malloc(bytes ? bytes : 1); }
  void deallocate(void* p, size_t, Stream&) override { std::free(p); }
  void copy_to_host(void* dst, const void* src, size_t n, Stream&) override {
    ++to_host;
    std::memcpy(dst, src, n);
  }
  void copy_from_host(void* dst, const void* src, size_t n, Stream&) override {
    ++from_host;
    std::memcpy(dst, src, n);
  }
  void copy_on_device(void* dst, const void* src, size_t n, Stream&) override {
    ++on_device;
    std::memmove(dst, src, n);
  }
  Stream& default_stream() override { return stream; }

  CountingStream stream;
  std::atomic<int> to_host{0}, from_host{0}, on_device{0};

 private:
  DeviceKind kind_;
  std::string name_;
};

}  // namespace tgc::test
