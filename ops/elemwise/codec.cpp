// The codec of the elemwise family (ops/core/op_codec.h): Elemwise's scalar op, cast target,
// floatX and in-place input. floatX is always written: a file read under another config's
// floatX must give the same op.
#include <memory>
#include <string>

#include "ops/core/op_codec.h"
#include "ops/elemwise/elemwise.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// {"scalar_op": "add", "cast_to": null, "floatx": "float32", "inplace": -1}
Json write_elemwise(const Elemwise& op, OpWriteContext&) {
  return Json{{"scalar_op", scalar_op_to_json(op.kind())},
              {"cast_to", optional_dtype_to_json(op.cast_to())},
              {"floatx", dtype_to_json(op.floatx())},
              {"inplace", op.inplace_input(0)}};
}

// The in-place input: -1 or the index of one of the row's `arity` inputs, as an integer
// (1.0 and "1" are refused, as is any number that only wraps into range).
int inplace_field(const Json& f, int arity) {
  const int inplace = integer_field<int>(f, "inplace");
  if (inplace < -1 || inplace >= arity)
    throw IOError("Elemwise: inplace " + std::to_string(inplace) + " is not -1 or one of its " + std::to_string(arity) +
                  " inputs");
  return inplace;
}

// The constructor checks these fields only as invariants (a bug if broken); a file breaking
// them is a bad file, so they are checked here first.
std::shared_ptr<const Op> read_elemwise(const Json& f, OpReadContext&) {
  const ScalarOpKind kind = scalar_op_from_json(f.at("scalar_op"));
  const std::optional<DType> cast_to = optional_dtype_from_json(f.at("cast_to"));
  const DType floatx = float_dtype_field(f, "floatx");
  const int inplace = inplace_field(f, scalar_op_info(kind).arity);
  if (cast_to.has_value() != (kind == ScalarOpKind::Cast))
    throw IOError("Elemwise: cast_to is given exactly for cast: " + f.dump());
  return std::make_shared<Elemwise>(kind, cast_to, floatx, inplace);
}

[[maybe_unused]] const bool registered = register_op_codec<Elemwise>("Elemwise", write_elemwise, read_elemwise);

}  // namespace
}  // namespace tgc
