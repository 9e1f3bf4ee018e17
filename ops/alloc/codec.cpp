// Codecs of the alloc family (ops/core/op_codec.h): Alloc, Fill, Arange, ArangeLike and Eye,
// written to a saved function's JSON and read back.
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

// An integer of the field `key` that fits I: nlohmann's get<int>() would quietly take 1.5 or true.
template <class I>
I integer_value(const Json& j, const char* key) {
  if (j.is_number_unsigned() && std::in_range<I>(j.get<uint64_t>())) return static_cast<I>(j.get<uint64_t>());
  if (j.is_number_integer() && !j.is_number_unsigned() && std::in_range<I>(j.get<int64_t>()))
    return static_cast<I>(j.get<int64_t>());
  throw IOError(std::string("the field '") + key + "' holds no integer in range: " + j.dump());
}

template <class I>
I integer_field(const Json& f, const char* key) {
  return integer_value<I>(f.at(key), key);
}

template <class I>
std::vector<I> integers_field(const Json& f, const char* key) {
  const Json& j = f.at(key);
  if (!j.is_array()) throw IOError(std::string("the field '") + key + "' is not a list: " + j.dump());
  std::vector<I> out;
  for (const Json& e : j) out.push_back(integer_value<I>(e, key));
  return out;
}

// A number (nlohmann's get<double>() would take true). JSON prints doubles so that they read
// back exactly; it has no NaN or infinity, which no Arange holds (its length() refuses them).
double number_field(const Json& f, const char* key) {
  const Json& j = f.at(key);
  if (!j.is_number()) throw IOError(std::string("the field '") + key + "' is not a number: " + j.dump());
  return j.get<double>();
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
  return std::make_shared<Arange>(number_field(f, "start"), number_field(f, "stop"), number_field(f, "step"),
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
