// The codecs of the reduce family (ops/core/op_codec.h): CAReduce, Mean, ReduceCount and
// ArgReduce, and the fields (ops/reduce/codec_fields.h) that the nn codecs share.
// floatX is always written: a file read under another config's floatX must give the same op.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/reduce/arg_reduce.h"
#include "ops/reduce/careduce.h"
#include "ops/reduce/codec_fields.h"
#include "ops/reduce/mean.h"
#include "ops/reduce/reduce_count.h"
#include "runtime/error.h"

namespace tgc {

Json reduce_axes_to_json(const ReduceAxes& axes) { return axes ? Json(*axes) : Json(); }

ReduceAxes reduce_axes_field(const Json& fields, const char* key) {
  if (fields.at(key).is_null()) return std::nullopt;
  std::vector<int> axes = integers_field<int>(fields, key);
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] < 0 || (i > 0 && axes[i - 1] >= axes[i]))
      throw_bad_field(key, "sorted list of distinct non-negative axes", fields.at(key));
  return axes;
}

int axis_field(const Json& fields, const char* key) {
  const int axis = integer_field<int>(fields, key);
  if (axis < 0) throw_bad_field(key, "non-negative axis", fields.at(key));
  return axis;
}


namespace {

// Every ReduceKind; a file names one by reduce_kind_name ("Sum").
constexpr ReduceKind kReduceKinds[] = {ReduceKind::Sum, ReduceKind::Prod, ReduceKind::Max,
                                       ReduceKind::Min, ReduceKind::All,  ReduceKind::Any};

ReduceKind reduce_kind_field(const Json& f, const char* key) {
  const std::string name = string_field(f, key);
  for (ReduceKind kind : kReduceKinds)
    if (reduce_kind_name(kind) == name) return kind;
  throw IOError("the reduction '" + name + "' is not known to this tgc");
}

// {"kind": "Max", "axes": [1], "keepdims": false, "identity_when_empty": true}
Json write_careduce(const CAReduce& op, OpWriteContext&) {
  return Json{{"kind", reduce_kind_name(op.kind())},
              {"axes", reduce_axes_to_json(op.axes())},
              {"keepdims", op.keepdims()},
              {"identity_when_empty", op.identity_when_empty()}};
}

std::shared_ptr<const Op> read_careduce(const Json& f, OpReadContext&) {
  const ReduceKind kind = reduce_kind_field(f, "kind");
  const bool identity_when_empty = bool_field(f, "identity_when_empty");
  if (identity_when_empty && kind != ReduceKind::Max && kind != ReduceKind::Min)
    throw IOError("identity_when_empty is for Max and Min only: " + f.dump());
  return std::make_shared<CAReduce>(kind, reduce_axes_field(f, "axes"), bool_field(f, "keepdims"), identity_when_empty);
}

// {"axes": null, "keepdims": true, "floatx": "float32"}
Json write_mean(const Mean& op, OpWriteContext&) {
  return Json{{"axes", reduce_axes_to_json(op.axes())},
              {"keepdims", op.keepdims()},
              {"floatx", dtype_to_json(op.floatx())}};
}

std::shared_ptr<const Op> read_mean(const Json& f, OpReadContext&) {
  return std::make_shared<Mean>(reduce_axes_field(f, "axes"), bool_field(f, "keepdims"), float_dtype_field(f, "floatx"));
}

// {"axes": [0], "dtype": "float64"}
Json write_reduce_count(const ReduceCount& op, OpWriteContext&) {
  return Json{{"axes", reduce_axes_to_json(op.axes())}, {"dtype", dtype_to_json(op.dtype())}};
}

std::shared_ptr<const Op> read_reduce_count(const Json& f, OpReadContext&) {
  return std::make_shared<ReduceCount>(reduce_axes_field(f, "axes"), dtype_from_json(f.at("dtype")));
}

// {"kind": "argmax", "axis": 1, "keepdims": false}; axis null for the flattened tensor.
Json write_arg_reduce(const ArgReduce& op, OpWriteContext&) {
  return Json{{"kind", op.kind() == ArgKind::Argmax ? "argmax" : "argmin"},
              {"axis", op.axis() ? Json(*op.axis()) : Json()},
              {"keepdims", op.keepdims()}};
}

std::shared_ptr<const Op> read_arg_reduce(const Json& f, OpReadContext&) {
  const std::string kind = string_field(f, "kind");
  if (kind != "argmax" && kind != "argmin") throw IOError("ArgReduce: the kind '" + kind + "' is not argmax or argmin");
  return std::make_shared<ArgReduce>(kind == "argmax" ? ArgKind::Argmax : ArgKind::Argmin,
                                     f.at("axis").is_null() ? std::nullopt : std::optional<int>(axis_field(f, "axis")),
                                     bool_field(f, "keepdims"));
}

[[maybe_unused]] const bool registered =
    register_op_codec<CAReduce>("CAReduce", write_careduce, read_careduce) &&
    register_op_codec<Mean>("Mean", write_mean, read_mean) &&
    register_op_codec<ReduceCount>("ReduceCount", write_reduce_count, read_reduce_count) &&
    register_op_codec<ArgReduce>("ArgReduce", write_arg_reduce, read_arg_reduce);

}  // namespace
}  // namespace tgc
