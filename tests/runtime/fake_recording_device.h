// A fake device for the recording tests (call_replay_test, recorded_branches_test), and a thunk
// that scales on it: host memory, and work enqueued through enqueue() that runs at once or,
// while capturing, is appended to the recording that a replay runs (as CUDA stream capture
// does). With `conditionals` on it also records conditional work (as CUDA's conditional graph
// nodes do): what is enqueued inside runs on a replay only when the condition holds there.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/program.h"
#include "runtime/tensor.h"

namespace tgc {

class FakeDevice;

class FakeStream final : public Stream {
 public:
  explicit FakeStream(FakeDevice& d) : device_(d) {}
  void synchronize() override;

 private:
  FakeDevice& device_;
};

class FakeDevice final : public Device {
 public:
  DeviceKind kind() const override { return DeviceKind::Cuda; }
  std::string name() const override { return "fake:0"; }
  void* allocate(size_t bytes, Stream&) override { return std::malloc(bytes); }
  void deallocate(void* p, size_t, Stream&) override { std::free(p); }
  void copy_to_host(void* dst, const void* src, size_t n, Stream&) override { std::memcpy(dst, src, n); }
  void copy_from_host(void* dst, const void* src, size_t n, Stream&) override { std::memcpy(dst, src, n); }
  void copy_on_device(void* dst, const void* src, size_t n, Stream&) override {
    enqueue([=] { std::memmove(dst, src, n); });
  }
  Stream& default_stream() override { return stream_; }

  bool begin_capture() override {
    capturing = true;
    recording.clear();
    return true;
  }
  std::unique_ptr<CapturedWork> end_capture(bool keep) override {
    capturing = false;
    body_ = -1;
    if (spoiled || !keep) return spoiled = false, nullptr;
    struct Work : CapturedWork {
      std::vector<std::function<void()>> work;
      void replay() override {
        for (auto& w : work) w();
      }
    };
    auto w = std::make_unique<Work>();
    w->work = std::move(recording);
    return w;
  }

  bool capture_conditionals() const override { return conditionals; }
  void begin_conditional(const Condition& c, bool with_else) override {
    if (body_ >= 0) throw std::logic_error("conditional work opened inside another");
    opened.push_back(c);
    opened_with_else.push_back(with_else);
    condition_ = c;
    bodies_[0].clear();
    bodies_[1].clear();
    body_ = 0;
  }
  void else_conditional() override { body_ = 1; }
  void end_conditional() override {
    if (body_ < 0) throw std::logic_error("conditional work ended without its beginning");
    body_ = -1;
    enqueue([c = condition_, then = bodies_[0], otherwise = bodies_[1]] {
      for (const auto& f : holds(c) ? then : otherwise) f();
    });
  }

  // Device::Condition's meaning, on the fake's host memory.
  static bool holds(const Condition& c) {
    for (const auto& term : c) {
      bool all = true;
      for (const ConditionTest& t : term) {
        uint64_t v = 0;
        std::memcpy(&v, t.value, static_cast<size_t>(t.bytes));
        if (t.floating) v &= ~(uint64_t{1} << (8 * t.bytes - 1));
        if ((v != 0) != t.when) {
          all = false;
          break;
        }
      }
      if (all) return true;
    }
    return false;
  }

  void enqueue(std::function<void()> f) {
    if (body_ >= 0) bodies_[body_].push_back(std::move(f));
    else if (capturing) recording.push_back(std::move(f));
    else f();
  }

  bool capturing = false, spoiled = false;
  bool conditionals = false;
  std::vector<std::function<void()>> recording;
  std::vector<Condition> opened;  // every conditional work begun, in order
  std::vector<bool> opened_with_else;

 private:
  FakeStream stream_{*this};
  Condition condition_;
  std::vector<std::function<void()>> bodies_[2];
  int body_ = -1;
};

inline void FakeStream::synchronize() {
  if (device_.capturing) {
    device_.spoiled = true;  // as CUDA invalidates a capture that synchronises
    throw std::runtime_error("synchronize while capturing");
  }
}

inline float read(const Tensor& t, int64_t i = 0) { return static_cast<const float*>(t.raw_data())[i]; }
inline void write(const Tensor& t, float v) {
  for (int64_t i = 0; i < t.numel(); ++i) static_cast<float*>(t.raw_data())[i] = v;
}

inline Tensor on(FakeDevice& d, float v, int64_t n = 4) {
  Tensor t = Tensor::empty(DType::Float32, {n}, d);
  write(t, v);
  return t;
}

// One Gpu thunk on `d`: out = in * factor, the arithmetic enqueued on the device. `calls`
// counts the device work that ran; `sync` waits for the device after enqueuing it (which a
// recording refuses).
inline Thunk scale_thunk(FakeDevice& d, float factor, int in, int out, bool sync = false, int* calls = nullptr,
                         std::string label = "y = scale(x)") {
  Thunk t;
  t.op_name = t.op_class = "Scale";
  t.label = std::move(label);
  t.kind = ThunkKind::Gpu;
  t.device = &d;
  t.inputs = {in};
  t.outputs = {out};
  t.run = [&d, factor, sync, calls](const std::vector<Tensor>& i, std::vector<Tensor>& o) {
    o[0] = Tensor::empty(DType::Float32, i[0].shape(), d);
    const float* src = static_cast<const float*>(i[0].raw_data());
    float* dst = static_cast<float*>(o[0].raw_data());
    const int64_t n = i[0].numel();
    d.enqueue([=] {
      if (calls) ++*calls;
      for (int64_t k = 0; k < n; ++k) dst[k] = src[k] * factor;
    });
    if (sync) d.synchronize();
  };
  return t;
}

}  // namespace tgc
