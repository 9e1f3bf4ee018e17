// A device of another kind whose memory is host memory, counting its device-to-device
// copies: what the communicator tests need to see which engine moved which bytes.
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/device.h"

namespace tgc::test {

class FakeDevice final : public Device {
 public:
  explicit FakeDevice(DeviceKind kind, std::string name) : kind_(kind), name_(std::move(name)) {}
  DeviceKind kind() const override { return kind_; }
  std::string name() const override { return name_; }
  void* allocate(size_t bytes, Stream&) override { return std::malloc(bytes ? bytes : 1); }
  void deallocate(void* p, size_t, Stream&) override { std::free(p); }
  void copy_to_host(void* dst, const void* src, size_t bytes, Stream&) override { std::memcpy(dst, src, bytes); }
  void copy_from_host(void* dst, const void* src, size_t bytes, Stream&) override { std::memcpy(dst, src, bytes); }
  void copy_on_device(void* dst, const void* src, size_t bytes, Stream&) override {
    ++copies;
    std::memcpy(dst, src, bytes);
  }
  Stream& default_stream() override { return stream_; }

  int copies = 0;

 private:
  struct NullStream final : Stream {
    void synchronize() override {}
  };
  DeviceKind kind_;
  std::string name_;
  NullStream stream_;
};

}  // namespace tgc::test
