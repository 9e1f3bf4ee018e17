// Hashes of content that name it for the kernel cache and the JIT: xxHash's XXH3 (Debian's
// libxxhash-dev, used header-only), 128 bits for the text a cache key stands for (a kernel's
// CUDA C or OpenCL C source), 64 bits streamed over a structure (Kernel IR) where the full
// description is compared as well. Stable across processes, machines and builds: part of
// the on-disk cache's keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tgc {

// XXH3-128 of `bytes` as 32 hex digits (high half first).
std::string hash128_hex(std::string_view bytes);

// XXH3-64 of everything given to it, in order: the hash of a structure fed field by field.
class StreamHash64 {
 public:
  StreamHash64();
  ~StreamHash64();
  StreamHash64(const StreamHash64&) = delete;
  StreamHash64& operator=(const StreamHash64&) = delete;

  void bytes(const void* p, size_t n);
  // A 64-bit value as 8 little-endian bytes (the same hash on every host).
  void u64(uint64_t v);
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  uint64_t value() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tgc
