// OpenCLDevice: one OpenCL device as a tgc Device — a context, one in-order profiling queue,
// a caching buffer allocator that hands out fake addresses (cl_mem handles admit no pointer
// arithmetic, tgc tensors need it), copies with offsets, event timers, and errors that name
// the node whose work failed.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/c_family/kernel_render.h"
#include "backends/gpu/gpu_device.h"
#include "backends/gpu/launch_labels.h"
#include "backends/opencl/opencl_status.h"

namespace tgc::opencl {

class OpenCLDevice;

// The device's queue as a tgc Stream: synchronize() waits for it (clFinish) and raises its errors.
class OpenCLQueue final : public Stream {
 public:
  OpenCLQueue(OpenCLDevice& device, cl_command_queue queue) : device_(device), queue_(queue) {}
  void synchronize() override;
  cl_command_queue get() const { return queue_; }
  OpenCLDevice& device() const { return device_; }

 private:
  OpenCLDevice& device_;
  cl_command_queue queue_;
};

// Where a device address lies: its buffer and the byte offset in it.
struct BufferRef {
  cl_mem mem = nullptr;  // nullptr for the null address (empty tensors)
  size_t offset = 0;
};

class OpenCLDevice final : public gpu::GpuDevice {
 public:
  // Use opencl_device(); public for make_unique only.
  explicit OpenCLDevice(const OpenCLDeviceInfo& info);
  ~OpenCLDevice() override;

  DeviceKind kind() const override { return DeviceKind::OpenCL; }
  std::string name() const override { return info_.spec(); }

  // A fake address (never dereferenced on the host) of a buffer of at least `bytes`: from the
  // free list of its size class when one is there, so steady-state calls create no cl_mem.
  void* allocate(size_t bytes, Stream& stream) override;
  // Back to the free list. The queue is in order, so work enqueued later that reuses the
  // buffer runs after the work already enqueued that reads it. Never throws.
  void deallocate(void* ptr, size_t bytes, Stream& stream) override;

  // Blocking read: complete on return.
  void copy_to_host(void* host_dst, const void* src, size_t bytes, Stream& stream) override;
  // `host_src` may be reused on return: small copies go through a host copy written
  // asynchronously (freed when the write completes), large ones are blocking writes.
  void copy_from_host(void* dst, const void* host_src, size_t bytes, Stream& stream) override;
  void copy_on_device(void* dst, const void* src, size_t bytes, Stream& stream) override;

  Stream& default_stream() override { return *queue_obj_; }
  std::unique_ptr<DeviceTimer> make_timer() override;
  void note_launch(const std::string& label) override;

  // The GPU layer's device (gpu_device.h). Results come back into plain host memory with a
  // blocking read, so host_result_memory() and wait_for_host_results() keep their defaults.
  cfam::Dialect dialect() const override { return cfam::Dialect::OpenCL; }
  cfam::DeviceLimits limits() const override;
  // An OpenCLModule: each entry built on its first launch.
  std::unique_ptr<gpu::GpuModule> load_module(gpu::ModuleSource source) override;
  void fill_zero(void* ptr, size_t bytes) override;
  int read_int(const void* ptr) override;

  // The buffer and byte offset of an address inside one of this device's allocations
  // (InternalError for any other address).
  BufferRef resolve(const void* ptr) const;

  // Waits for the queue; a failure there becomes a DeviceError naming the nodes launched
  // since the last synchronisation.
  void synchronize_queue();
  // Checks a status of work being enqueued: a DeviceError naming `call` and the node last
  // passed to note_launch().
  void check(cl_int status, const char* call) const;

  const OpenCLDeviceInfo& info() const { return info_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  cl_device_id id() const { return info_.device_id; }

  // Buffers created so far (cl_mem objects, cached ones included): constant in steady state,
  // which the allocator test checks.
  size_t buffers_created() const;

 private:
  struct Allocation {
    cl_mem mem;
    size_t bytes;  // the size class (what the buffer holds)
  };

  OpenCLDeviceInfo info_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::unique_ptr<OpenCLQueue> queue_obj_;
  mutable std::mutex mutex_;  // allocations, free lists, launch labels
  uintptr_t next_address_;
  std::map<uintptr_t, Allocation> live_;                   // by fake address
  std::multimap<size_t, std::pair<uintptr_t, cl_mem>> free_;  // size class -> cached (address, buffer)
  size_t buffers_created_ = 0;
  gpu::LaunchLabels launched_;  // since the last synchronisation, named in an asynchronous error
};

// The device `opencl:P:D` (platform < 0: plain `opencl`, see find_opencl_device), created on
// first use and kept for the process. ConfigError saying why when there is no such device.
OpenCLDevice& opencl_device(int platform, int index);

}  // namespace tgc::opencl
