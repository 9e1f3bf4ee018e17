// Codecs of the random family (ops/core/op_codec.h): RandomDraw keeps its distribution,
// dtype, static size (null: the `like` input's shape) and integer bounds; RandomPermutation
// its n. The stream's state is an input (a shared variable), not part of the op.
#include <memory>
#include <optional>
#include <string>

#include "ops/core/op_codec.h"
#include "ops/random/random_draw.h"
#include "ops/random/random_permutation.h"
#include "runtime/error.h"

namespace tgc {
namespace {

int64_t int_field(const Json& f, const char* tag, const char* key) {
  const Json& v = f.at(key);
  if (!v.is_number_integer())
    throw IOError(std::string(tag) + ": the field '" + key + "' is not an integer: " + v.dump());
  return v.get<int64_t>();
}

Distribution distribution_from_json(const Json& j) {
  for (Distribution d : {Distribution::Uniform, Distribution::Normal, Distribution::Integers})
    if (j.is_string() && j.get<std::string>() == distribution_name(d)) return d;
  throw IOError("RandomDraw: the distribution is not uniform, normal or randint: " + j.dump());
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
  std::optional<Shape> size;
  const Json& s = f.at("size");
  if (!s.is_null()) {
    if (!s.is_array()) throw IOError("RandomDraw: the size is not null or a list of dims: " + s.dump());
    size.emplace();
    for (const Json& d : s) {
      if (!d.is_number_integer()) throw IOError("RandomDraw: the size is not null or a list of dims: " + s.dump());
      size->push_back(d.get<int64_t>());
    }
  }
  // The constructor checks the rest: the dtype against the distribution, low < high, dims >= 0.
  return std::make_shared<RandomDraw>(distribution_from_json(f.at("distribution")), dtype_from_json(f.at("dtype")),
                                      std::move(size), int_field(f, "RandomDraw", "low"),
                                      int_field(f, "RandomDraw", "high"));
}

Json write_permutation(const RandomPermutation& op, OpWriteContext&) { return Json{{"n", op.n()}}; }
std::shared_ptr<const Op> read_permutation(const Json& f, OpReadContext&) {
  return std::make_shared<RandomPermutation>(int_field(f, "RandomPermutation", "n"));
}

[[maybe_unused]] const bool registered =
    register_op_codec<RandomDraw>("RandomDraw", write_draw, read_draw) &&
    register_op_codec<RandomPermutation>("RandomPermutation", write_permutation, read_permutation);

}  // namespace
}  // namespace tgc
