// Codecs of the control-flow family (ops/core/op_codec.h): IfElse keeps the number of values
// it chooses between (its outputs); the branches themselves are the graph's, not the op's.
#include <limits>
#include <memory>

#include "ops/control/ifelse.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"

namespace tgc {
namespace {

Json write_ifelse(const IfElse& op, OpWriteContext&) { return Json{{"outputs", op.size()}}; }

// IfElse's constructor takes any n; make_ifelse refuses 0, and so does a file.
std::shared_ptr<const Op> read_ifelse(const Json& f, OpReadContext&) {
  const int n = integer_field<int>(f, "outputs");
  if (n < 1 || n > std::numeric_limits<int>::max() / 2) throw_bad_field("outputs", "positive count", f.at("outputs"));
  return std::make_shared<IfElse>(n);
}

[[maybe_unused]] const bool registered = register_op_codec<IfElse>("IfElse", write_ifelse, read_ifelse);

}  // namespace
}  // namespace tgc
