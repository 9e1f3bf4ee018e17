// Codecs of the shape family (ops/core/op_codec.h): Flatten, ShapeOf, Reshape, DimShuffle and
// ReshapeLike, written to a saved function's JSON and read back.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/op_codec.h"
#include "ops/shape/dimshuffle.h"
#include "ops/shape/flatten.h"
#include "ops/shape/reshape.h"
#include "ops/shape/reshape_like.h"
#include "ops/shape/shape_of.h"

namespace tgc {
namespace {

Json write_flatten(const Flatten& op, OpWriteContext&) { return Json{{"ndim", op.ndim()}}; }
std::shared_ptr<const Op> read_flatten(const Json& f, OpReadContext&) {
  return std::make_shared<Flatten>(integer_field<int>(f, "ndim"));
}

Json write_shape_of(const ShapeOf&, OpWriteContext&) { return Json::object(); }
std::shared_ptr<const Op> read_shape_of(const Json&, OpReadContext&) { return std::make_shared<ShapeOf>(); }

Json write_reshape(const Reshape& op, OpWriteContext&) { return Json{{"target", op.target()}}; }
std::shared_ptr<const Op> read_reshape(const Json& f, OpReadContext&) {
  return std::make_shared<Reshape>(integers_field<int64_t>(f, "target"));
}

// The pattern as the op holds it (-1 for a new axis); user_name is the function the user
// called (transpose, squeeze...), which error messages name.
Json write_dimshuffle(const DimShuffle& op, OpWriteContext&) {
  return Json{{"pattern", op.pattern()}, {"user_name", op.user_name()}};
}
std::shared_ptr<const Op> read_dimshuffle(const Json& f, OpReadContext&) {
  return std::make_shared<DimShuffle>(integers_field<int>(f, "pattern"), string_field(f, "user_name"));
}

Json write_reshape_like(const ReshapeLike&, OpWriteContext&) { return Json::object(); }
std::shared_ptr<const Op> read_reshape_like(const Json&, OpReadContext&) { return std::make_shared<ReshapeLike>(); }

[[maybe_unused]] const bool registered =
    register_op_codec<Flatten>("Flatten", write_flatten, read_flatten) &&
    register_op_codec<ShapeOf>("ShapeOf", write_shape_of, read_shape_of) &&
    register_op_codec<Reshape>("Reshape", write_reshape, read_reshape) &&
    register_op_codec<DimShuffle>("DimShuffle", write_dimshuffle, read_dimshuffle) &&
    register_op_codec<ReshapeLike>("ReshapeLike", write_reshape_like, read_reshape_like);

}  // namespace
}  // namespace tgc
