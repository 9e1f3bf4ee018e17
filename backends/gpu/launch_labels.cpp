// Naming the nodes behind an asynchronous device error.
#include "backends/gpu/launch_labels.h"

namespace tgc::gpu {

std::string LaunchLabels::take_blame() {
  const size_t count = count_;
  count_ = 0;
  if (count == 0) return "";
  const size_t first = count > kMax ? count - kMax : 0;
  std::string what =
      count == 1 ? "; raised by the device work of node " : "; raised by the device work of one of the nodes ";
  if (first > 0) what += "[" + std::to_string(first) + " earlier nodes], ";
  for (size_t i = first; i < count; ++i) what += (i > first ? ", '" : "'") + ring_[i % kMax] + "'";
  if (count > 1) what += " (launched since the last synchronisation)";
  return what;
}

}  // namespace tgc::gpu
