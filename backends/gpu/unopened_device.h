// A GPU described but not opened: its kind, name and dialect, for looking at what a function
// would run there (tgc show) on a machine without it. The rule table of a GpuBackend decides
// placement from the nodes alone, so the optimized graph, with each host node's reason, is
// the one the device would get. Every operation that would touch the device (memory, copies,
// streams, modules) throws a DeviceError saying why it is not available: a function made
// over such a device is only looked at, never linked or called (GraphsOnlyScope).
#pragma once

#include <string>

#include "backends/gpu/gpu_device.h"

namespace tgc::gpu {

class UnopenedGpuDevice final : public GpuDevice {
 public:
  // `reason`: why the device is not available ("no NVIDIA driver found (...)").
  UnopenedGpuDevice(DeviceKind kind, std::string name, cfam::Dialect dialect, std::string reason);

  DeviceKind kind() const override { return kind_; }
  std::string name() const override { return name_; }
  cfam::Dialect dialect() const override { return dialect_; }
  cfam::DeviceLimits limits() const override { return {}; }  // a plan's defaults: nothing is launched

  void* allocate(size_t bytes, Stream& stream) override;
  void deallocate(void* ptr, size_t bytes, Stream& stream) override;
  void copy_to_host(void* host_dst, const void* src, size_t bytes, Stream& stream) override;
  void copy_from_host(void* dst, const void* host_src, size_t bytes, Stream& stream) override;
  void copy_on_device(void* dst, const void* src, size_t bytes, Stream& stream) override;
  Stream& default_stream() override;
  std::unique_ptr<GpuModule> load_module(ModuleSource source) override;
  void fill_zero(void* ptr, size_t bytes) override;
  int read_int(const void* ptr) override;

 private:
  [[noreturn]] void unavailable() const;

  DeviceKind kind_;
  std::string name_;
  cfam::Dialect dialect_;
  std::string reason_;
  struct NoStream final : Stream {
    const UnopenedGpuDevice* device;
    void synchronize() override { device->unavailable(); }
  } stream_;
};

}  // namespace tgc::gpu
