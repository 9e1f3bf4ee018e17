// condition_holds: one element read on the host; check_condition_size: the one-value rule.
#include "runtime/condition.h"

#include <fmt/format.h>

#include "runtime/error.h"

namespace tgc {

void check_condition_size(const Tensor& cond) {
  if (cond.numel() != 1)
    throw ValueError(fmt::format("ifelse: the condition must hold one value, it holds {}", cond.numel()), "",
                     "reduce it to a scalar first");
}

bool condition_holds(const Tensor& cond) {
  check_condition_size(cond);
  const Tensor host = cond.to_host();
  return host.at(std::vector<int64_t>(host.ndim(), 0)) != 0.0;
}

}  // namespace tgc
