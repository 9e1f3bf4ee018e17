// OpenCLDevice: context and queue, the fake-address caching allocator, copies, event timers,
// synchronisation with error attribution, and the per-device registry.
#include "backends/opencl/opencl_device.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backends/opencl/cl_error.h"
#include "backends/opencl/opencl_program.h"
#include "runtime/error.h"

namespace tgc::opencl {

namespace {

constexpr uintptr_t kAddressBase = uintptr_t{1} << 40;  // fake addresses start here...
constexpr size_t kAddressGap = 256;                   // ...256-aligned, apart by at least this
constexpr size_t kAsyncWriteLimit = 4u << 20;         // larger host->device copies block

// Size classes: 256-byte steps up to 64 KiB, then 64 KiB steps; a freed buffer serves any
// later request of its class.
size_t size_class(size_t bytes) {
  const size_t step = bytes <= (64u << 10) ? 256 : (64u << 10);
  return (bytes + step - 1) / step * step;
}

// Device time between the ends of two markers, read without waiting.
class OpenCLTimer final : public DeviceTimer {
 public:
  explicit OpenCLTimer(OpenCLDevice& device) : device_(device) {}
  ~OpenCLTimer() override {
    if (start_) clReleaseEvent(start_);
    if (stop_) clReleaseEvent(stop_);
  }
  void start(Stream& stream) override { device_.check(clEnqueueMarkerWithWaitList(queue_of(stream), 0, nullptr, &start_), "clEnqueueMarkerWithWaitList"); }
  void stop(Stream& stream) override {
    cl_command_queue q = queue_of(stream);
    device_.check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &stop_), "clEnqueueMarkerWithWaitList");
    device_.check(clFlush(q), "clFlush");  // so that the work runs without anyone waiting for it
  }
  std::optional<double> elapsed_seconds() override {
    if (!start_ || !stop_) return std::nullopt;
    cl_int status = CL_QUEUED;
    device_.check(clGetEventInfo(stop_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr),
                  "clGetEventInfo");
    if (status > CL_COMPLETE) return std::nullopt;
    if (status < 0) device_.synchronize_queue();  // raises the queue's error with the nodes
    cl_ulong t0 = 0, t1 = 0;
    const cl_int a = clGetEventProfilingInfo(start_, CL_PROFILING_COMMAND_END, sizeof(t0), &t0, nullptr);
    const cl_int b = clGetEventProfilingInfo(stop_, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr);
    // A driver without marker timestamps: the work is done, its duration unknown.
    if (a == CL_PROFILING_INFO_NOT_AVAILABLE || b == CL_PROFILING_INFO_NOT_AVAILABLE) return 0.0;
    device_.check(a, "clGetEventProfilingInfo");
    device_.check(b, "clGetEventProfilingInfo");
    return t1 > t0 ? static_cast<double>(t1 - t0) * 1e-9 : 0.0;
  }

 private:
  cl_command_queue queue_of(Stream& s) const {
    auto* q = dynamic_cast<OpenCLQueue*>(&s);
    TGC_INTERNAL_CHECK(q && &q->device() == &device_, "an OpenCL timer used on another device's queue");
    return q->get();
  }
  OpenCLDevice& device_;
  cl_event start_ = nullptr, stop_ = nullptr;
};

void CL_CALLBACK free_host_copy(cl_event, cl_int, void* copy) { std::free(copy); }

}  // namespace

void OpenCLQueue::synchronize() { device_.synchronize_queue(); }

OpenCLDevice::OpenCLDevice(const OpenCLDeviceInfo& info) : info_(info), next_address_(kAddressBase) {
  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         reinterpret_cast<cl_context_properties>(info_.platform_id), 0};
  context_ = clCreateContext(props, 1, &info_.device_id, nullptr, nullptr, &err);
  check_cl(err, "clCreateContext");
  // In order (work runs as enqueued: the allocator and the executor rely on it), with event
  // timestamps for the profiler.
  queue_ = clCreateCommandQueue(context_, info_.device_id, CL_QUEUE_PROFILING_ENABLE, &err);
  check_cl(err, "clCreateCommandQueue");
  queue_obj_ = std::make_unique<OpenCLQueue>(*this, queue_);
}

