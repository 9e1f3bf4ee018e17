// The nodes whose device work was enqueued since the last synchronisation, so that an
// asynchronous error can name them: a ring of the last few labels, kept by each GPU device.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tgc::gpu {

// Not synchronised: the device calls it under its own lock.
class LaunchLabels {
 public:
  // Noting a label costs a string assignment into its slot (no shift, no allocation once the
  // slot's capacity suffices): it runs on every launch.
  void note(const std::string& label) {
    ring_[count_ % kMax] = label;
    ++count_;
  }
  // The label noted last ("" when none since the last clear()).
  std::string last() const { return count_ ? ring_[(count_ - 1) % kMax] : std::string(); }
  void clear() { count_ = 0; }
  // "; raised by the device work of node 'a'" or "... of one of the nodes [3 earlier nodes],
  // 'b', 'c' (launched since the last synchronisation)", oldest first; "" when none. Clears.
  std::string take_blame();

 private:
  static constexpr size_t kMax = 8;  // nodes named in an asynchronous error
  std::vector<std::string> ring_ = std::vector<std::string>(kMax);
  size_t count_ = 0;
};

}  // namespace tgc::gpu
