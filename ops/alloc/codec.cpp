// Codecs of the alloc family (ops/core/op_codec.h): Alloc, Fill, Arange, ArangeLike and Eye,
// written to a saved function's JSON and read back.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ops/alloc/alloc.h"
#include "ops/alloc/arange.h"
#include "ops/alloc/arange_like.h"
#include "ops/alloc/eye.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// A bound of an Arange: a number (true is not one), and finite: length() refuses the others,
// so no Arange of a graph holds one, and the file's "inf" or "nan" is a bad file. JSON prints
// doubles so that they read back exactly.
double bound_field(const Json& f, const char* key) {
  const double v = number_field(f, key);
  if (!std::isfinite(v)) throw_bad_field(key, "finite number", f.at(key));
  return v;
}

Json write_alloc(const Alloc& op, OpWriteContext&) { return Json{{"shape", op.shape()}}; }
std::shared_ptr<const Op> read_alloc(const Json& f, OpReadContext&) {
  return std::make_shared<Alloc>(integers_field<int64_t>(f, "shape"));
}

Json write_fill(const Fill&, OpWriteContext&) { return Json::object(); }
std::shared_ptr<const Op> read_fill(const Json&, OpReadContext&) { return std::make_shared<Fill>(); }

Json write_arange(const Arange& op, OpWriteContext&) {
  return Json{{"start", op.start()}, {"stop", op.stop()}, {"step", op.step()}, {"dtype", dtype_to_json(op.dtype())}};
}
std::shared_ptr<const Op> read_arange(const Json& f, OpReadContext&) {
  return std::make_shared<Arange>(bound_field(f, "start"), bound_field(f, "stop"), bound_field(f, "step"),
                                  dtype_from_json(f.at("dtype")));
}

Json write_arange_like(const ArangeLike& op, OpWriteContext&) { return Json{{"axis", op.axis()}}; }
std::shared_ptr<const Op> read_arange_like(const Json& f, OpReadContext&) {
  const int axis = integer_field<int>(f, "axis");
  // The op takes a normalized axis (its type rule asserts it).
  if (axis < 0) throw IOError("an ArangeLike has the negative axis " + std::to_string(axis));
  return std::make_shared<ArangeLike>(axis);
}

Json write_eye(const Eye& op, OpWriteContext&) {
  return Json{{"n", op.n()}, {"m", op.m()}, {"k", op.k()}, {"dtype", dtype_to_json(op.dtype())}};
}
std::shared_ptr<const Op> read_eye(const Json& f, OpReadContext&) {
  return std::make_shared<Eye>(integer_field<int64_t>(f, "n"), integer_field<int64_t>(f, "m"),
                               integer_field<int64_t>(f, "k"), dtype_from_json(f.at("dtype")));
}

[[maybe_unused]] const bool registered =
    register_op_codec<Alloc>("Alloc", write_alloc, read_alloc) &&
    register_op_codec<Fill>("Fill", write_fill, read_fill) &&
    register_op_codec<Arange>("Arange", write_arange, read_arange) &&
    register_op_codec<ArangeLike>("ArangeLike", write_arange_like, read_arange_like) &&
    register_op_codec<Eye>("Eye", write_eye, read_eye);

}  // namespace
}  // namespace tgc