OpenCLDevice::~OpenCLDevice() {
  if (queue_) clFinish(queue_);
  for (auto& [address, a] : live_) clReleaseMemObject(a.mem);
  for (auto& [bytes, cached] : free_) clReleaseMemObject(cached.second);
  if (queue_) clReleaseCommandQueue(queue_);
  if (context_) clReleaseContext(context_);
}

cfam::DeviceLimits OpenCLDevice::limits() const {
  // No sub-group width to rely on in OpenCL 1.2: reductions combine through local memory.
  return cfam::DeviceLimits{info_.compute_units, std::min(info_.max_work_group_size, 256), 1,
                            cfam::long_reduction(cfam::Dialect::OpenCL)};
}

void* OpenCLDevice::allocate(size_t bytes, Stream&) {
  if (bytes == 0) return nullptr;
  const size_t cls = size_class(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = free_.find(cls); it != free_.end()) {
    const auto [address, mem] = it->second;
    free_.erase(it);
    live_.emplace(address, Allocation{mem, cls});
    return reinterpret_cast<void*>(address);
  }
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context_, CL_MEM_READ_WRITE, cls, nullptr, &err);
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY) {
    // Cached buffers of other sizes go back to the driver, then one more try.
    for (auto& [b, cached] : free_) clReleaseMemObject(cached.second);
    free_.clear();
    mem = clCreateBuffer(context_, CL_MEM_READ_WRITE, cls, nullptr, &err);
  }
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
      err == CL_INVALID_BUFFER_SIZE)
    throw DeviceError("out of device memory allocating " + std::to_string(bytes) + " bytes on " + name() + " (" +
                          info_.device_name + ", " + cl_error_name(err) + ")",
                      "", "use smaller sizes, keep allow_gc=true, or release device tensors you hold");
  check_cl(err, "clCreateBuffer");
  ++buffers_created_;
  const uintptr_t address = next_address_;
  next_address_ += (cls + kAddressGap + 255) / 256 * 256;
  live_.emplace(address, Allocation{mem, cls});
  return reinterpret_cast<void*>(address);
}

void OpenCLDevice::deallocate(void* ptr, size_t, Stream&) {
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == live_.end()) return;  // not ours: nothing to release (never throws)
  free_.emplace(it->second.bytes, std::make_pair(it->first, it->second.mem));
  live_.erase(it);
}

BufferRef OpenCLDevice::resolve(const void* ptr) const {
  if (!ptr) return {};
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.upper_bound(p);
  TGC_INTERNAL_CHECK(it != live_.begin(), "address " + std::to_string(p) + " is not memory of " + name());
  --it;
  // One past the end is an empty view's address; the gap keeps it out of the next buffer.
  TGC_INTERNAL_CHECK(p <= it->first + it->second.bytes, "address " + std::to_string(p) + " is not memory of " + name());
  return BufferRef{it->second.mem, static_cast<size_t>(p - it->first)};
}

