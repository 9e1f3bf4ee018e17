// Codecs of the random family (ops/core/op_codec.h): RandomDraw keeps its distribution,
// dtype, static size (null: the `like` input's shape) and integer bounds; RandomPermutation
// its n. The stream's state is an input (a shared variable), not part of the op.
#include <memory>
#include <optional>
#include <string>

#include "ops/core/op_codec.h"
#include "ops/random/random_draw.h"
#include "ops/random/random_permutation.h"

namespace tgc {
namespace {

Distribution distribution_field(const Json& f, const char* key) {
  const std::string name = string_field(f, key);
  for (Distribution d : {Distribution::Uniform, Distribution::Normal, Distribution::Integers})
    if (name == distribution_name(d)) return d;
  throw_bad_field(key, "distribution uniform, normal or randint", f.at(key));
}

// low and high are kept for every distribution (only randint reads them), so the op read
// back holds exactly what it was made with.
Json write_draw(const RandomDraw& op, OpWriteContext&) {
  return Json{{"distribution", std::string(distribution_name(op.distribution()))},
              {"dtype", dtype_to_json(op.dtype())},
              {"size", op.size() ? Json(*op.size()) : Json()},
              {"low", op.low()},
              {"high", op.high()}};
}
std::shared_ptr<const Op> read_draw(const Json& f, OpReadContext&) {
  std::optional<Shape> size;  // null: the `like` input's shape
  if (!f.at("size").is_null()) size = integers_field<int64_t>(f, "size");
  // The constructor checks the rest: the dtype against the distribution, low < high, dims >= 0.
  return std::make_shared<RandomDraw>(distribution_field(f, "distribution"), dtype_from_json(f.at("dtype")),
                                      std::move(size), integer_field<int64_t>(f, "low"),
                                      integer_field<int64_t>(f, "high"));
}

Json write_permutation(const RandomPermutation& op, OpWriteContext&) { return Json{{"n", op.n()}}; }
std::shared_ptr<const Op> read_permutation(const Json& f, OpReadContext&) {
  return std::make_shared<RandomPermutation>(integer_field<int64_t>(f, "n"));
}

[[maybe_unused]] const bool registered =
    register_op_codec<RandomDraw>("RandomDraw", write_draw, read_draw) &&
    register_op_codec<RandomPermutation>("RandomPermutation", write_permutation, read_permutation);

}  // namespace
}  // namespace tgc
