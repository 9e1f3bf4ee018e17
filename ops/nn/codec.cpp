// The codecs of the nn family (ops/core/op_codec.h): Softmax (and LogSoftmax), LogSoftmaxGrad,
// SoftmaxCrossEntropy and LogSumExp. Axes and floatX are the reductions' fields
// (ops/reduce/codec_fields.h); floatX is always written, so that a file read under another
// config's floatX gives the same op.
#include <memory>
#include <optional>
#include <string>

#include "ops/nn/log_softmax_grad.h"
#include "ops/nn/logsumexp.h"
#include "ops/nn/softmax.h"
#include "ops/nn/softmax_cross_entropy.h"
#include "ops/reduce/codec_fields.h"
#include "runtime/error.h"

namespace tgc {
namespace {

// {"axis": 1, "log": false, "floatx": "float32"}
Json write_softmax(const Softmax& op, OpWriteContext&) {
  return Json{{"axis", op.axis()}, {"log", op.log()}, {"floatx", dtype_to_json(op.floatx())}};
}

std::shared_ptr<const Op> read_softmax(const Json& f, OpReadContext&) {
  return std::make_shared<Softmax>(axis_field(f, "axis"), bool_field(f, "log"), float_dtype_field(f, "floatx"));
}

// {"axis": 1}
Json write_log_softmax_grad(const LogSoftmaxGrad& op, OpWriteContext&) { return Json{{"axis", op.axis()}}; }

std::shared_ptr<const Op> read_log_softmax_grad(const Json& f, OpReadContext&) {
  return std::make_shared<LogSoftmaxGrad>(axis_field(f, "axis"));
}

// {"axis": 1, "scale": -0.25}; scale null when g is an input, else number_to_json's exact
// double ("inf", "-inf" and "nan" for the values JSON has no number for).
Json write_softmax_cross_entropy(const SoftmaxCrossEntropy& op, OpWriteContext&) {
  return Json{{"axis", op.axis()}, {"scale", op.scale() ? number_to_json(*op.scale()) : Json()}};
}

std::shared_ptr<const Op> read_softmax_cross_entropy(const Json& f, OpReadContext&) {
  const bool has_scale = !f.at("scale").is_null();
  return std::make_shared<SoftmaxCrossEntropy>(
      axis_field(f, "axis"), has_scale ? std::optional<double>(number_field(f, "scale")) : std::nullopt);
}

// {"axes": [1], "keepdims": false, "floatx": "float32"}
Json write_logsumexp(const LogSumExp& op, OpWriteContext&) {
  return Json{{"axes", reduce_axes_to_json(op.axes())},
              {"keepdims", op.keepdims()},
              {"floatx", dtype_to_json(op.floatx())}};
}

std::shared_ptr<const Op> read_logsumexp(const Json& f, OpReadContext&) {
  return std::make_shared<LogSumExp>(reduce_axes_field(f, "axes"), bool_field(f, "keepdims"),
                                     float_dtype_field(f, "floatx"));
}

[[maybe_unused]] const bool registered =
    register_op_codec<Softmax>("Softmax", write_softmax, read_softmax) &&
    register_op_codec<LogSoftmaxGrad>("LogSoftmaxGrad", write_log_softmax_grad, read_log_softmax_grad) &&
    register_op_codec<SoftmaxCrossEntropy>("SoftmaxCrossEntropy", write_softmax_cross_entropy,
                                           read_softmax_cross_entropy) &&
    register_op_codec<LogSumExp>("LogSumExp", write_logsumexp, read_logsumexp);

}  // namespace
}  // namespace tgc