void OpenCLDevice::copy_to_host(void* host_dst, const void* src, size_t bytes, Stream&) {
  if (bytes == 0) return;
  const BufferRef s = resolve(src);
  check(clEnqueueReadBuffer(queue_, s.mem, CL_TRUE, s.offset, bytes, host_dst, 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
}

void OpenCLDevice::copy_from_host(void* dst, const void* host_src, size_t bytes, Stream&) {
  if (bytes == 0) return;
  const BufferRef d = resolve(dst);
  if (bytes > kAsyncWriteLimit) {
    check(clEnqueueWriteBuffer(queue_, d.mem, CL_TRUE, d.offset, bytes, host_src, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    return;
  }
  // The caller may reuse host_src at once: the write reads a copy, freed when it completes.
  void* copy = std::malloc(bytes);
  if (!copy) throw DeviceError("out of host memory staging a copy to " + name(), "", "use smaller sizes");
  std::memcpy(copy, host_src, bytes);
  cl_event done = nullptr;
  const cl_int err = clEnqueueWriteBuffer(queue_, d.mem, CL_FALSE, d.offset, bytes, copy, 0, nullptr, &done);
  if (err != CL_SUCCESS) {
    std::free(copy);
    check(err, "clEnqueueWriteBuffer");
  }
  const cl_int cb = clSetEventCallback(done, CL_COMPLETE, free_host_copy, copy);
  if (cb != CL_SUCCESS) {  // no callback: wait here rather than leak or free too early
    clWaitForEvents(1, &done);
    std::free(copy);
  }
  clReleaseEvent(done);
}

void OpenCLDevice::copy_on_device(void* dst, const void* src, size_t bytes, Stream&) {
  if (bytes == 0) return;
  const BufferRef s = resolve(src), d = resolve(dst);
  check(clEnqueueCopyBuffer(queue_, s.mem, d.mem, s.offset, d.offset, bytes, 0, nullptr, nullptr),
        "clEnqueueCopyBuffer");
}

std::unique_ptr<gpu::GpuModule> OpenCLDevice::load_module(gpu::ModuleSource source) {
  return std::make_unique<OpenCLModule>(*this, std::move(source));
}

void OpenCLDevice::fill_zero(void* ptr, size_t bytes) {
  if (bytes == 0) return;
  const BufferRef r = resolve(ptr);
  const cl_uchar zero = 0;
  check(clEnqueueFillBuffer(queue_, r.mem, &zero, sizeof(zero), r.offset, bytes, 0, nullptr, nullptr),
        "clEnqueueFillBuffer");
}

int OpenCLDevice::read_int(const void* ptr) {
  cl_int v = 0;
  copy_to_host(&v, ptr, sizeof(v), default_stream());  // a blocking read
  return v;
}

std::unique_ptr<DeviceTimer> OpenCLDevice::make_timer() { return std::make_unique<OpenCLTimer>(*this); }

void OpenCLDevice::note_launch(const std::string& label) {
  std::lock_guard<std::mutex> lock(mutex_);
  launched_.note(label);
}

void OpenCLDevice::check(cl_int status, const char* call) const {
  if (status == CL_SUCCESS) return;
  std::string node;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    node = launched_.last();
  }
  throw_cl_error(status, call, node);
}

void OpenCLDevice::synchronize_queue() {
  const cl_int err = clFinish(queue_);
  std::string blame;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (err == CL_SUCCESS) launched_.clear();
    else blame = launched_.take_blame();
  }
  if (err == CL_SUCCESS) return;
  const std::string what = "OpenCL error on " + name() + ": " + cl_error_name(err) + " (surfaced in clFinish)" + blame;
  throw DeviceError(what, "", "run with sync=true so that the error names exactly the node that caused it");
}

size_t OpenCLDevice::buffers_created() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return buffers_created_;
}

OpenCLDevice& opencl_device(int platform, int index) {
  const OpenCLStatus& st = opencl_status();
  const std::string spec = platform < 0 ? "opencl" : "opencl:" + std::to_string(platform) + ":" + std::to_string(index);
  if (!st.available)
    throw ConfigError("device '" + spec + "' is not available: " + st.reason, "function()",
                      "use device=cpu here; `tgc devices` lists what this machine can run on");
  std::optional<OpenCLDeviceInfo> info = find_opencl_device(platform, index);
  if (!info) {
    std::string have;
    for (const OpenCLDeviceInfo& d : st.devices) have += (have.empty() ? "" : ", ") + d.spec();
    throw ConfigError("device '" + spec + "' does not exist: this machine has the OpenCL devices " + have,
                      "function()", "`tgc devices` lists them with their platform and device names");
  }
  if (!info->unusable.empty())
    throw ConfigError("device '" + spec + "' (" + info->device_name + ") cannot run tgc: " + info->unusable,
                      "function()", "pick another device (tgc devices lists them) or use device=cpu");
  static std::mutex mutex;
  // Never destroyed: device tensors in static storage release their memory during exit.
  static auto* devices = new std::map<std::pair<int, int>, std::unique_ptr<OpenCLDevice>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*devices)[{info->platform, info->index}];
  if (!slot) slot = std::make_unique<OpenCLDevice>(*info);
  return *slot;
}

}  // namespace tgc::opencl
