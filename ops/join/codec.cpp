// Codecs of the join family (ops/core/op_codec.h): Concatenate, Stack, Split and SplitLike,
// written to a saved function's JSON and read back.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/op_codec.h"
#include "ops/join/join.h"
#include "ops/join/split.h"
#include "ops/join/split_like.h"
#include "runtime/error.h"

namespace tgc {
namespace {

Json write_concatenate(const Concatenate& op, OpWriteContext&) { return Json{{"axis", op.axis()}}; }
std::shared_ptr<const Op> read_concatenate(const Json& f, OpReadContext&) {
  return std::make_shared<Concatenate>(integer_field<int>(f, "axis"));
}

Json write_stack(const Stack& op, OpWriteContext&) { return Json{{"axis", op.axis()}}; }
std::shared_ptr<const Op> read_stack(const Json& f, OpReadContext&) {
  return std::make_shared<Stack>(integer_field<int>(f, "axis"));
}

Json write_split(const Split& op, OpWriteContext&) { return Json{{"axis", op.axis()}, {"sizes", op.sizes()}}; }
std::shared_ptr<const Op> read_split(const Json& f, OpReadContext&) {
  return std::make_shared<Split>(integer_field<int>(f, "axis"), integers_field<int64_t>(f, "sizes"));
}

// n, the number of pieces, is the op's number of outputs.
Json write_split_like(const SplitLike& op, OpWriteContext&) {
  return Json{{"axis", op.axis()}, {"n", op.num_outputs()}};
}
std::shared_ptr<const Op> read_split_like(const Json& f, OpReadContext&) {
  const int n = integer_field<int>(f, "n");
  if (n < 0) throw IOError("a SplitLike has a negative number of pieces: " + std::to_string(n));
  return std::make_shared<SplitLike>(integer_field<int>(f, "axis"), n);
}

[[maybe_unused]] const bool registered =
    register_op_codec<Concatenate>("Concatenate", write_concatenate, read_concatenate) &&
    register_op_codec<Stack>("Stack", write_stack, read_stack) &&
    register_op_codec<Split>("Split", write_split, read_split) &&
    register_op_codec<SplitLike>("SplitLike", write_split_like, read_split_like);

}  // namespace
}  // namespace tgc
