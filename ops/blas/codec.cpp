// Codecs of the blas family (ops/core/op_codec.h): Dot and BatchedDot keep the user's call
// ("dot" or "matmul", which words their errors), Gemm and Gemv their transpose and inplace
// flags; Outer has no parameters.
#include <memory>
#include <string>

#include "ops/blas/batched_dot.h"
#include "ops/blas/dot.h"
#include "ops/blas/gemm.h"
#include "ops/blas/outer.h"
#include "ops/core/op_codec.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// The user's call a product was built by; an empty one would word errors with nothing.
std::string user_name_from_json(const Json& f, const char* tag) {
  std::string name = string_field(f, "user_name");
  if (name.empty()) throw IOError(std::string(tag) + ": the field 'user_name' is empty");
  return name;
}

Json write_dot(const Dot& op, OpWriteContext&) { return Json{{"user_name", op.user_name()}}; }
std::shared_ptr<const Op> read_dot(const Json& f, OpReadContext&) {
  return std::make_shared<Dot>(user_name_from_json(f, "Dot"));
}

Json write_batched_dot(const BatchedDot& op, OpWriteContext&) { return Json{{"user_name", op.user_name()}}; }
std::shared_ptr<const Op> read_batched_dot(const Json& f, OpReadContext&) {
  return std::make_shared<BatchedDot>(user_name_from_json(f, "BatchedDot"));
}

Json write_outer(const Outer&, OpWriteContext&) { return Json::object(); }
std::shared_ptr<const Op> read_outer(const Json& f, OpReadContext&) {
  if (!f.is_object()) throw IOError("Outer: the fields are not an object: " + f.dump());
  return std::make_shared<Outer>();
}

Json write_gemm(const Gemm& op, OpWriteContext&) {
  return Json{{"trans_a", op.trans_a()}, {"trans_b", op.trans_b()}, {"inplace", op.inplace()}};
}
std::shared_ptr<const Op> read_gemm(const Json& f, OpReadContext&) {
  return std::make_shared<Gemm>(bool_field(f, "trans_a"), bool_field(f, "trans_b"), bool_field(f, "inplace"));
}

// Gemv's B is a vector: there is no transB to keep.
Json write_gemv(const Gemv& op, OpWriteContext&) { return Json{{"trans_a", op.trans_a()}, {"inplace", op.inplace()}}; }
std::shared_ptr<const Op> read_gemv(const Json& f, OpReadContext&) {
  return std::make_shared<Gemv>(bool_field(f, "trans_a"), bool_field(f, "inplace"));
}

[[maybe_unused]] const bool registered = register_op_codec<Dot>("Dot", write_dot, read_dot) &&
                                         register_op_codec<BatchedDot>("BatchedDot", write_batched_dot, read_batched_dot) &&
                                         register_op_codec<Outer>("Outer", write_outer, read_outer) &&
                                         register_op_codec<Gemm>("Gemm", write_gemm, read_gemm) &&
                                         register_op_codec<Gemv>("Gemv", write_gemv, read_gemv);

}  // namespace
}  // namespace tgc
