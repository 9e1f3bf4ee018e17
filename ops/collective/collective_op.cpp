// CollectiveOp: names, parsing of the reduction kind, the host communicator.
#include "ops/collective/collective_op.h"

#include <array>

#include <fmt/format.h>

#include "runtime/error.h"
#include "runtime/suggest.h"

namespace tgc {

std::string collective_op_name(CollectiveOpKind kind) {
  switch (kind) {
    case CollectiveOpKind::Sum: return "sum";
    case CollectiveOpKind::Mean: return "mean";
    case CollectiveOpKind::Max: return "max";
    case CollectiveOpKind::Min: return "min";
  }
  return "?";
}

CollectiveOpKind parse_collective_op(std::string_view text, const std::string& where) {
  static constexpr std::array kinds{CollectiveOpKind::Sum, CollectiveOpKind::Mean, CollectiveOpKind::Max,
                                    CollectiveOpKind::Min};
  std::vector<std::string> names;
  for (CollectiveOpKind k : kinds) {
    if (collective_op_name(k) == text) return k;
    names.push_back(collective_op_name(k));
  }
  const std::string near = closest_match(text, names);
  throw ValueError(fmt::format("unknown reduction '{}' for a collective", text), where,
                   (near.empty() ? std::string() : fmt::format("did you mean '{}'? ", near)) +
                       "op is one of sum, mean, max, min");
}

CollectiveReduce engine_reduce(CollectiveOpKind kind) {
  switch (kind) {
    case CollectiveOpKind::Max: return CollectiveReduce::Max;
    case CollectiveOpKind::Min: return CollectiveReduce::Min;
    default: return CollectiveReduce::Sum;
  }
}

CollectiveOp::CollectiveOp(std::shared_ptr<CommGroup> group) : group_(std::move(group)) {
  TGC_INTERNAL_CHECK(group_ != nullptr, "a collective needs a group");
}

std::string CollectiveOp::group_label() const { return fmt::format("group={}({})", group_->name(), group_->size()); }

Communicator& CollectiveOp::host_communicator() const { return *group_->communicator(host_device()); }

void divide_in_place(Tensor& t, int n) {
  TGC_INTERNAL_CHECK(t.is_contiguous() && t.on_host(), "divide_in_place takes a contiguous host tensor");
  const int64_t count = t.numel();
  switch (t.dtype()) {
    case DType::Float32: {
      float* p = t.data<float>();
      for (int64_t i = 0; i < count; ++i) p[i] /= static_cast<float>(n);
      break;
    }
    case DType::Float64: {
      double* p = t.data<double>();
      for (int64_t i = 0; i < count; ++i) p[i] /= n;
      break;
    }
    default: TGC_INTERNAL_CHECK(false, "a mean over ranks is computed in float32 or float64 only");
  }
}

}  // namespace tgc
